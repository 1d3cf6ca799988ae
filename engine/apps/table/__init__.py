"""The table in a browser (``showdown table``): a display the whole table reads and phones
as private hands, served by a small web server over the match driver and the unit ports.
"""

from engine.apps.table.hub import Connection
from engine.apps.table.room import Room, Seat

__all__ = ["Room", "Seat", "Connection"]

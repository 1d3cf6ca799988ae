"""The host at the server's terminal: a lost host key replaced while the table
runs (from its terminal, or by a signal), and the host's choice for a phone that
did not answer.

:class:`HostConsole` is an add-on of the table's server (``create_app(...,
addons=[console])``, see :class:`~engine.apps.table.server.Addon`) with no
routes. While the server runs, a line ``new host key`` typed at the server's
terminal (when its standard input is a terminal, and not taken by ``--unit
manual``'s questions), or ``SIGUSR1`` (the Pi service has no terminal:
``sudo systemctl kill -s USR1 --kill-who=main uno-showdown-table``), gives the
room a new host key (``room.new_host_key()``: the old one stops working at
once, the display that held it becomes a spectator and is told so) and prints
the new host URL where the first was printed (the terminal, or the service's
journal). While a showdown on the phones is paused for a phone that did not
answer (``--unit phones``), the host's choice is typed there as on the display:
``fight again``, ``bot for NAME`` (a bot presses for NAME in this showdown) or
``NAME loses``. All is handed to the server's event loop: the room is only ever
touched on its thread.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
import sys
import threading
from collections.abc import AsyncIterator, Callable
from typing import Any, Protocol, TextIO

from starlette.routing import BaseRoute

from engine.apps.table.access import host_url

__all__ = ["HostConsole", "NEW_KEY_LINE", "RENEW_SIGNAL"]

#: What the host types at the server's terminal for a new key.
NEW_KEY_LINE = "new host key"
#: The signal that does the same (a service has no terminal).
RENEW_SIGNAL = signal.SIGUSR1


class _Hosted(Protocol):
    def new_host_key(self) -> str | None: ...
    def host_command(self, message: dict) -> str | None: ...
    def seat_named(self, name: str) -> int | None: ...


class HostConsole:
    """See the module docstring. ``base`` is the table's address as printed
    (``http://HOST:PORT``); ``stdin`` is read only when ``read_stdin`` and it is
    a terminal; ``out`` prints a line."""

    def __init__(
        self,
        room: _Hosted,
        base: str,
        *,
        stdin: TextIO | None = None,
        read_stdin: bool = True,
        out: Callable[[str], Any] = lambda line: print(line, flush=True),
    ):
        self.room = room
        self.base = base
        self.stdin = sys.stdin if stdin is None else stdin
        self.read_stdin = read_stdin
        self.out = out

    def routes(self) -> list[BaseRoute]:
        return []

    def line(self, text: str) -> None:
        """A line typed at the server's terminal."""
        said = " ".join(text.split()).casefold()
        if said == NEW_KEY_LINE:
            self.replace()
        elif (choice := self._choice(said)) is not None:
            refused = self.room.host_command(choice)
            self.out(f"Not done: {refused}." if refused else "Done: see the display.")
        elif said:
            self.out(
                f"Type '{NEW_KEY_LINE}' (then Enter) for a new host key; for a phone that did"
                " not answer: 'fight again', 'bot for NAME' or 'NAME loses'. Ctrl-C stops it."
            )

    def _choice(self, said: str) -> dict | None:
        """The host's choice for a phone that did not answer, as a host command, or None."""
        if said == "fight again":
            return {"cmd": "retry"}
        if said.startswith("bot for "):
            name, cmd, key = said.removeprefix("bot for "), "stand_in", "seat"
        elif said.endswith(" loses"):
            name, cmd, key = said.removesuffix(" loses"), "decide", "loser"
        else:
            return None
        return {"cmd": cmd, key: self.room.seat_named(name)}

    def replace(self) -> None:
        """A new host key, and the new host URL printed."""
        key = self.room.new_host_key()
        if key is None:  # the save failed: undone, the old key still works, the game paused
            self.out("No new host key: the table cannot save it (see the display); the old works.")
            return
        self.out(f"A new host key: the old one works no more. host: {host_url(self.base, key)}")

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[None]:
        loop = asyncio.get_running_loop()
        loop.add_signal_handler(RENEW_SIGNAL, self.replace)
        if self.read_stdin and self.stdin.isatty():
            self.out(f"Type '{NEW_KEY_LINE}' here (then Enter) if the host URL was lost.")
            reader = threading.Thread(
                target=self._read, args=(loop,), name="table-console", daemon=True
            )
            reader.start()  # a daemon: a read that never ends holds up no stop
        try:
            yield
        finally:
            loop.remove_signal_handler(RENEW_SIGNAL)

    def _read(self, loop: asyncio.AbstractEventLoop) -> None:
        for text in self.stdin:
            try:
                loop.call_soon_threadsafe(self.line, text)
            except RuntimeError:  # the loop is closed: the server stopped
                return

"""The action ids a seat has sent in this match: a replay is refused, before and
after a restart, in a memory of bounded size that is saved with the match.

Every ``act`` carries an id. The phone page numbers its actions
``<prefix>-<counter>``: a random prefix per page load, then 1, 2, 3, ...
(``static/common.js``, ``Link.act``). A seat keeps, for each prefix, the
highest counter it has seen: an id whose counter is not above it is refused,
the same one (a replay) or an older one (sent after a newer one from the same
page: a replay too, or a message so late that it must not count now). A whole
number id is a counter of its own (the empty prefix). Any other id (up to 64
characters) is kept as it is. One page costs one entry however long it plays;
a seat keeps at most :data:`MAX_ENTRIES` entries (pages and other ids) in a
match, and an id that would need one more is refused with how to number them,
so no replay is ever accepted for want of memory. A new match starts a new
memory.

>>> ids = ActionIds()
>>> [ids.check(i, "m1") for i in ("ab-1", "ab-2", "cd-1", 7, "x")]
[None, None, None, None, None]
>>> ids.check("ab-2", "m1")
"action 'ab-2' was sent already (replayed)"
>>> ids.check("ab-1", "m1")
"action 'ab-1' is older than ab-2 from its page: refused as a replay"
>>> len(ids), ids.check("ab-2", "m2"), len(ids)  # another match: another memory
(4, None, 1)
"""

from __future__ import annotations

import re
from typing import Any

__all__ = ["ActionIds", "MAX_ENTRIES", "MAX_ID_CHARS"]

#: Pages (prefixes) and other ids a seat may use in one match.
MAX_ENTRIES = 256
#: The longest id, in characters.
MAX_ID_CHARS = 64
#: ``<prefix>-<counter>``: the phone page's ids.
_COUNTED = re.compile(r"([0-9A-Za-z_]{1,40})-([0-9]{1,15})")
_BAD = "not a saved table: a seat's ids"


def _counted(msg_id: int | str) -> tuple[str, int] | None:
    """(prefix, counter) of a counted id, or None."""
    if isinstance(msg_id, int):
        return "", msg_id
    match = _COUNTED.fullmatch(msg_id)
    return None if match is None else (match[1], int(match[2]))


class ActionIds:
    """One seat's action ids in one match (see the module docstring)."""

    def __init__(self) -> None:
        self.match_id: str | None = None
        self._highest: dict[str, int] = {}  # prefix -> the highest counter seen
        self._others: dict[str, None] = {}  # other ids, in the order they came

    def __len__(self) -> int:
        return len(self._highest) + len(self._others)

    def check(self, msg_id: Any, match_id: str) -> str | None:
        """Why the id ``msg_id`` of an action in match ``match_id`` is refused,
        or None: it is new, and remembered from now on (whatever becomes of
        its action: an id names one message)."""
        if msg_id is None:
            return "an action needs an id (e.g. the page's prefix and a counter: ab12-1)"
        if isinstance(msg_id, bool) or not isinstance(msg_id, (int, str)):
            return "id must be a number or a string"
        if isinstance(msg_id, str) and not 0 < len(msg_id) <= MAX_ID_CHARS:
            return f"id must be 1 to {MAX_ID_CHARS} characters long"
        if match_id != self.match_id:
            self.match_id, self._highest, self._others = match_id, {}, {}
        counted = _counted(msg_id)
        if counted is None:
            assert isinstance(msg_id, str)  # a number is always counted
            return self._other(msg_id)
        prefix, counter = counted
        highest = self._highest.get(prefix)
        if highest is not None and counter <= highest:
            if counter == highest:
                return f"action {msg_id!r} was sent already (replayed)"
            newest = f"{prefix}-{highest}" if prefix else str(highest)
            return f"action {msg_id!r} is older than {newest} from its page: refused as a replay"
        if highest is None and self._full():
            return self._full()
        self._highest[prefix] = counter
        return None

    def _other(self, msg_id: str) -> str | None:
        """An id that does not count up: kept as it is."""
        if msg_id in self._others:
            return f"action {msg_id!r} was sent already (replayed)"
        if self._full():
            return self._full()
        self._others[msg_id] = None
        return None

    def _full(self) -> str | None:
        if len(self) < MAX_ENTRIES:
            return None
        return (
            f"this seat has used {MAX_ENTRIES} pages or ids that do not count up in this "
            "match: number the actions of one page PREFIX-1, PREFIX-2, ... (as the phone "
            "page does)"
        )

    # -- saved with the match ---------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        return {
            "match_id": self.match_id,
            "counted": dict(self._highest),
            "others": list(self._others),
        }

    @classmethod
    def from_dict(cls, data: Any) -> ActionIds:
        """The memory :meth:`to_dict` gave; ValueError if it is not one. None
        (a file from before ids were saved): an empty memory."""
        ids = cls()
        if data is None:
            return ids
        if not isinstance(data, dict):
            raise ValueError(f"{_BAD} must be an object, not {data!r}")
        match_id, counted, others = data.get("match_id"), data.get("counted"), data.get("others")
        if match_id is not None and not isinstance(match_id, str):
            raise ValueError(f"{_BAD}: match_id must be a string, not {match_id!r}")
        if not isinstance(counted, dict) or not all(
            isinstance(k, str) and type(v) is int for k, v in counted.items()
        ):
            raise ValueError(f"{_BAD}: counted must map prefixes to numbers, not {counted!r}")
        if not isinstance(others, list) or not all(
            isinstance(i, str) and _counted(i) is None for i in others
        ):
            raise ValueError(f"{_BAD}: others must be a list of ids, not {others!r}")
        if len(counted) + len(others) > MAX_ENTRIES:
            raise ValueError(f"{_BAD}: more than {MAX_ENTRIES} entries")
        ids.match_id, ids._highest, ids._others = match_id, dict(counted), dict.fromkeys(others)
        return ids

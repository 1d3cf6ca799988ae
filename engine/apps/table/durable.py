"""What was shown is durable: a table's change is saved before any page sees it.

A room applies a change, saves the match (``_changed(save=True)``: the save
comes first, then the views are queued) and only then does the server send
anything. When the save fails (a full disk, a read-only one, an I/O error, a
permission taken away) :func:`save_failed` turns the ``OSError`` into a
:class:`SaveFailed` in the table's words ("the table cannot save: the disk is
full at PATH"), and the change is undone: a :class:`Checkpoint` taken before
it puts the room back as it was, field for field (its seats, its match and the
driver's state, its random generators, every connection's seat and what waited
to be sent to it), so nothing the failed change did is ever shown. Then the
game pauses on every screen with what to do, until the host's ``retry`` saves.

:func:`durable` wraps a room's entry points that change and save (the Runner's
``bot_step``, ``next_round``, ``finish_showdown``, ...): the outermost change
takes the checkpoint, undoes on a failed save and pauses, and raises nothing
out; a change made inside another (a host's ``decide`` finishing a showdown)
is the outer one's, undone with it. ``Hub.receive`` does the same for each
message that may save, and tells its sender why it was refused.

>>> import errno
>>> print(save_failed(OSError(errno.ENOSPC, "No space left on device"), Path("/t/table.json")))
the table cannot save: the disk is full at /t/table.json
>>> failure = save_failed(OSError(errno.EROFS, "Read-only file system"), Path("/t/t.json"))
>>> print(failure.pause)  # doctest: +NORMALIZE_WHITESPACE
The game is paused: the table cannot save: the disk is read-only at /t/t.json. What to do:
make it writable again (remount it read-write), then press Retry on the host's display.
"""

from __future__ import annotations

import copy
import errno
import functools
import json
import logging
import os
import random
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, Protocol, TypeVar

from engine.game.errors import SaveFailed
from engine.units.ports import ShowdownRequest

__all__ = [
    "SaveFailed",
    "save_failed",
    "write_save",
    "Checkpoint",
    "durable",
    "decide_ahead",
    "saved_verdicts",
    "remember_verdicts",
]

#: Each errno the table explains: what happened, and what to do about it.
log = logging.getLogger(__name__)

_WORDS: dict[int, tuple[str, str]] = {
    errno.ENOSPC: ("the disk is full", "free space on the disk"),
    errno.EDQUOT: ("the disk quota is used up", "free space on the disk or raise the quota"),
    errno.EROFS: ("the disk is read-only", "make it writable again (remount it read-write)"),
    errno.EIO: (
        "the disk failed to write (an I/O error)",
        "check the disk (an SD card may be failing) or move the save file with --save",
    ),
    errno.EACCES: (
        "permission denied",
        "give the table's user the right to write there, or choose another file with --save",
    ),
    errno.EPERM: (
        "the operation is not permitted",
        "give the table's user the right to write there, or choose another file with --save",
    ),
    errno.EISDIR: ("a folder stands where the file goes", "move that folder away"),
    errno.ENOTDIR: ("a file stands where a folder goes", "move that file away"),
}


def write_save(path: Path, snapshot: dict[str, Any]) -> None:
    """Write ``snapshot`` to ``path`` as JSON so that a crash or a power cut
    leaves the old file or the new one, never half of one (a temporary file,
    flushed to the disk, renamed over, the folder flushed), readable by its
    owner only: it holds the seats' secrets. OSError as the system raises it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(path.name + ".tmp")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as file:
        json.dump(snapshot, file)
        file.flush()
        os.fsync(file.fileno())
    os.replace(temporary, path)
    folder = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(folder)
    finally:
        os.close(folder)


def save_failed(exc: OSError, path: Path) -> SaveFailed:
    """``exc``, raised while saving to ``path``, in the table's words."""
    what, to_do = _WORDS.get(exc.errno or 0, (None, "check the disk and the folder"))
    if what is None:
        what = (exc.strerror or str(exc) or type(exc).__name__).lower()
    return SaveFailed(f"the table cannot save: {what} at {path}", to_do)


class _Undoable(Protocol):
    connections: list[Any]


class Checkpoint:
    """A room's state before a change, to put back if the change's save fails.

    Every attribute of the room but those named in its ``_NOT_STATE`` (the
    connections list, the unit, the hooks, the caches of encoded views) is
    copied deeply; the objects named in ``shared`` are kept as they are
    (the unit port, which the worker thread may hold), a game is copied with
    its own ``copy()`` and the match's event list (it only grows) shallowly.

    A change touches the connection it came from (``sender``) and those that
    hold a seat (a seat taken over, seats renumbered at a start, a welcome
    queued): their attributes are kept, and how much waited in their outboxes.
    Every other connection only gets views, queued after the save: nothing to
    undo there, and nothing is copied for it (a thousand displays cost nothing).
    """

    def __init__(
        self,
        room: _Undoable,
        not_state: Iterable[str],
        shared: Iterable[Any] = (),
        sender: Any = None,
    ):
        memo: dict[int, Any] = {id(room): room}
        memo.update((id(conn), conn) for conn in room.connections)
        for obj in shared:
            memo[id(obj)] = obj
        match = getattr(room, "match", None)
        holders: list[Any] = [room]
        if match is not None:
            memo[id(match.game)] = match.game.copy()
            memo[id(match.events)] = list(match.events)
            memo[id(match.narration)] = match.narration  # the family's: no state
            holders += [match, *getattr(room, "bots", {}).values()]
        for holder in holders:
            for value in vars(holder).values():
                if id(value) not in memo:
                    quick = _quick_copy(value)
                    if quick is not None:
                        memo[id(value)] = quick
        self._skip = skip = frozenset(not_state)
        state = {name: value for name, value in vars(room).items() if name not in skip}
        try:
            self._state = copy.deepcopy(state, memo)
        except (TypeError, copy.Error):  # something that cannot be copied (a lock, a socket)
            self._state = {}
            for name, value in state.items():
                try:
                    self._state[name] = copy.deepcopy(value, memo)
                except (TypeError, copy.Error):
                    _warn_once(type(room).__name__, name)
                    self._state[name] = value  # kept as it is: not undone
        self._connections = [
            (conn, dict(vars(conn)), len(conn.outbox))
            for conn in room.connections
            if conn.seat is not None or conn is sender
        ]

    def restore(self, room: _Undoable) -> None:
        _put_back(room, self._state, self._skip)
        for conn, fields, queued in self._connections:
            _put_back(conn, fields)
            del conn.outbox[queued:]


_WARNED: set[tuple[str, str]] = set()


def _warn_once(room: str, name: str) -> None:
    if (room, name) not in _WARNED:
        _WARNED.add((room, name))
        log.warning(
            "%s.%s cannot be copied: a change whose save fails does not undo it "
            "(name it in _NOT_STATE if it is not the room's state)",
            room,
            name,
        )


def _quick_copy(value: Any) -> Any:
    """A copy of ``value`` made in one step, or None: a random generator (its
    state, not its 625 numbers one by one), a list of strings (a log)."""
    if isinstance(value, random.Random):
        twin = type(value).__new__(type(value))
        twin.setstate(value.getstate())
        return twin
    if type(value) is list and all(type(item) is str for item in value):
        return list(value)
    return None


def _put_back(obj: Any, fields: dict[str, Any], skip: Iterable[str] = ()) -> None:
    """``obj``'s attributes as ``fields`` (one added since is removed)."""
    attributes = vars(obj)
    for name in [name for name in attributes if name not in fields and name not in skip]:
        del attributes[name]
    attributes.update(fields)


T = TypeVar("T")


def durable(
    method: Callable[..., T] | None = None, *, failed: Callable[..., None] | None = None
) -> Any:
    """A room method that changes and saves, made all or nothing: if its save
    fails, the room is put back as it was before the call, ``failed(room,
    *args)`` is called (what the undone call leaves behind: a showdown's
    outcome held for the retry), the game pauses (``_cannot_save``) and the
    call returns None instead of raising. Inside another change it simply
    runs: the outer change is undone as a whole. ``@durable`` or
    ``@durable(failed=...)``."""
    if method is None:
        return functools.partial(durable, failed=failed)

    @functools.wraps(method)
    def run(self: Any, *args: Any, **kwargs: Any) -> T | None:
        if self._in_change:
            return method(self, *args, **kwargs)
        checkpoint = self._checkpoint()
        self._in_change = True
        try:
            return method(self, *args, **kwargs)
        except SaveFailed as failure:
            checkpoint.restore(self)
            self._in_change = False
            if failed is not None:
                failed(self, *args, **kwargs)
            self._cannot_save(failure)
            return None
        finally:
            self._in_change = False

    return run


# -- a simulated unit's verdicts, kept with the match -------------------------------------


def decide_ahead(unit: Any, request: ShowdownRequest | None) -> None:
    """A unit that decides its verdicts itself (a simulated one:
    ``SimulatedUnit.decide_ahead``) decides ``request``'s now, before the
    save that makes it pending is done and before anything of it is shown; a
    real unit (its journal decides) or a person at the table: nothing."""
    decide = getattr(unit, "decide_ahead", None)
    if request is not None and decide is not None:
        decide(request)


def saved_verdicts(unit: Any, request: ShowdownRequest | None) -> dict[str, Any]:
    """What the save file keeps of the unit's verdicts: the pending
    showdown's, by its id (``{}`` for a unit that keeps none)."""
    data = getattr(unit, "verdict_data", None)
    if request is None or data is None:
        return {}
    verdict = data(request.showdown_id)
    return {} if verdict is None else {request.showdown_id: verdict}


def remember_verdicts(unit: Any, verdicts: dict[str, Any]) -> None:
    """A resumed match's verdicts given back to its unit (one that keeps
    none, a real unit say, ignores them: its journal has its own).
    ValueError if one is not a verdict."""
    remember = getattr(unit, "remember", None)
    if remember is None:
        return
    for showdown_id, verdict in verdicts.items():
        try:
            remember(str(showdown_id), verdict)
        except ValueError as exc:
            raise ValueError(f"not a saved table: showdown {showdown_id}: {exc}") from None

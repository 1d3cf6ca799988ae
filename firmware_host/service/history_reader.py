"""``history`` off the command worker: a reader with a thread and a connection of its own.

The command worker runs every command one at a time, so while it read the
journal for a ``history`` (1.85 s at 100,000 rows, before the journal kept
its figures), every client's ``status``, ``showdown``, ``start`` and
``cancel`` waited behind it. A ``history`` reply is also the one large
message of the protocol (1,000 results are about 0.4 MB of JSON). So the
server hands each ``history`` request to a :class:`HistoryReader`:

- **A thread of its own**, started with the first request, reads one
  request at a time, in arrival order, through a read-only SQLite
  connection of its own (``Journal(readonly=True, live=True)``): in WAL mode
  a reader and the unit's writer never wait for each other, so a decision
  is journaled while a history is read.
- **The reply is made and encoded there**; the I/O thread only queues its
  bytes, so nothing of its size is done where the other clients are served.
- **Bounded**: at most ``max_waiting`` requests are being read or waiting
  (of all clients together). One more is refused at once, on the I/O
  thread, with ``busy`` and words saying to send it again when one is
  answered: waiting without end would only let one client's loop of
  requests make everyone's history late, and memory grow with it.
- **Order**: each request gets exactly one reply, with its id. A history
  reply may come after the replies to requests its client sent later, as a
  ``selftest``'s may: the protocol matches replies by id (docs/protocol.md).

>>> import queue, tempfile, pathlib
>>> from firmware_host.protocol import Request
>>> from firmware_host.service.journal import Journal
>>> path = pathlib.Path(tempfile.mkdtemp()) / "results.sqlite3"
>>> Journal(path).close()
>>> reader = HistoryReader(path, default_limit=50, guarded=lambda request, work: work())
>>> replies = queue.SimpleQueue()
>>> reader.ask(Request(7, "history", {"limit": None, "player": None}), replies.put) is None
True
>>> replies.get(timeout=10)
b'{"id":7,"ok":true,"results":[],"players":{},"bots":{},"damaged":[]}\\n'
>>> reader.close()
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from firmware_host.protocol import ErrorReply, Reply, Request, encode
from firmware_host.service.journal import Journal
from firmware_host.service.worker import CommandWorker

__all__ = ["HistoryReader", "MAX_HISTORY_WAITING", "encode_history"]

log = logging.getLogger(__name__)

#: ``history`` requests (of all clients) being read or waiting, past which one
#: more is answered ``busy`` at once.
MAX_HISTORY_WAITING = 8


class HistoryReader:
    """Reads ``history`` requests on a thread of its own (see the module).

    ``journal_path``: the journal the daemon writes; ``default_limit``: the
    ``limit`` of a request that gives none; ``guarded(request, work)``: the
    server's way of turning an exception of ``work()`` into an error reply;
    ``runner``: where the reads run (default: a thread of its own, started on
    the first request; anything with ``submit(job)`` and ``close()``).
    """

    def __init__(
        self,
        journal_path,
        *,
        default_limit: int,
        guarded: Callable[[Request, Callable[[], Any]], Any],
        runner=None,
        max_waiting: int = MAX_HISTORY_WAITING,
    ):
        self._path = journal_path
        self._default_limit = default_limit
        self._guarded = guarded
        self._runner = runner
        self.max_waiting = max_waiting
        self._lock = threading.Lock()
        self._waiting = 0  # being read or waiting to be
        self._journal: Journal | None = None  # the reader thread's own

    @property
    def waiting(self) -> int:
        """Requests being read or waiting to be."""
        with self._lock:
            return self._waiting

    def ask(self, request: Request, answer: Callable[[bytes], None]) -> ErrorReply | None:
        """Take ``request`` (``history``): None, and ``answer(line)`` is called
        on the reader's thread with the encoded reply; or, when ``max_waiting``
        are there already, the ``busy`` refusal to send now."""
        with self._lock:
            if self._waiting >= self.max_waiting:
                refused = True
            else:
                refused = False
                self._waiting += 1
        if refused:
            log.info("history refused: %d history requests are being read", self.max_waiting)
            return request.fail(
                "busy",
                f"the unit is reading {self.max_waiting} history requests already: "
                "send it again when one is answered",
            )
        if self._runner is None:
            self._runner = CommandWorker("server-history")
        self._runner.submit(lambda: self._read(request, answer))
        return None

    def _read(self, request: Request, answer: Callable[[bytes], None]) -> None:
        """On the reader's thread: one request read, answered and encoded
        (an error on the way is the error reply ``guarded`` makes of it)."""
        try:
            done = self._guarded(request, lambda: _Line(encode_history(self._history(request))))
            line = done.data if isinstance(done, _Line) else encode(done)
        finally:
            with self._lock:
                self._waiting -= 1
        answer(line)

    def _history(self, request: Request) -> Reply:
        limit = request.args["limit"] or self._default_limit
        return request.reply(**self.journal().history(limit, request.args["player"]))

    def journal(self) -> Journal:
        """The reader thread's read-only connection to the journal, opened on first use."""
        if self._journal is None:
            self._journal = Journal(self._path, readonly=True, live=True)
        return self._journal

    def close(self) -> None:
        """Finish the requests taken, close the connection; safe to call twice."""
        if self._runner is not None:
            self._runner.submit(self._close_journal)
            self._runner.close()

    def _close_journal(self) -> None:
        journal, self._journal = self._journal, None
        if journal is not None:
            journal.close()


def encode_history(reply: Reply) -> bytes:
    """``encode(reply)`` of a ``history`` reply, the same bytes, made one
    result at a time: one ``json.dumps`` of a 0.4 MB reply holds the GIL for
    milliseconds (C code is never made to let go), while between the results
    the other threads take it as they need it."""
    data = reply.data
    if list(data) != ["results", "players", "bots", "damaged"]:
        return encode(reply)
    head = _dumps({"id": reply.id, "ok": True})[:-1]
    results = ",".join(_dumps(result) for result in data["results"])
    tail = [_dumps(data[key]) for key in ("players", "bots", "damaged")]
    text = (
        f'{head},"results":[{results}],"players":{tail[0]},"bots":{tail[1]},"damaged":{tail[2]}}}\n'
    )
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: encode() escapes the whole line
        return encode(reply)


def _dumps(value) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


@dataclass(frozen=True)
class _Line:
    """A reply already encoded."""

    data: bytes

"""The protocol server's sessions: requests in, replies and events out.

:class:`Server` joins the sans-IO protocol (:mod:`firmware_host.protocol`) to
the :class:`~firmware_host.core.unit.Unit` and the results journal. It owns no
socket: a transport (:mod:`firmware_host.service.transports`) opens a
:class:`Session` per link, feeds it the bytes it reads and writes out the
bytes the session has queued. Four threads meet here, each with one job:

- the **I/O thread** (the transport's) calls :meth:`Server.receive`,
  :meth:`Server.receive_eof` and :meth:`Server.pump`. It answers at once what
  needs neither the unit nor the journal (bad lines, ``auth``, ``hello``,
  ``ping``), numbers the unit's events and queues them to every ready session;
- the **command worker** runs every other command, one at a time in arrival
  order: it calls the unit (which waits for the unit's loop) and reads the
  journal through its own SQLite connection. Every command is quick: a
  ``selftest`` (about 2.5 s) runs in the unit's ``selftest`` state, on the
  loop's deadlines, and is answered when it ends, so ``status``, ``result``
  and other clients' commands are never queued behind it, and a second
  ``selftest`` meanwhile is ``busy`` at once;
- the **history reader** (:mod:`~firmware_host.service.history_reader`)
  runs ``history``, on a thread and a read-only journal connection of its
  own, so no command of any client waits behind a history read; at most
  ``MAX_HISTORY_WAITING`` are read or wait, one more is ``busy`` at once;
- the unit's **loop thread** only calls the subscriber, which puts the event
  on the outbox and wakes the I/O thread. No socket or journal I/O there.

Everything is bounded, and back-pressure is counted in bytes the kernel would
not take, never in lines made in one burst: a line by
``server.max_line_bytes`` (the protocol module); a session's unsent bytes by
``server.send_buffer_bytes`` (past :data:`READ_PAUSE_BYTES` the transport
stops reading that link until the client takes its replies, so a client that
pipelines thousands of requests gets every reply, in order); commands waiting
per session by :data:`MAX_IN_FLIGHT` (reading pauses too); TCP clients by
``server.max_clients``. A client is dropped only when it really stalls: the
transport drops one that takes none of its waiting bytes for
``server.send_stall_s``, and says so with the bytes and the seconds.
"""

from __future__ import annotations

import logging
import queue
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from firmware_host.core.bench import BENCH_HORIZON_S, MAX_DELAY_S
from firmware_host.core.errors import InvalidArgumentError, UnitError, UnknownShowdownError
from firmware_host.protocol import (
    MAX_AUTH_FAILURES,
    ErrorReply,
    Event,
    EventName,
    EventSequencer,
    ProtocolError,
    Reply,
    Request,
    ServerConnection,
    encode,
)
from firmware_host.service.history_reader import MAX_HISTORY_WAITING, HistoryReader
from firmware_host.service.journal import Journal
from firmware_host.service.worker import CommandWorker

__all__ = [
    "Server",
    "Session",
    "CommandWorker",
    "MAX_IN_FLIGHT",
    "MAX_HISTORY_WAITING",
    "READ_PAUSE_BYTES",
    "software_version",
]

log = logging.getLogger(__name__)

#: Commands of one session the worker may hold before the transport pauses
#: reading that session's link.
MAX_IN_FLIGHT = 16
#: Unsent bytes of one session past which the transport pauses reading it.
READ_PAUSE_BYTES = 65536
#: At most this many bytes are handed to the OS in one write.
CHUNK_BYTES = 65536

_AT_ONCE = ("auth", "hello", "ping")  # answered on the I/O thread


def software_version() -> str:
    """The installed distribution's version, as the hello reply shows it."""
    try:
        return metadata.version("uno-showdown")
    except metadata.PackageNotFoundError:
        return "unknown"


class Session:
    """One client link: its :class:`ServerConnection` and the bytes waiting
    to be written to it (at most ``send_buffer_bytes``; more marks the session
    to be dropped).

    A session ends in one of three ways. :meth:`drop` (the client broke the
    rules of the link: it does not read) closes it at once, losing what was
    queued. :meth:`close_after_flush` (an HTTP line, too many wrong tokens, no
    hello in time) reads nothing more, sends what is queued, then closes. And
    when the client half-closes (:attr:`peer_closed`), the replies to what it
    sent are still delivered before the link is closed. :attr:`closing` holds
    the reason once one of the first two is decided.
    """

    def __init__(
        self,
        name: str,
        connection: ServerConnection,
        *,
        send_buffer_bytes: int,
        counted: bool = True,
        hello_deadline: float | None = None,
    ):
        self.name = name
        self.connection = connection
        self.counted = counted  # counts against server.max_clients (TCP)
        self.in_flight = 0  # commands given to the worker, not answered yet
        self.closing: str | None = None
        self.flush_first = False  # closing: send what is queued first
        self.peer_closed = False  # the client sent EOF; it may still read
        self.closed = False
        #: Clock time by which auth and hello must be done (None: no deadline).
        self.hello_deadline = hello_deadline
        #: Clock time since which queued bytes have waited with none taken.
        self.stalled_since: float | None = None
        self.pending_bytes = 0
        #: The client asked for the ``outputs`` events (``watch``); set on the
        #: unit's loop thread, read where events are delivered.
        self.watching_outputs = False
        self.asked_to_watch = False  # it sent watch (set where requests are read)
        self._limit = send_buffer_bytes
        self._lines: deque[bytes] = deque()
        self._chunk = b""

    def queue(self, data: bytes) -> None:
        """Queue one encoded line; past the byte limit the session is dropped."""
        if self.closing is not None or self.closed:
            return
        self._lines.append(data)
        self.pending_bytes += len(data)
        if self.pending_bytes > self._limit:
            self.drop(
                f"{self.pending_bytes} bytes waiting to be sent, more than "
                f"server.send_buffer_bytes ({self._limit}): the client is not reading"
            )

    def drop(self, reason: str) -> None:
        """Close at once; what was queued is lost."""
        if self.closing is None or self.flush_first:
            self.closing, self.flush_first = reason, False
        self._lines.clear()
        self._chunk = b""
        self.pending_bytes = 0

    def close_after_flush(self, reason: str) -> None:
        """Read nothing more; close once what is queued has been sent."""
        if self.closing is None:
            self.closing, self.flush_first = reason, True

    @property
    def finished(self) -> bool:
        """Nothing left to do on this link: close it now."""
        if self.closing is not None:
            return not (self.flush_first and self.wants_write)
        return self.peer_closed and self.in_flight == 0 and not self.wants_write

    @property
    def queued_lines(self) -> int:
        return len(self._lines)

    @property
    def wants_write(self) -> bool:
        return bool(self._chunk or self._lines)

    @property
    def reading_paused(self) -> bool:
        return (
            self.in_flight >= MAX_IN_FLIGHT
            or self.pending_bytes >= READ_PAUSE_BYTES
            or self.peer_closed
            or self.closing is not None
        )

    def outgoing(self) -> bytes:
        """The bytes to write next (up to CHUNK_BYTES of whole lines, or what
        is left of them); report how many went with :meth:`sent`."""
        if not self._chunk and self._lines:
            parts, size = [], 0
            while self._lines and size < CHUNK_BYTES:
                line = self._lines.popleft()
                parts.append(line)
                size += len(line)
            self._chunk = b"".join(parts)
        return self._chunk

    def sent(self, count: int) -> None:
        self._chunk = self._chunk[count:]
        self.pending_bytes -= count

    def take_all(self) -> bytes:
        """Everything queued, at once (for in-memory peers and tests)."""
        parts = []
        while data := self.outgoing():
            parts.append(data)
            self.sent(len(data))
        return b"".join(parts)

    def __repr__(self) -> str:
        return f"<Session {self.name} {self.connection.state.value}>"


@dataclass(frozen=True)
class _Encoded:
    """A reply encoded elsewhere (a ``history``, on the history reader)."""

    data: bytes


@dataclass(frozen=True)
class _Later:
    """A command the unit finishes later: ``finish()`` makes the reply once
    ``future`` is done."""

    request: Request
    future: Future
    finish: Callable[[], Reply]


class Server:
    """Protocol sessions on one :class:`~firmware_host.core.unit.Unit`.

    ``journal_path``: the results journal the unit's recorder writes;
    the server reads it (``result``, a repeated ``showdown``) through its own
    connection on the worker thread, and ``history`` through the history
    reader's (:class:`HistoryReader`). ``settings``: the
    config's ``[server]`` section. ``history_limit``: the default ``limit`` of
    ``history``. ``mock``: the unit runs on mock pins (the hello reply offers
    ``"bench"``). ``runner``: where commands run (default: a
    :class:`CommandWorker`; anything with ``submit(job)`` and ``close()``);
    ``history_runner``: where ``history`` runs (the same kinds; default: a
    CommandWorker of its own, started with the first ``history``).

    Set :attr:`wake` to a function that wakes the I/O thread; it is called
    from the loop and worker threads after something was put on the outbox.
    """

    def __init__(
        self,
        unit,
        journal_path,
        *,
        settings,
        history_limit: int = 50,
        mock: bool = False,
        runner=None,
        history_runner=None,
    ):
        self.unit = unit
        self.settings = settings
        self.history_limit = history_limit
        self.mock = mock
        self.events = EventSequencer()
        self.sessions: list[Session] = []
        self.wake: Callable[[], None] = lambda: None
        self._journal_path = Path(journal_path) if journal_path != ":memory:" else journal_path
        self._journal: Journal | None = None  # the worker thread's own
        self._outbox: queue.SimpleQueue = queue.SimpleQueue()
        self._runner = runner if runner is not None else CommandWorker()
        self.history = HistoryReader(
            self._journal_path,
            default_limit=history_limit,
            guarded=self._guarded,
            runner=history_runner,
        )
        self._unsubscribe = unit.subscribe(self._on_unit_event)
        self._watched = False  # a session watched the outputs since the start

    # -- sessions (I/O thread) ------------------------------------------------------

    @property
    def client_count(self) -> int:
        return sum(session.counted for session in self.sessions)

    def open_session(
        self,
        name: str,
        *,
        token: str | None = None,
        counted: bool = True,
        hello_deadline: float | None = None,
    ) -> Session | None:
        """A new session, or None when ``counted`` and max_clients are
        already connected (send :meth:`refusal` and close the link).
        ``hello_deadline``: clock time by which auth and hello must be done."""
        if counted and self.client_count >= self.settings.max_clients:
            log.warning(
                "refused %s: already %d clients (server.max_clients)", name, self.client_count
            )
            return None
        # Only TCP needs shutting out web pages; see ServerConnection's refuse_http.
        connection = ServerConnection(
            token=token, max_line_bytes=self.settings.max_line_bytes, refuse_http=counted
        )
        session = Session(
            name,
            connection,
            send_buffer_bytes=self.settings.send_buffer_bytes,
            counted=counted,
            hello_deadline=hello_deadline,
        )
        self.sessions.append(session)
        log.debug("client %s connected", name)
        return session

    def refusal(self) -> bytes:
        """The one line an extra client gets before it is closed."""
        return encode(
            ErrorReply(
                None,
                "busy",
                f"too many clients: this unit serves at most {self.settings.max_clients}",
            )
        )

    def close_session(self, session: Session, reason: str = "closed") -> None:
        if session.closed:
            return
        session.closed = True
        said_hello = session.connection.ready or session.connection.version is not None
        session.connection.close()
        self.sessions = [s for s in self.sessions if s is not session]
        if session.asked_to_watch:
            # After its watch on the worker, whose jobs run in order; the unit's
            # loop is not waited for here, on the I/O thread.
            self._runner.submit(lambda: self._guard_unwatch(session))
        # A storm of connections that never said hello must not flood the log.
        log.log(
            logging.INFO if said_hello else logging.DEBUG,
            "client %s gone: %s",
            session.name,
            reason,
        )

    def receive(self, session: Session, data: bytes) -> None:
        """Bytes read from ``session``'s link: answer what can be answered now,
        give the rest to the worker."""
        if session.closing is not None or session.closed:
            return  # it is being closed: nothing more is read
        try:
            items = session.connection.receive_data(data)
        except Exception:
            log.exception("client %s: cannot read its data", session.name)
            session.drop("internal error reading its data")
            return
        for item in items:
            self._answer(session, item)

    def receive_eof(self, session: Session) -> None:
        """``session``'s link closed both ways."""
        self.peer_closed(session)
        self.close_session(session, "disconnected")

    def peer_closed(self, session: Session) -> None:
        """The client closed its sending side: nothing more comes, but the
        replies to what it sent are still delivered (see Session.finished)."""
        if session.peer_closed or session.closed:
            return
        session.peer_closed = True
        for error in session.connection.receive_eof():
            log.debug("client %s: %s", session.name, error)

    def expire_hello(self, session: Session, waited_s: float) -> None:
        """``session`` did not finish auth and hello in time: tell it, close it."""
        session.hello_deadline = None
        log.warning(
            "client %s: no auth and hello within %g s: closing the link", session.name, waited_s
        )
        session.queue(
            encode(
                ErrorReply(
                    None,
                    "hello_timeout",
                    (
                        f"auth and hello did not come within {waited_s:g} s of connecting: "
                        "closing the link"
                    ),
                )
            )
        )
        session.close_after_flush(f"no auth and hello within {waited_s:g} s")

    def _answer(self, session: Session, item) -> None:
        connection = session.connection
        if isinstance(item, ProtocolError):
            self._log_refusal(session, item)
            if session.closing is None:
                session.queue(connection.send(item.to_reply()))
            if item.close:
                session.close_after_flush(item.message)
            return
        if connection.ready:
            session.hello_deadline = None
        if item.cmd == "history":
            self._ask_history(session, item)
            return
        if item.cmd not in _AT_ONCE:
            if item.cmd == "watch":
                session.asked_to_watch = True
            session.in_flight += 1
            self._runner.submit(lambda: self._run_command(session, item))
            return
        reply: Reply | ErrorReply
        try:
            if item.cmd == "hello":
                reply = connection.hello_reply(
                    item,
                    unit=self.identity(),
                    capabilities=self.capabilities(),
                    seq=self.events.last,
                )
            else:
                reply = item.reply()
        except Exception as exc:
            reply = self._fault_reply(item, exc)
        session.queue(connection.send(reply))

    def _ask_history(self, session: Session, request: Request) -> None:
        """Give ``history`` to the history reader; its refusal (busy) is sent at once."""

        def answer(line: bytes) -> None:  # on the history reader's thread
            self._outbox.put((session, _Encoded(line)))
            self.wake()

        session.in_flight += 1
        refusal = self.history.ask(request, answer)
        if refusal is not None:
            session.in_flight -= 1
            session.queue(session.connection.send(refusal))

    @staticmethod
    def _log_refusal(session: Session, error: ProtocolError) -> None:
        if error.code == "http_refused":
            log.warning("client %s sent an HTTP request: closing the link", session.name)
        elif error.code == "unauthorized" and error.message.startswith("wrong token"):
            log.warning(
                "client %s: wrong token (%d of %d tries)",
                session.name,
                session.connection.auth_failures,
                MAX_AUTH_FAILURES,
            )
        else:
            log.debug("client %s: %s", session.name, error)

    def identity(self) -> dict:
        config = self.unit.config  # reconfigure() swaps it whole
        return {
            "name": config.unit_name,
            "software": software_version(),
            "max_cards": config.showdown.max_cards,
            "backend": config.backend,
        }

    def capabilities(self) -> list[str]:
        """What this unit can do beyond the basics: ``bots`` (it presses a
        bot's paddle itself: the ``bots`` field of ``showdown``), ``outputs``
        (the ``watch`` command, the ``outputs`` event and the status's
        ``outputs`` field), ``bench`` (mock pins), ``card_sensor`` (it counts
        the cards out)."""
        caps = ["bots", "outputs"]
        if self.mock:
            caps.append("bench")
        if self.unit.config.pins.card_sensor is not None:
            caps.append("card_sensor")
        return caps

    # -- the outbox (I/O thread) -----------------------------------------------------

    def pump(self, timeout: float = 0.0) -> int:
        """Queue every reply and event on the outbox to its sessions; wait up
        to ``timeout`` for the first one. Returns how many were handled."""
        handled = 0
        try:
            item = self._outbox.get(timeout=timeout) if timeout > 0 else self._outbox.get_nowait()
            while True:
                self._deliver(*item)
                handled += 1
                item = self._outbox.get_nowait()
        except queue.Empty:
            return handled

    def _deliver(self, session: Session | None, message) -> None:
        if session is not None:
            session.in_flight -= 1
            if not session.closed:
                encoded = isinstance(message, _Encoded)
                session.queue(message.data if encoded else session.connection.send(message))
            return
        watched = message.name == EventName.OUTPUTS
        try:
            if watched:
                # Not numbered: its seq is the last numbered event's (docs/protocol.md).
                event = Event(message.name, self.events.last, message.data)
            else:
                event = self.events.event(message.name, **message.data)
            data = encode(event)
        except (TypeError, ValueError):
            log.exception("cannot send the unit event %r", message)
            return
        for client in self.sessions:
            if client.connection.ready and (client.watching_outputs or not watched):
                client.queue(data)

    def _on_unit_event(self, event) -> None:
        # On the unit's loop thread: only enqueue and wake.
        self._outbox.put((None, event))
        self.wake()

    # -- commands (worker thread) --------------------------------------------------

    def _run_command(self, session: Session, request: Request) -> None:
        if request.cmd == "watch":
            self._watch(session, request)
            return
        reply = self.execute(request)
        if isinstance(reply, _Later):
            # The unit works on it (a selftest): answer when it is done, and
            # run the next command now.
            reply.future.add_done_callback(lambda future: self._reply_later(session, reply))
            return
        self._outbox.put((session, reply))
        self.wake()

    def _reply_later(self, session: Session, later: _Later) -> None:
        self._outbox.put((session, self._guarded(later.request, later.finish)))
        self.wake()

    def execute(self, request: Request) -> Reply | ErrorReply | _Later:
        """Carry out one command; every error becomes an error reply. A
        command the unit finishes later (a selftest) gives a :class:`_Later`."""
        handler = getattr(self, f"_cmd_{request.cmd}", None)
        if handler is None:
            return self._fault_reply(
                request, NotImplementedError(f"the server has no handler for {request.cmd!r}")
            )
        return self._guarded(request, lambda: handler(request))

    def _guarded(self, request: Request, work):
        try:
            return work()
        except UnitError as exc:
            return request.fail(exc.code, str(exc))
        except Exception as exc:
            return self._fault_reply(request, exc)

    @staticmethod
    def _fault_reply(request: Request, exc: Exception) -> ErrorReply:
        log.error("%s (request id %r) failed", request.cmd, request.id, exc_info=exc)
        return request.fail("fault", f"{request.cmd} failed: {type(exc).__name__}: {exc}")

    def journal(self) -> Journal:
        """The worker thread's connection to the journal, opened on first use."""
        if self._journal is None:
            self._journal = Journal(self._journal_path)
        return self._journal

    def _cmd_status(self, request):
        return request.reply(**self.unit.status())

    # -- watching the outputs ----------------------------------------------------------

    def _watch(self, session: Session, request: Request) -> None:
        """``watch``: start or stop the session's ``outputs`` events. The
        reply, with the outputs now, is queued on the unit's loop thread at
        the moment they are read, so every ``outputs`` event the session gets
        after the reply is newer than the reply's outputs."""
        want = bool(request.args["outputs"])

        def on_loop() -> None:
            session.watching_outputs = want and not session.closed
            if session.watching_outputs:
                watched = self.unit.watch_outputs(self._on_unit_outputs)
                outputs = None if watched is None else watched.to_wire()
                self._watched = True
            else:
                self._unwatch_if_unwatched()
                outputs = self.unit.status()["outputs"]
            self._outbox.put((session, request.reply(outputs=outputs)))
            self.wake()

        try:
            self.unit.call(on_loop)
        except Exception as exc:
            reply = (
                request.fail(exc.code, str(exc))
                if isinstance(exc, UnitError)
                else self._fault_reply(request, exc)
            )
            self._outbox.put((session, reply))
            self.wake()

    def _guard_unwatch(self, session: Session) -> None:
        """On the worker: ``session`` is gone; stop reading the outputs if nobody watches."""
        session.watching_outputs = False
        try:
            self.unit.call(self._unwatch_if_unwatched)
        except Exception as exc:  # a closed unit reads nothing anyway
            log.debug("cannot stop watching the outputs: %s", exc)

    def _unwatch_if_unwatched(self) -> None:
        """On the unit's loop thread: the last watcher gone, the unit stops reading."""
        if not any(client.watching_outputs for client in self.sessions):
            self.unit.unwatch_outputs(self._on_unit_outputs)

    def _on_unit_outputs(self, event) -> None:
        # On the unit's loop thread: only enqueue and wake.
        self._outbox.put((None, event))
        self.wake()

    def _cmd_showdown(self, request):
        showdown_id = request.args["showdown_id"]
        # Live state first, then the journal: a result is journaled before the
        # unit leaves the showdown, so one of the two always knows a known id.
        status = self.unit.status()
        current = status["showdown"]
        if current is not None and current["showdown_id"] == showdown_id:
            return request.reply(**status)
        known = self.journal().get(showdown_id)
        if known is not None:
            log.info("showdown %s is already in the journal: answered from there", showdown_id)
            return request.reply(state="done", result=known)
        return request.reply(
            **self.unit.arm(
                showdown_id,
                request.args["cards"],
                dict(request.args["players"]),
                request.args["bots"],
            )
        )

    def _cmd_start(self, request):
        return request.reply(**self.unit.start())

    def _cmd_cancel(self, request):
        return request.reply(**self.unit.cancel())

    def _cmd_result(self, request):
        showdown_id = request.args["showdown_id"]
        known = self.journal().get(showdown_id)
        if known is None:
            raise UnknownShowdownError(f"no result for showdown {showdown_id!r}")
        return request.reply(result=known)

    def _cmd_selftest(self, request):
        running = self.unit.start_selftest()  # BusyError at once if one runs

        def finish():
            checks = running.result()
            return request.reply(
                passed=all(check.ok for check in checks),
                devices=[check.to_dict() for check in checks],
            )

        return _Later(request, running, finish)

    @staticmethod
    def _bench_times(args) -> dict:
        """The bench's times in seconds, bounded in the protocol's own words."""
        limits = {
            "offset_ms": (-BENCH_HORIZON_S * 1000, BENCH_HORIZON_S * 1000),
            "delay_ms": (0, MAX_DELAY_S * 1000),
        }
        for field, (lo, hi) in limits.items():
            value = args[field]
            if value is not None and not lo <= value <= hi:
                raise InvalidArgumentError(f"{field} must be {lo:g} to {hi:g} ms, not {value:g}")
        return {
            "offset_s": None if args["offset_ms"] is None else args["offset_ms"] / 1000,
            "tick": args["at_tick"],
            "delay_s": (args["delay_ms"] or 0) / 1000,
        }

    def _cmd_bench_press(self, request):
        self.unit.bench.press(
            request.args["side"], hold=bool(request.args["hold"]), **self._bench_times(request.args)
        )
        return request.reply()

    def _cmd_bench_release(self, request):
        self.unit.bench.release(request.args["side"], **self._bench_times(request.args))
        return request.reply()

    def _cmd_bench_timer(self, request):
        self.unit.bench.press_timer()
        return request.reply()

    # -- closing ------------------------------------------------------------------------

    def close(self) -> None:
        """Stop taking unit events, finish the worker's jobs, close the
        journal connection; safe to call twice."""
        self._unsubscribe()
        self._runner.submit(self._stop_watching)
        self._runner.submit(self._close_journal)
        self._runner.close()
        self.history.close()

    def _stop_watching(self) -> None:
        """On the worker, closing: the unit stops sending the outputs here."""
        if not self._watched:
            return
        for session in self.sessions:
            session.watching_outputs = False
        try:
            self.unit.unwatch_outputs(self._on_unit_outputs)
        except Exception as exc:  # a closed unit sends nothing anyway
            log.debug("cannot stop watching the outputs: %s", exc)

    def _close_journal(self) -> None:
        journal, self._journal = self._journal, None
        if journal is not None:
            journal.close()

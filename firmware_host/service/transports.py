"""The protocol server's links: a TCP listener and a serial port, on one I/O thread.

:class:`Reactor` only moves bytes between the OS and the
:class:`~firmware_host.service.server.Server`'s sessions. One thread waits in
:mod:`selectors` on the listening socket, every client socket, the serial
port's file descriptor and a socketpair that the unit's loop thread and the
command worker write a byte to when they put something on the server's
outbox. Nothing in it blocks: sockets and the serial fd are non-blocking, and
the only timers are the deadline to reopen a lost serial device, each new
client's deadline for auth and hello (``server.hello_timeout_s``) and each
stalled client's deadline to take its waiting bytes (``server.send_stall_s``).
TCP clients get keepalive probes, so a peer that vanished without a word
frees its slot too.

A serial link is one client. If the device goes away (a USB adapter
unplugged) the error is logged, the unit carries on, and the port is reopened
every :data:`SERIAL_RETRY_S` seconds until it is back; the peer then starts
again with ``hello``.
"""

from __future__ import annotations

import contextlib
import ipaddress
import logging
import os
import select
import selectors
import socket
import threading
import time

import serial

from firmware_host.service.server import Server, Session

__all__ = ["Reactor", "parse_address", "is_loopback", "SERIAL_RETRY_S"]

log = logging.getLogger(__name__)

#: How long to wait before trying to reopen a serial device that went away.
SERIAL_RETRY_S = 2.0
#: Connections the kernel may queue before the I/O thread accepts them.
LISTEN_BACKLOG = max(128, socket.SOMAXCONN)
#: TCP keepalive: first probe after this many idle seconds, then every
#: KEEPALIVE_INTERVAL_S, and the link is dead after KEEPALIVE_PROBES unanswered.
KEEPALIVE_IDLE_S, KEEPALIVE_INTERVAL_S, KEEPALIVE_PROBES = 30, 10, 3
_READ_BYTES = 65536


def parse_address(text: str) -> tuple[str, int]:
    """``"HOST:PORT"`` (``"[::1]:7700"`` for IPv6) as (host, port); ValueError
    with a message for people otherwise. Port 0 picks a free port.

    >>> parse_address("127.0.0.1:7700"), parse_address("[::1]:0")
    (('127.0.0.1', 7700), ('::1', 0))
    """
    host, sep, port = text.rpartition(":")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise ValueError(f"must be HOST:PORT with a port 0-65535, not {text!r}")
    return host, int(port)


def is_loopback(host: str) -> bool:
    """True if every address ``host`` names is a loopback address.

    >>> is_loopback("127.0.0.1"), is_loopback("::1"), is_loopback("0.0.0.0")
    (True, True, False)
    """
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        pass
    try:
        infos = socket.getaddrinfo(host, None, proto=socket.IPPROTO_TCP)
    except OSError:
        return False
    return bool(infos) and all(ipaddress.ip_address(info[4][0]).is_loopback for info in infos)


class _SerialLink:
    """A serial device opened with pyserial, and when to try it again."""

    def __init__(self, device: str, baud: int):
        self.device, self.baud = device, baud
        self.port: serial.Serial | None = None
        self.session: Session | None = None
        self.retry_at: float | None = None

    def open(self) -> None:
        # timeout=0: read() returns what is there; the selector says when.
        try:
            self.port = serial.Serial(
                self.device, self.baud, timeout=0, write_timeout=0, exclusive=True
            )
        except (OSError, serial.SerialException) as exc:
            # pyserial names the device only in some of its messages.
            text = str(exc)
            raise serial.SerialException(
                text if self.device in text else f"serial {self.device}: {text}"
            ) from None

    def close(self) -> None:
        port, self.port = self.port, None
        if port is not None:
            try:
                port.close()
            except (OSError, serial.SerialException) as exc:
                log.debug("closing %s: %s", self.device, exc)


class Reactor:
    """The I/O thread: TCP clients and a serial port for ``server``.

    ``listen``: (host, port) or None; ``token``: what TCP clients must send
    with ``auth`` (None: no auth); ``serial_device``/``baud``: the serial
    link, or None. :meth:`open` binds and opens (raising OSError or
    ``serial.SerialException``), :meth:`start` runs the thread.
    """

    def __init__(
        self,
        server: Server,
        *,
        listen: tuple[str, int] | None = None,
        token: str | None = None,
        serial_device: str | None = None,
        baud: int = 115200,
        clock=time.monotonic,
    ):
        self.server = server
        self._listen = listen
        self._token = token
        self._clock = clock
        self._serial = _SerialLink(serial_device, baud) if serial_device else None
        self._selector = selectors.DefaultSelector()
        self._listener: socket.socket | None = None
        self._wake_r: socket.socket | None = None
        self._wake_w: socket.socket | None = None
        self._sockets: dict[Session, socket.socket] = {}
        self._masks: dict[int, int] = {}
        self._thread: threading.Thread | None = None
        self._running = False
        self._stop_accepting = False
        self.address: tuple[str, int] | None = None

    # -- lifetime --------------------------------------------------------------------

    def open(self) -> Reactor:
        """Bind the listener and open the serial port; raises if either fails."""
        try:
            self._wake_r, self._wake_w = wake_r, wake_w = socket.socketpair()
            for end in (wake_r, wake_w):
                end.setblocking(False)
            self._selector.register(wake_r, selectors.EVENT_READ, ("wake", None))
            self.server.wake = self._wake
            if self._listen is not None:
                self._open_listener(self._listen)
            if self._serial is not None:
                self._serial.open()
                self._serial_opened()
        except BaseException:
            self.close()
            raise
        return self

    def _open_listener(self, address: tuple[str, int]) -> None:
        host, port = address
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        listener = socket.socket(family, socket.SOCK_STREAM)
        try:
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            listener.bind((host, port))
            listener.listen(LISTEN_BACKLOG)
            listener.setblocking(False)
        except OSError as exc:
            listener.close()
            raise OSError(exc.errno, f"cannot listen on {host}:{port}: {exc.strerror}") from None
        self._listener = listener
        self.address = listener.getsockname()[:2]
        self._selector.register(listener, selectors.EVENT_READ, ("listener", None))
        log.info("listening on %s:%d", *self.address)

    def describe(self) -> str:
        """The links in a few words, for logs and systemd's STATUS."""
        parts = []
        if self.address is not None:
            parts.append(f"tcp {self.address[0]}:{self.address[1]}")
        if self._serial is not None:
            parts.append(f"serial {self._serial.device}")
        return ", ".join(parts) or "no links"

    def start(self) -> None:
        self._running = True
        self._thread = threading.Thread(target=self._run, name="server-io", daemon=True)
        self._thread.start()

    def stop_accepting(self) -> None:
        """Close the listener (on the I/O thread); clients stay connected."""
        self._stop_accepting = True
        self._wake()

    def close(self, timeout: float = 5.0) -> None:
        """Stop the thread and close every link; safe to call twice."""
        self._running = False
        if self._thread is not None:
            self._wake()
            self._thread.join(timeout)
            if self._thread.is_alive():
                log.error("the server's I/O thread did not stop within %s s", timeout)
                return
            self._thread = None
        for session in list(self._sockets):
            self._drop(session, "the unit is shutting down")
        if self._serial is not None:
            if self._serial.session is not None:
                self.server.close_session(self._serial.session, "the unit is shutting down")
            self._unwatch(self._serial.port)
            self._serial.close()
        self._close_listener()
        for end in (self._wake_r, self._wake_w):
            if end is not None:
                self._unwatch(end)
                end.close()
        self._wake_r = self._wake_w = None
        self._selector.close()

    def _wake(self) -> None:
        # From any thread: one byte makes the selector return.
        wake_w = self._wake_w
        if wake_w is None:
            return  # not open, or closed
        with contextlib.suppress(BlockingIOError, OSError):  # already awake, or closing
            wake_w.send(b"\0")

    # -- the loop ----------------------------------------------------------------------

    def _run(self) -> None:
        while self._running:
            try:
                self._turn()
            except Exception:  # a bug here must not end the server
                log.exception("server I/O loop error")

    def _turn(self) -> None:
        for key, mask in self._selector.select(self._timeout()):
            kind, session = key.data
            if session is not None and session.closed:
                continue
            if kind == "wake":
                self._drain_wake()
            elif kind == "listener":
                self._accept()
            elif kind == "client":
                if mask & selectors.EVENT_READ:
                    self._read_client(session)
                if mask & selectors.EVENT_WRITE and not session.closed:
                    self._flush(session)
            elif kind == "serial":
                if mask & selectors.EVENT_READ:
                    self._read_serial()
                link = self._serial  # a failed read resets it: no session, or a new one
                if mask & selectors.EVENT_WRITE and link is not None and link.session is session:
                    self._flush(link.session)
        if self._stop_accepting:
            self._close_listener()
        self.server.pump()
        self._retry_serial()
        self._expire()
        self._sync()

    def _timeout(self) -> float | None:
        deadlines = [when for when in self._deadlines() if when is not None]
        if not deadlines:
            return None
        return max(0.0, min(deadlines) - self._clock())

    def _deadlines(self):
        if self._serial is not None:
            yield self._serial.retry_at
        stall_s = self.server.settings.send_stall_s
        for session in self._sockets:
            yield session.hello_deadline
            if session.stalled_since is not None:
                yield session.stalled_since + stall_s

    def _expire(self) -> None:
        """Close the clients whose deadline passed: no hello in time, or
        waiting bytes that none were taken of for send_stall_s."""
        now = self._clock()
        settings = self.server.settings
        for session in list(self._sockets):
            if session.hello_deadline is not None and now >= session.hello_deadline:
                self.server.expire_hello(session, settings.hello_timeout_s)
            if (
                session.stalled_since is not None
                and now - session.stalled_since >= settings.send_stall_s
            ):
                session.drop(
                    f"{session.pending_bytes} bytes waiting to be sent and none taken "
                    f"for {now - session.stalled_since:.0f} s: the client stopped reading"
                )

    def _drain_wake(self) -> None:
        assert self._wake_r is not None  # open() made it before the thread started
        try:
            while self._wake_r.recv(4096):
                pass
        except BlockingIOError:
            pass

    def _sync(self) -> None:
        """Write what can be written now, close the sessions that are done,
        and watch each link for what it needs next."""
        for session, sock in list(self._sockets.items()):
            if session.wants_write:
                self._flush(session)
            if session.closed:
                continue
            if session.finished:
                self._drop(session, session.closing or "disconnected")
            else:
                self._watch(sock, ("client", session), self._mask(session))
        link = self._serial
        if link is not None and link.session is not None:
            session = link.session
            if session.wants_write:
                self._flush(session)
            if link.session is not session:
                return  # the write failed: the link was reset
            if session.finished:
                self._serial_lost(f"reset: {session.closing}")
            elif link.port is not None:
                self._watch(link.port, ("serial", session), self._mask(session))

    @staticmethod
    def _mask(session: Session) -> int:
        mask = 0 if session.reading_paused else selectors.EVENT_READ
        return mask | (selectors.EVENT_WRITE if session.wants_write else 0)

    def _watch(self, fileobj, data, mask: int) -> None:
        fd = fileobj.fileno()
        current = self._masks.get(fd, 0)
        if mask == current:
            return
        if not mask:
            self._selector.unregister(fileobj)
            del self._masks[fd]
        elif current:
            self._selector.modify(fileobj, mask, data)
            self._masks[fd] = mask
        else:
            self._selector.register(fileobj, mask, data)
            self._masks[fd] = mask

    def _unwatch(self, fileobj) -> None:
        if fileobj is None:
            return
        try:
            fd = fileobj.fileno()
        except (OSError, ValueError):
            return
        if fd in self._masks or fileobj in (self._wake_r, self._listener):
            with contextlib.suppress(KeyError, ValueError):
                self._selector.unregister(fileobj)
            self._masks.pop(fd, None)

    # -- TCP ------------------------------------------------------------------------------

    def _accept(self) -> None:
        while self._listener is not None:
            try:
                sock, address = self._listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:  # out of file descriptors, ...
                log.error("accept failed: %s", exc)
                return
            sock.setblocking(False)
            _tune(sock)
            if self.server.client_count >= self.server.settings.max_clients:
                self._free_slots()
            name = f"tcp {address[0]}:{address[1]}"
            deadline = self._clock() + self.server.settings.hello_timeout_s
            session = self.server.open_session(name, token=self._token, hello_deadline=deadline)
            if session is None:
                self._refuse(sock)
                continue
            self._sockets[session] = sock

    def _free_slots(self) -> None:
        """Close the clients that are gone but not yet read as gone: a peer
        that closed while its link was not being read (reading paused), or
        one whose close is still in this turn's events."""
        poll = select.poll()
        by_fd = {}
        for session, sock in self._sockets.items():
            by_fd[sock.fileno()] = session
            poll.register(sock, select.POLLIN | _POLLRDHUP)
        for fd, events in poll.poll(0):
            session = by_fd[fd]
            if events & (select.POLLHUP | select.POLLERR):
                self.server.receive_eof(session)
                self._drop(session, "disconnected")
            elif events & _POLLRDHUP:
                self.server.peer_closed(session)
                if session.finished:
                    self._drop(session, "disconnected")

    def _refuse(self, sock: socket.socket) -> None:
        # Non-blocking all through: a client that sends nothing must not
        # stall the I/O thread.
        try:
            sock.send(self.server.refusal())
            sock.shutdown(socket.SHUT_WR)
            sock.recv(_READ_BYTES)  # what the client sent already: no reset on close
        except OSError:
            pass
        sock.close()

    def _read_client(self, session: Session) -> None:
        sock = self._sockets[session]
        try:
            data = sock.recv(_READ_BYTES)
        except (BlockingIOError, InterruptedError):
            return
        except OSError as exc:
            self._drop(session, f"read failed: {exc}")
            return
        if not data:
            # A half-close: the client may still be reading the replies to
            # what it sent; the session closes once they are out.
            self.server.peer_closed(session)
            return
        self.server.receive(session, data)

    def _flush(self, session: Session) -> None:
        """Write as much of ``session``'s queue as the OS takes now, and
        note when its waiting bytes last moved (for send_stall_s)."""
        link = self._serial
        # The serial session's bytes go to the port; a TCP session's to its socket.
        port = link.port if link is not None and link.session is session else None
        moved = False
        while data := session.outgoing():
            try:
                if port is not None:
                    # os.write, not Serial.write: with write_timeout=0 pyserial
                    # retries EAGAIN in a loop; the fd is non-blocking already.
                    count = os.write(port.fileno(), data)
                else:
                    count = self._sockets[session].send(data)
            except (BlockingIOError, InterruptedError):
                break
            except OSError as exc:
                if port is not None:
                    self._serial_lost(f"write failed: {exc}")
                else:
                    self._drop(session, f"write failed: {exc}")
                return
            session.sent(count)
            moved = True
        if not session.wants_write:
            session.stalled_since = None
        elif moved or session.stalled_since is None:
            session.stalled_since = self._clock()

    def _drop(self, session: Session, reason: str) -> None:
        sock = self._sockets.pop(session, None)
        if session.closing is not None and not session.closed and not session.flush_first:
            log.warning("dropping client %s: %s", session.name, reason)
        self.server.close_session(session, reason)
        if sock is not None:
            self._unwatch(sock)
            sock.close()

    def _close_listener(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            self._unwatch(listener)
            listener.close()
            log.info("no longer accepting clients")

    # -- serial ----------------------------------------------------------------------------

    def _serial_opened(self) -> None:
        link = self._serial
        assert link is not None and link.port is not None  # just opened
        link.retry_at = None
        session = self.server.open_session(f"serial {link.device}", counted=False)
        assert session is not None  # only counted sessions are refused
        link.session = session
        self._watch(link.port, ("serial", session), selectors.EVENT_READ)
        log.info("serial %s open at %d baud", link.device, link.baud)

    def _read_serial(self) -> None:
        link = self._serial
        # Watched only while open, for its session.
        assert link is not None and link.port is not None and link.session is not None
        try:
            data = link.port.read(max(1, link.port.in_waiting))
        except (OSError, serial.SerialException) as exc:
            self._serial_lost(f"read failed: {exc}")
            return
        if data:
            self.server.receive(link.session, data)

    def _serial_lost(self, reason: str) -> None:
        link = self._serial
        assert link is not None  # only a serial link is lost
        log.error(
            "serial %s lost (%s); the unit carries on, retrying every %s s",
            link.device,
            reason,
            SERIAL_RETRY_S,
        )
        if link.session is not None:
            self.server.receive_eof(link.session)
            link.session = None
        self._unwatch(link.port)
        link.close()
        link.retry_at = self._clock() + SERIAL_RETRY_S

    def _retry_serial(self) -> None:
        link = self._serial
        if link is None or link.retry_at is None or self._clock() < link.retry_at:
            return
        try:
            link.open()
        except (OSError, serial.SerialException) as exc:
            link.port = None
            link.retry_at = self._clock() + SERIAL_RETRY_S
            log.debug("serial %s still unavailable: %s", link.device, exc)
            return
        self._serial_opened()


# Linux reports a peer's half-close as POLLRDHUP; elsewhere only a read sees it.
_POLLRDHUP = getattr(select, "POLLRDHUP", 0)


def _tune(sock: socket.socket) -> None:
    """No Nagle delay; keepalive probes, so a peer that vanished is found."""
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_KEEPALIVE, 1)
    for option, value in (
        ("TCP_KEEPIDLE", KEEPALIVE_IDLE_S),
        ("TCP_KEEPINTVL", KEEPALIVE_INTERVAL_S),
        ("TCP_KEEPCNT", KEEPALIVE_PROBES),
    ):
        if hasattr(socket, option):
            sock.setsockopt(socket.IPPROTO_TCP, getattr(socket, option), value)

"""The two ends of a link: who may send what and when (auth, hello, version),
as sans-IO state machines that take bytes in and give messages out."""

from __future__ import annotations

import abc
import enum
import hmac
import re
from collections.abc import Mapping
from typing import Any, Generic, TypeVar

from firmware_host.protocol._errors import ProtocolError, _show
from firmware_host.protocol._framing import (
    _TOO_LONG,
    CLIENT_MAX_LINE_BYTES,
    DEFAULT_MAX_LINE_BYTES,
    _decode_object,
    _LineBuffer,
)
from firmware_host.protocol._messages import ErrorReply, Event, EventGap, Reply, Request, encode
from firmware_host.protocol._schemas import _SCHEMAS, _envelope, check_arguments
from firmware_host.protocol._values import EventName

__all__ = [
    "PROTOCOL_VERSION",
    "MIN_PROTOCOL_VERSION",
    "MAX_AUTH_FAILURES",
    "ConnectionState",
    "ServerConnection",
    "ClientConnection",
    "negotiate_version",
]

#: The highest protocol version this module speaks, and the lowest.
PROTOCOL_VERSION = 1
MIN_PROTOCOL_VERSION = 1
#: Wrong tokens one connection may send; the last one closes it.
MAX_AUTH_FAILURES = 3

_CONNECTION_COMMANDS = ("auth", "hello")


def negotiate_version(client_version: int) -> int:
    """The version a connection speaks: the highest both ends know.

    A client sends the highest version it speaks; the unit answers with the
    highest version it speaks that is not above the client's.

    >>> negotiate_version(1), negotiate_version(7)
    (1, 1)
    """
    if client_version < MIN_PROTOCOL_VERSION:
        raise ProtocolError(
            "unsupported_version",
            (
                f"client speaks up to version {client_version}; "
                f"this unit speaks versions {MIN_PROTOCOL_VERSION} to {PROTOCOL_VERSION}"
            ),
        )
    return min(client_version, PROTOCOL_VERSION)


# An HTTP request line ("POST / HTTP/1.1") or header line ("Host: ..."): a
# browser page or any HTTP client aimed at the unit's port.
_HTTP_REQUEST_LINE = re.compile(rb"[A-Z]{3,16} \S+ HTTP/\d")
_HTTP_HEADER = re.compile(rb"[A-Za-z][A-Za-z0-9-]*: ")


def _looks_like_http(line: bytes) -> bool:
    return bool(_HTTP_REQUEST_LINE.match(line) or _HTTP_HEADER.match(line))


class ConnectionState(enum.Enum):
    """Where a server connection is: waiting for auth, for hello, or ready."""

    AUTH = "auth"
    HELLO = "hello"
    READY = "ready"
    CLOSED = "closed"


# What a line yields at each end, beside a ProtocolError: a Request at the
# unit's; a reply, an error reply, an event or a gap in the events at the client's.
_Item = TypeVar("_Item")
ClientItem = Reply | ErrorReply | Event | EventGap


class _Connection(abc.ABC, Generic[_Item]):
    def __init__(self, max_line_bytes: int):
        self._lines = _LineBuffer(max_line_bytes)
        self._closed = False

    def receive_data(self, data: bytes) -> list[_Item | ProtocolError]:
        """Feed received bytes; get one item per complete non-blank line.
        ``b""`` is no data (pyserial's read timeout), not end of file."""
        if self._closed:
            raise RuntimeError("receive_data() after receive_eof()")
        items: list[_Item | ProtocolError] = []
        for line in self._lines.feed(bytes(data)):
            if line is _TOO_LONG:
                items.append(
                    ProtocolError(
                        "line_too_long",
                        (
                            f"line longer than {self._lines.limit} bytes; "
                            "discarded up to the next newline"
                        ),
                    )
                )
            elif line.strip(b" \t\r"):
                items.extend(self._line(line))
                last = items[-1] if items else None
                if isinstance(last, ProtocolError) and last.close:
                    self._closing(last)
                    break
        return items

    # A hook with nothing to do by default, not an abstract method: only the server needs it.
    def _closing(self, error: ProtocolError) -> None:
        """A line that ends the link was read (only the server has such lines)."""

    def receive_eof(self) -> list[ProtocolError]:
        """The link closed: report an unfinished line, if there was one."""
        if self._closed:
            return []
        self._closed = True
        left = self._lines.eof()
        if not left:
            return []
        return [
            ProtocolError(
                "truncated_line", f"link closed in the middle of a line ({left} bytes discarded)"
            )
        ]

    close = receive_eof

    @abc.abstractmethod
    def _line(self, line: bytes) -> list[_Item | ProtocolError]:
        """What one complete line yields at this end of the link."""


class ServerConnection(_Connection[Request]):
    """The unit's end of one client's link.

    ``receive_data`` returns Requests (checked; answer each with exactly one
    ``send(request.reply(...))`` or ``send(request.fail(code, message))``) and
    ProtocolErrors (answer each with ``send(error.to_reply())``). With a
    ``token``, ``auth`` must come first; then ``hello``, then anything.
    ``auth`` and the version rule are handled here: an ``auth`` Request only
    comes out once the token matched, and a ``hello`` one once the version is
    agreed (answer it with ``hello_reply``).

    ``refuse_http``: a line that looks like HTTP ends the link (an error
    with ``close=True``; nothing after it is read). On for TCP, where a web
    page can reach the port; a serial link turns it off, so line noise that
    happens to look like a header never resets it.
    """

    def __init__(
        self,
        *,
        token: str | None = None,
        max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
        refuse_http: bool = True,
    ):
        super().__init__(max_line_bytes)
        self.refuse_http = refuse_http
        self._token = token.encode("utf-8") if token else None
        self.state = ConnectionState.AUTH if self._token else ConnectionState.HELLO
        self.version: int | None = None
        self.auth_failures = 0

    @property
    def ready(self) -> bool:
        """Hello done: the client gets events and may send any command."""
        return self.state is ConnectionState.READY

    def receive_eof(self) -> list[ProtocolError]:
        self.state = ConnectionState.CLOSED
        return super().receive_eof()

    close = receive_eof

    def send(self, message: Reply | ErrorReply | Event) -> bytes:
        """The bytes that carry a reply or an event to this client."""
        if not isinstance(message, (Reply, ErrorReply, Event)):
            raise TypeError(f"a server sends replies and events, not {type(message).__name__}")
        return encode(message)

    def hello_reply(
        self,
        request: Request,
        *,
        unit: Mapping[str, Any],
        capabilities: list[str],
        seq: int,  # Any: JSON
    ) -> Reply:
        """The answer to ``hello``: the agreed version, the unit's identity and
        capabilities, and the last event seq (so the client can spot gaps)."""
        return request.reply(
            version=self.version, unit=dict(unit), capabilities=list(capabilities), seq=seq
        )

    def _line(self, line: bytes) -> list[Request | ProtocolError]:
        try:
            return [self._request(line)]
        except ProtocolError as error:
            return [error]

    def _closing(self, error: ProtocolError) -> None:
        # Nothing after this line is read: not the rest of this chunk, not later data.
        self.state = ConnectionState.CLOSED
        self._closed = True
        self._lines.eof()

    def _request(self, line: bytes) -> Request:
        if self.refuse_http and not line.startswith(b"{") and _looks_like_http(line):
            raise ProtocolError(
                "http_refused",
                "this port speaks JSON lines, not HTTP: closing the link",
                close=True,
            )
        request_id, cmd, given = _envelope(line)
        if self.state is ConnectionState.AUTH and cmd != "auth":
            raise ProtocolError(
                "unauthorized", f"send auth with the unit's token before {_show(cmd)}", request_id
            )
        if (
            cmd in _SCHEMAS
            and self.state is ConnectionState.HELLO
            and cmd not in _CONNECTION_COMMANDS
        ):
            raise ProtocolError("hello_required", f"send hello before {_show(cmd)}", request_id)
        args = check_arguments(cmd, given, request_id)
        if cmd == "auth":
            self._authenticate(args["token"], request_id)
        elif cmd == "hello":
            try:
                self.version = negotiate_version(args["version"])
            except ProtocolError as error:
                raise ProtocolError(error.code, error.message, request_id) from None
            self.state = ConnectionState.READY
        return Request(request_id, cmd, args)

    def _authenticate(self, token: str, request_id: Any) -> None:  # Any: the request's id
        if self._token is None:
            return  # no token configured: auth is accepted and changes nothing
        given = token.encode("utf-8", "surrogatepass")
        if not hmac.compare_digest(given, self._token):
            self.auth_failures += 1
            if self.auth_failures >= MAX_AUTH_FAILURES:
                raise ProtocolError(
                    "unauthorized",
                    f"wrong token ({self.auth_failures} tries): closing the link",
                    request_id,
                    close=True,
                )
            raise ProtocolError("unauthorized", "wrong token", request_id)
        if self.state is ConnectionState.AUTH:
            self.state = ConnectionState.HELLO


class ClientConnection(_Connection[ClientItem]):
    """The engine's end of the link to a unit.

    ``send_request`` checks the arguments as the unit would and numbers the
    request; ``receive_data`` returns Reply and ErrorReply objects (matched to
    their request: ``cmd`` filled in, dropped from ``pending``), Events,
    EventGaps when event numbers skip, and ProtocolErrors for lines it could
    not use.
    """

    def __init__(
        self, *, max_line_bytes: int = CLIENT_MAX_LINE_BYTES, version: int = PROTOCOL_VERSION
    ):
        super().__init__(max_line_bytes)
        self.max_version = version
        self.version: int | None = None  # agreed in the hello reply
        self.last_seq: int | None = None  # the last event number seen
        self.pending: dict[Any, str] = {}  # request id (Any: a JSON id) -> command
        self._next_id = 1

    def send_request(self, cmd: str, **args: Any) -> tuple[int, bytes]:  # Any: JSON values
        """Number and encode a request; ``hello`` gets this client's version if
        none is given. Raises ProtocolError for an unknown command or bad
        arguments, with the message the unit would send."""
        if cmd == "hello":
            args.setdefault("version", self.max_version)
        check_arguments(cmd, args)
        request_id = self._next_id
        self._next_id += 1
        self.pending[request_id] = cmd
        return request_id, encode(Request(request_id, cmd, args))

    def _line(self, line: bytes) -> list[ClientItem | ProtocolError]:
        try:
            obj = _decode_object(line, "a message")
        except ProtocolError as error:
            return [
                error if error.code == "bad_json" else ProtocolError("bad_message", error.message)
            ]
        if "event" in obj:
            return self._event(obj)
        if "id" in obj and isinstance(obj.get("ok"), bool):
            return [self._reply(obj)]
        return [
            ProtocolError(
                "bad_message",
                "a message must be a reply (id and ok) or an "
                f"event (event and seq), not {_show(obj)}",
            )
        ]

    def _event(self, obj: dict[str, Any]) -> list[ClientItem | ProtocolError]:  # Any: JSON
        name, seq = obj.pop("event"), obj.pop("seq", None)
        if not isinstance(name, str) or isinstance(seq, bool) or not isinstance(seq, int):
            return [
                ProtocolError(
                    "bad_message",
                    "an event needs a string 'event' and a "
                    f"whole number 'seq', not {_show(name)}, "
                    f"{_show(seq)}",
                )
            ]
        if name == EventName.OUTPUTS:
            # Not numbered: it repeats the last seq (docs/protocol.md, "Watching the outputs").
            return [Event(name, seq, obj)]
        items: list[ClientItem | ProtocolError] = []
        if self.last_seq is not None and seq != self.last_seq + 1:
            items.append(EventGap(self.last_seq + 1, seq))
        self.last_seq = seq
        items.append(Event(name, seq, obj))
        return items

    def _reply(self, obj: dict[str, Any]) -> Reply | ErrorReply | ProtocolError:  # Any: JSON
        request_id, ok = obj.pop("id"), obj.pop("ok")
        failure: ErrorReply | None = None  # the unit's error, without the command yet
        if not ok:
            error = obj.get("error")
            if (
                not isinstance(error, dict)
                or not isinstance(error.get("code"), str)
                or not error["code"]
                or not isinstance(error.get("message"), str)
            ):
                return ProtocolError(
                    "bad_message",
                    "an error reply needs 'error' with a "
                    f"string code and message, not {_show(error)}",
                    request_id,
                )
            failure = ErrorReply(request_id, error["code"], error["message"])
            if request_id is None:
                return failure  # unit could not read an id
        try:
            cmd = self.pending.pop(request_id)
        except (KeyError, TypeError):
            return ProtocolError(
                "unexpected_reply", f"reply to unknown request id {_show(request_id)}", request_id
            )
        if failure is not None:
            return ErrorReply(request_id, failure.code, failure.message, cmd)
        if cmd == "hello":
            version = obj.get("version")
            if (
                isinstance(version, bool)
                or not isinstance(version, int)
                or not MIN_PROTOCOL_VERSION <= version <= self.max_version
            ):
                return ProtocolError(
                    "unsupported_version",
                    (
                        f"unit answered version {_show(version)}; this client speaks versions "
                        f"{MIN_PROTOCOL_VERSION} to {self.max_version}"
                    ),
                    request_id,
                )
            self.version = version
            seq = obj.get("seq")
            if isinstance(seq, int) and not isinstance(seq, bool):
                self.last_seq = seq
        return Reply(request_id, obj, cmd)

"""The messages on the wire: requests, replies, events, and the one encoder."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

from firmware_host.protocol._values import EventName

__all__ = [
    "EVENTS",
    "Request",
    "Reply",
    "ErrorReply",
    "Event",
    "EventGap",
    "EventSequencer",
    "encode",
]

#: The events the unit pushes to every client that completed hello (each
#: :class:`EventName` names the keys of its data).
EVENTS: tuple[EventName, ...] = tuple(EventName)

_CODE = re.compile(r"[a-z][a-z0-9_]*")


@dataclass(frozen=True)
class Request:
    """A checked request: ``args`` holds every argument of ``cmd``'s schema
    (optional ones absent from the line, or null, are ``None``)."""

    id: int | float | str
    cmd: str
    args: Mapping[str, Any] = field(default_factory=dict)  # Any: checked JSON values

    def reply(self, **data: Any) -> Reply:  # Any: a reply's fields are JSON values
        return Reply(self.id, data, self.cmd)

    def fail(self, code: str, message: str) -> ErrorReply:
        """An error reply. ``code`` should be one of ERROR_CODES; any
        lower_case_word is sent, so a code added to the unit cannot crash it."""
        if not isinstance(code, str) or not _CODE.fullmatch(code):
            raise ValueError(f"error code must be a lower_case_word, not {code!r}")
        return ErrorReply(self.id, code, message, self.cmd)


@dataclass(frozen=True)
class Reply:
    """``ok: true``. ``cmd`` is the request's command (the client fills it in)."""

    ok: ClassVar[bool] = True
    id: int | float | str
    data: Mapping[str, Any] = field(default_factory=dict)  # Any: JSON values
    cmd: str | None = None


@dataclass(frozen=True)
class ErrorReply:
    """``ok: false`` with an error code and message; ``id`` is None when the
    unit could not read the request's id."""

    ok: ClassVar[bool] = False
    id: int | float | str | None
    code: str
    message: str
    cmd: str | None = None


@dataclass(frozen=True)
class Event:
    """Something the unit did, numbered by the unit's event sequence."""

    name: str
    seq: int
    data: Mapping[str, Any] = field(default_factory=dict)  # Any: JSON values


@dataclass(frozen=True)
class EventGap:
    """The client saw event ``received`` when it expected ``expected``: events
    were lost (a dropped link or a restarted unit). Fetch missed results with
    ``result``."""

    expected: int
    received: int


class EventSequencer:
    """Numbers events: one sequence per unit, shared by all its clients, so a
    client that misses one sees a gap.

    >>> events = EventSequencer()
    >>> events.event("go", showdown_id="sd-1").seq, events.event("countdown", step=1).seq
    (1, 2)
    >>> events.last
    2
    """

    def __init__(self, last: int = 0):
        self.last = last

    def event(self, name: str, **data: Any) -> Event:  # Any: JSON values
        if name not in EVENTS:
            raise ValueError(f"unknown event {name!r} (known: {', '.join(EVENTS)})")
        self.last += 1
        return Event(name, self.last, data)


def encode(message: Request | Reply | ErrorReply | Event) -> bytes:
    """One message as one line of bytes.

    >>> encode(ErrorReply(None, "bad_json", "line is not valid JSON"))
    b'{"id":null,"ok":false,"error":{"code":"bad_json","message":"line is not valid JSON"}}\\n'
    """
    head: dict[str, Any]  # Any: JSON values, as for the bodies above
    body: Mapping[str, Any]
    if isinstance(message, Request):
        head, body = {"id": message.id, "cmd": message.cmd}, message.args
    elif isinstance(message, Reply):
        head, body = {"id": message.id, "ok": True}, message.data
    elif isinstance(message, ErrorReply):
        head = {
            "id": message.id,
            "ok": False,
            "error": {"code": message.code, "message": message.message},
        }
        body = {}
    elif isinstance(message, Event):
        head, body = {"event": message.name, "seq": message.seq}, message.data
    else:
        raise TypeError(f"cannot encode {type(message).__name__}")
    clash = head.keys() & body.keys()
    if clash:
        raise ValueError(f"data may not use the key {sorted(clash)[0]!r}")
    obj = {**head, **body}
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    try:
        return (text + "\n").encode("utf-8")
    except UnicodeEncodeError:
        # A lone surrogate (only an escape in the peer's JSON can make one)
        # cannot be UTF-8: escape everything instead.
        return (json.dumps(obj, separators=(",", ":"), allow_nan=False) + "\n").encode("ascii")

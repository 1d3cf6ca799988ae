"""The protocol's errors: the codes either end reports, and ProtocolError."""

from __future__ import annotations

import json
from typing import Any

from firmware_host.protocol._messages import ErrorReply

__all__ = ["ERROR_CODES", "LOCAL_ERROR_CODES", "ProtocolError"]

#: Error codes sent on the wire, with what they mean.
ERROR_CODES = {
    "bad_json": "the line is not valid UTF-8 JSON",
    "bad_request": "the JSON is not a valid request; the message names the field",
    "unknown_command": "no command of that name; the message lists the commands",
    "line_too_long": "the line is longer than the unit's limit; it was discarded",
    "unsupported_version": "no protocol version both ends speak",
    "unauthorized": "auth is required first, or the token is wrong",
    "hello_required": "hello must come before any other command",
    "busy": "the unit is running a showdown (or another one is armed)",
    "not_armed": "start needs an armed showdown",
    "invalid_cards": "the card count is not a whole number from 1 to the unit's max_cards",
    "invalid_argument": "a value out of range: a bot's reaction time, a bench time, ...",
    "paddle_held": "start while a paddle is held down: the unit stays armed",
    "unknown_showdown": "no result for that showdown id",
    "not_mock": "bench commands need a unit on mock pins",
    "closed": "the unit is shutting down",
    "fault": "the unit is in its fault state, or failed doing the command",
    "http_refused": (
        "the line looks like HTTP: this port speaks JSON lines; the unit closes the link"
    ),
    "hello_timeout": "auth and hello did not come in time; the unit closes the link",
}
#: Codes a connection reports to its own side only: nothing is sent for them.
LOCAL_ERROR_CODES = {
    "truncated_line": "the link closed in the middle of a line",
    "bad_message": "a line from the unit is neither a reply nor an event",
    "unexpected_reply": "a reply whose id matches no pending request",
}


class ProtocolError(ValueError):
    """A line that could not be taken as a message: its error ``code``, a
    ``message`` for people, and the request id when it could be read.

    Connections return these rather than raise them; the server answers each
    with ``send(error.to_reply())``. ``ClientConnection.send_request`` raises
    one for bad arguments, with the message the unit would have sent.
    """

    # Any: a request id is whatever JSON value the line held (or None: unreadable).
    def __init__(self, code: str, message: str, request_id: Any = None, *, close: bool = False):
        super().__init__(f"{code}: {message}")
        self.code, self.message, self.request_id = code, message, request_id
        #: The server answers this line, then closes the link; nothing after
        #: it on the link is read.
        self.close = close

    def to_reply(self) -> ErrorReply:
        """The error reply a server sends for this line."""
        return ErrorReply(self.request_id, self.code, self.message)

    def _key(self) -> tuple[str, str, Any]:  # Any: the request id
        return (self.code, self.message, self.request_id)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ProtocolError) and self._key() == other._key()

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        close = ", close=True" if self.close else ""
        return (
            f"ProtocolError({self.code!r}, {self.message!r}, request_id={self.request_id!r}{close})"
        )


def _show(value: Any) -> str:  # Any: whatever value a message names
    try:
        text = json.dumps(value, ensure_ascii=False, default=repr)
    except (RecursionError, ValueError):  # nothing decoded here is this deep
        text = f"<{type(value).__name__}>"
    return text if len(text) <= 40 else text[:39] + "…"

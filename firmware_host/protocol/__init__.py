"""The unit's wire protocol (JSON Lines, sans-IO); standard library only.

Both ends import this package: the daemon (``ServerConnection``) and the engine's
remote unit (``ClientConnection``). Neither end does any I/O here: a transport
feeds received bytes in and gets message objects out, and asks for the bytes to
send. Sockets, serial ports and threads live in the thin shell around it, in the
style of h11 and wsproto. ``docs/protocol.md`` describes the wire format.

This module is the public API; the private modules behind it hold one concern
each: ``_messages`` (the message types and ``encode``), ``_schemas`` (what each
command takes), ``_values`` (the values both ends name, as string enums: sides,
the unit's states, reasons, launch outcomes, and the events with their keys),
``_names`` (player names, showdown ids, tokens), ``_outputs`` (what the
unit shows, sounds and drives: the ``outputs`` object, typed), ``_framing`` (splitting bytes
into lines, reading a line as JSON), ``_connection`` (the two ends' state: auth,
hello, versions) and ``_errors`` (ProtocolError and the codes).

This package is the wire alone. What both ends say to people about it (the
words, the reaction model, the command-line scaffold) is ``firmware_host.people``,
which imports this package; this package imports nothing else of the project.

One line is one UTF-8 JSON object, ended by ``\\n`` or ``\\r\\n``. A request is
``{"id": 1, "cmd": "status"}``; each gets exactly one reply, ``{"id": 1, "ok":
true, ...}`` or ``{"id": 1, "ok": false, "error": {"code": ..., "message": ...}}``;
the unit pushes events as ``{"event": "go", "seq": 7, ...}``.

>>> server, client = ServerConnection(), ClientConnection()
>>> request_id, line = client.send_request("hello")
>>> line
b'{"id":1,"cmd":"hello","version":1}\\n'
>>> [request] = server.receive_data(line)
>>> request
Request(id=1, cmd='hello', args={'version': 1})
>>> reply = server.hello_reply(request, unit={"name": "bench"}, capabilities=[], seq=0)
>>> client.receive_data(server.send(reply))
[Reply(id=1, data={'version': 1, 'unit': {'name': 'bench'}, 'capabilities': [], 'seq': 0},
       cmd='hello')]
>>> server.receive_data(b'{"id": 2, "cmd": "showdown", "cards": 0}\\n')
[ProtocolError('bad_request', "missing field 'showdown_id'", request_id=2)]
"""

from firmware_host.protocol._connection import (
    MAX_AUTH_FAILURES,
    MIN_PROTOCOL_VERSION,
    PROTOCOL_VERSION,
    ClientConnection,
    ConnectionState,
    ServerConnection,
    negotiate_version,
)
from firmware_host.protocol._errors import ERROR_CODES, LOCAL_ERROR_CODES, ProtocolError
from firmware_host.protocol._framing import CLIENT_MAX_LINE_BYTES, DEFAULT_MAX_LINE_BYTES, MAX_DEPTH
from firmware_host.protocol._messages import (
    EVENTS,
    ErrorReply,
    Event,
    EventGap,
    EventSequencer,
    Reply,
    Request,
    encode,
)
from firmware_host.protocol._names import (
    MAX_NAME_CHARS,
    MAX_TOKEN_CHARS,
    auth_line_bytes,
    clean_name,
    clean_players,
    clean_showdown_id,
    token_from_text,
)
from firmware_host.protocol._outputs import Motor, Outputs, SideFlags
from firmware_host.protocol._schemas import (
    BENCH_COMMANDS,
    BOT_REACTION_MS,
    COMMANDS,
    check_arguments,
    clean_bots,
    decode_request,
)
from firmware_host.protocol._values import (
    RESULT_KEYS,
    RUNNING_STATES,
    SIDES,
    EventName,
    Launch,
    Reason,
    Side,
    TextEnum,
    UnitState,
)

__all__ = [
    "PROTOCOL_VERSION",
    "MIN_PROTOCOL_VERSION",
    "DEFAULT_MAX_LINE_BYTES",
    "CLIENT_MAX_LINE_BYTES",
    "ERROR_CODES",
    "LOCAL_ERROR_CODES",
    "COMMANDS",
    "BENCH_COMMANDS",
    "BOT_REACTION_MS",
    "EVENTS",
    "ProtocolError",
    "Request",
    "Reply",
    "ErrorReply",
    "Event",
    "EventGap",
    "EventSequencer",
    "ConnectionState",
    "ServerConnection",
    "ClientConnection",
    "encode",
    "decode_request",
    "check_arguments",
    "negotiate_version",
    "MAX_DEPTH",
    "MAX_NAME_CHARS",
    "MAX_TOKEN_CHARS",
    "MAX_AUTH_FAILURES",
    "clean_name",
    "clean_players",
    "clean_showdown_id",
    "clean_bots",
    "token_from_text",
    "auth_line_bytes",
    "TextEnum",
    "Side",
    "SIDES",
    "UnitState",
    "RUNNING_STATES",
    "Reason",
    "Launch",
    "RESULT_KEYS",
    "EventName",
    "Outputs",
    "Motor",
    "SideFlags",
]

"""The table's WebSockets through ASGI without a server (engine.apps.table.server and
frames): every frame that cannot be read gets a refusal to its sender alone and the
next message works; a flood is refused once, then closed (1008) and logged; the
unit panel's socket shares the same checks; the peer reaches the room."""

from __future__ import annotations

import json
import logging
import random

import pytest

from engine.apps.table.frames import MAX_MESSAGE_BYTES
from engine.apps.table.panel import PANEL_HOST_ONLY, UnitPanel
from engine.apps.table.room import Room
from engine.apps.table.server import create_app
from tests.asgi_helpers import Asgi
from tests.async_helpers import run_coroutine

BINARY = "the table takes JSON text frames, not binary ones"


def refused(message: str) -> dict:
    return {"type": "refused", "id": None, "message": message}


def table(**kwargs):
    room = Room(seats=2, rng=random.Random(1), code="TEST")
    return room, create_app(room, pace_s=0, addons=[UnitPanel()], **kwargs)


def test_frames_that_cannot_be_read_are_refused_and_the_socket_goes_on():
    room, app = table()

    async def run():
        async with Asgi(app, client=("10.0.0.7", 41000)) as site:
            other = await site.websocket()
            ws = await site.websocket()
            await ws.send_json({"type": "hello", "role": "display"})
            assert (await ws.json())["type"] == "welcome"
            await ws.until("view")
            out = []
            await ws.send(data=b'{"type": "ping", "id": 1}')
            out.append(await ws.json())
            big = json.dumps({"type": "ping", "id": "x" * MAX_MESSAGE_BYTES})
            await ws.send(big)
            out.append(await ws.json())
            await ws.send("[" * 2000 + "]" * 2000)
            out.append(await ws.json())
            await ws.send('{"type": "ping", "id": ' + "[" * 900 + "]" * 900 + "}")
            out.append(await ws.json())
            await ws.send("{bad")
            out.append(await ws.json())
            await ws.send_json({"type": "ping", "id": 2})
            out.append(await ws.json())
            await other.send_json({"type": "ping", "id": "other"})
            mine = await other.json()  # the other socket heard none of the refusals
            peers = [conn.peer for conn in room.connections]
            await ws.close()
            await other.close()
            return out, big, mine, peers

    out, big, mine, peers = run_coroutine(run())
    assert out == [
        refused(BINARY),
        refused(f"a message is at most 4096 bytes, not {len(big)}: refused unread"),
        refused("malformed JSON: nested too deeply"),
        refused("ping id must be a number or a string of up to 64 characters"),
        refused(
            "malformed JSON: Expecting property name enclosed in double quotes: "
            "line 1 column 2 (char 1)"
        ),
        {"type": "pong", "id": 2},
    ]
    assert mine == {"type": "pong", "id": "other"}
    assert peers == ["10.0.0.7", "10.0.0.7"]  # Hub.connect(peer)


def test_a_flood_is_refused_once_then_closed_and_logged(caplog):
    """On a clock that stands still: exactly the burst is read, the next is
    refused, a quarter of the burst more is dropped unread, then the socket is closed."""
    caplog.set_level(logging.WARNING)
    _, app = table(clock=lambda: 100.0)

    async def run():
        async with Asgi(app) as site:
            ws = await site.websocket()
            for n in range(200):
                await ws.send_json({"type": "ping", "id": n})
            seen = []
            while (message := await ws.next())["type"] == "websocket.send":
                seen.append(json.loads(message["text"]))
            await ws.close()
            return seen, message

    seen, close = run_coroutine(run())
    assert seen == [{"type": "pong", "id": n} for n in range(40)] + [
        refused(
            "too many messages: a connection may send 20 a second (40 at once); the ones "
            "over that are dropped unread"
        )
    ]
    assert close == {"type": "websocket.close", "code": 1008, "reason": "too many messages"}
    assert caplog.messages == [
        "closed the WebSocket /ws from 127.0.0.1: it kept sending over 20 messages a second "
        "(11 dropped)"
    ]


@pytest.mark.parametrize(
    ("frame", "answer"),
    [
        ({"data": b"\x00\x01"}, BINARY),
        (
            {"text": "x" * (MAX_MESSAGE_BYTES + 1)},
            "a message is at most 4096 bytes, not 4097: refused unread",
        ),
        ({"text": "[" * 2000 + "]" * 2000}, "malformed JSON: nested too deeply"),
    ],
)
def test_the_panel_s_socket_shares_the_frame_checks(frame, answer):
    _, app = table()

    async def run():
        async with Asgi(app) as site:
            ws = await site.websocket("/panel/ws")
            assert (await ws.json())["type"] == "panel"
            await ws.send(frame.get("text"), data=frame.get("data"))
            first = await ws.json()
            await ws.send_json({"type": "timer"})
            second = await ws.json()
            await ws.close()
            return first, second

    first, second = run_coroutine(run())
    assert first == refused(answer)
    # The socket goes on: the next message is read (and refused, as a press without the key).
    assert second == refused(PANEL_HOST_ONLY)


def test_the_panel_s_socket_is_closed_when_it_floods():
    _, app = table(clock=lambda: 0.0)

    async def run():
        async with Asgi(app) as site:
            ws = await site.websocket("/panel/ws")
            for _ in range(100):
                await ws.send_json({"type": "nothing"})
            while (message := await ws.next())["type"] == "websocket.send":
                pass
            await ws.close()
            return message

    assert run_coroutine(run()) == {
        "type": "websocket.close",
        "code": 1008,
        "reason": "too many messages",
    }

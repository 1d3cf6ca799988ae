"""The chaos probe's forged and replayed messages (``benchmarks/table_chaos.py``,
its last phase): each must be refused, and the table serve on.

Each forgery is sent by a page of its own (a device address of its own, so the
table's per-address budgets are never what refuses it), but the replays and the
act for another seat, which the legit phones send themselves. ``forge_all``
records each one in ``probe.forgery(kind, refused)``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import signal
import time
from collections.abc import Awaitable, Callable
from itertools import count
from typing import Any

from benchmarks.table_bench import BenchError
from benchmarks.table_chaos_attacks import FORGED_FRAMES, Forged, get_status, upgrade_status
from benchmarks.table_chaos_pages import MATCH, Page, ProbeLike

__all__ = ["forge_all", "Forger"]

WAIT_S = 20.0
_ADDRESSES = (f"127.0.8.{n}" for n in count(1))
REPLAYED = ("replay", "sent already")


class Forger:
    """A WebSocket of a forging device: what it is sent, and its close code."""

    def __init__(self, ws: Any):
        self.ws = ws
        self.messages: list[dict[str, Any]] = []
        self.closed: int | None = None
        self.arrived = asyncio.Event()
        self.task = asyncio.create_task(self._read())

    @classmethod
    async def open(cls, port: int, hello: dict[str, Any] | None) -> Forger:
        from websockets.asyncio.client import connect

        ws = await connect(
            f"ws://127.0.0.1:{port}/ws",
            origin=f"http://127.0.0.1:{port}",  # type: ignore[arg-type]
            local_addr=(next(_ADDRESSES), 0),
            max_size=None,
            proxy=None,
            ping_interval=None,
        )
        forger = cls(ws)
        if hello is not None:
            await forger.send(hello)
            await forger.next("welcome")
        return forger

    async def _read(self) -> None:
        with contextlib.suppress(Exception):
            async for text in self.ws:
                self.messages.append(json.loads(text))
                self.arrived.set()
        self.closed = self.ws.close_code or 1006
        self.arrived.set()

    async def send(self, message: dict[str, Any] | str | bytes, raw: bool = False) -> None:
        if raw:
            assert isinstance(message, bytes)
            self.ws.transport.write(message)  # a frame as it is, unchecked
        else:
            await self.ws.send(
                message if isinstance(message, (str, bytes)) else json.dumps(message)
            )

    async def next(self, kind: str, since: int | None = None) -> dict[str, Any] | None:
        """The first message of ``kind`` after the first ``since`` (None: from now);
        None if the socket closed or none came in time."""
        start = len(self.messages) if since is None else since
        deadline = time.monotonic() + WAIT_S
        while time.monotonic() < deadline:
            for message in self.messages[start:]:
                if message.get("type") == kind:
                    return message
            if self.closed is not None:
                return None
            self.arrived.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.arrived.wait(), 0.5)
        return None

    async def refusal(self, message: dict[str, Any] | str | bytes, raw: bool = False) -> str:
        """Send ``message``: the words it is refused in ("" if it is not)."""
        since = len(self.messages)
        await self.send(message, raw)
        refused = await self.next("refused", since)
        return "" if refused is None else str(refused.get("message"))

    async def close(self) -> None:
        await self.ws.close()
        self.task.cancel()


async def _refused_to(page: Page, act_id: str, message: dict[str, Any]) -> str:
    """The legit ``page`` sends ``message``: the words of its refusal with ``act_id``."""
    told = len(page.refusals)
    page.forged_ids.add(act_id)
    await page.send(message)
    deadline = time.monotonic() + WAIT_S
    while time.monotonic() < deadline:
        for refused_id, words in page.refusals[told:]:
            if refused_id == act_id:
                return words
        await asyncio.sleep(0.05)
    return ""


def _accepted_act(page: Page, older_than_s: float) -> str | None:
    """An act id ``page`` sent at least ``older_than_s`` ago and was not refused."""
    refused = {refused_id for refused_id, _ in page.refusals}
    now = time.monotonic()
    for act_id, when in reversed(page.acts):
        if now - when >= older_than_s and act_id not in refused:
            return act_id
    return None


async def replays(probe: ProbeLike, restart: Callable[..., Awaitable[float]]) -> None:
    phone = probe.phones[0]
    await phone.until(lambda: _accepted_act(phone, 0.5), "an act of the phone's")
    act_id = _accepted_act(phone, 0.5)
    assert act_id is not None
    replay = {"type": "act", "action": "draw", "id": act_id}
    words = await _refused_to(phone, act_id, replay)
    probe.forgery("act id replayed", any(w in words for w in REPLAYED))
    await restart(probe, signal.SIGKILL)
    epoch = probe.table.epoch
    await phone.until(lambda: phone.epoch == epoch and phone.view, "the phone back")
    words = await _refused_to(phone, act_id, replay)
    probe.forgery("act id replayed after a resume", any(w in words for w in REPLAYED))
    other = 1 - (phone.seat or 0)
    phone.counter += 1
    wrong_id = f"{phone.prefix}-{phone.counter}"
    words = await _refused_to(
        phone, wrong_id, {"type": "act", "action": "draw", "id": wrong_id, "seat": other}
    )
    probe.forgery("act for another seat", "your seat only" in words)


async def strangers(probe: ProbeLike) -> None:
    """A phone without a seat, a display without the key, a wrong key, wrong codes."""
    port = probe.table.port
    nobody = await Forger.open(port, {"type": "hello", "role": "phone"})
    words = await nobody.refusal({"type": "act", "action": "draw", "id": "f-1"})
    probe.forgery("act without a seat", "take a seat first" in words)
    words = await nobody.refusal({"type": "host", "cmd": "pause"})
    probe.forgery("host command from a phone", "on the display" in words)
    words = await nobody.refusal({"type": "join", "seat": 2, "name": "Mallory", "code": "ZZZZ"})
    probe.forgery("join during a match", bool(words))
    spectator = await Forger.open(port, {"type": "hello", "role": "display"})
    for cmd in ("pause", "end", "hand_to_bot", "free_seat", "clear_lobby"):
        words = await spectator.refusal({"type": "host", "cmd": cmd, "seat": 0})
        probe.forgery("host command without the key", "host's key" in words)
    wrong = await Forger.open(port, None)
    await wrong.send({"type": "hello", "role": "display", "host_key": "not-the-key"})
    welcome = await wrong.next("welcome", 0)
    probe.forgery("a wrong host key", welcome is not None and welcome.get("host") is False)
    words = await wrong.refusal({"type": "host", "cmd": "pause"})
    probe.forgery("host command with a wrong key", "host's key" in words)
    await wrong_codes(probe, nobody)
    for forger in (nobody, spectator, wrong):
        await forger.close()


async def wrong_codes(probe: ProbeLike, nobody: Forger) -> None:
    """The host ends the match; in the lobby wrong codes are refused; a new match starts."""
    display = probe.display
    probe.hold_lobby = True
    try:
        await display.send({"type": "host", "cmd": "end"})
        await display.until(lambda: (display.view or {}).get("phase") == "lobby", "the lobby")
        for code in ("ZZZZ", "", None, 1234):
            join = {"type": "join", "seat": 2, "name": "Mallory", "code": code}
            words = await nobody.refusal(join)
            probe.forgery("a wrong room code", "room code" in words)
        await host_extremes(probe)
    finally:
        probe.hold_lobby = False
    await display.send(MATCH)
    await display.until(lambda: (display.view or {}).get("turn") is not None, "the new match")


#: Starts no host's page sends, each refused in the lobby (the host's key does not
#: make a message sane): what the refusal must say.
EXTREME_STARTS: tuple[tuple[dict[str, Any], str], ...] = (
    ({"bots": 10**9}, "players, not 1000000002"),
    ({"bots": -1}, "bots must be"),
    ({"bots": "2"}, "bots must be"),
    ({"target": 0}, "target must be"),
    ({"variant": ["showdown"]}, "variant must be"),
    ({"reaction_ms": -5}, "reaction"),
    ({"house_rules": {"stacking": [[[]]]}}, ""),
)


async def host_extremes(probe: ProbeLike) -> None:
    """The host's own display sends starts no page sends: each refused, quickly."""
    display = probe.display
    for fields, words in EXTREME_STARTS:
        display.counter += 1
        forged_id = f"start-{display.counter}"
        message = {"type": "host", "cmd": "start", "id": forged_id, **fields}
        refused = await _refused_to(display, forged_id, message)
        probe.forgery("a host's start out of bounds", bool(refused) and words in refused)


async def fuzzed(probe: ProbeLike, sockets: int = 6, each: int = 30) -> None:
    """Random messages of the table's types with random fields (seeded), from
    spectators and phones without a seat, all at once: each socket still answers
    a ping after."""
    rngs = [random.Random(probe.rng.getrandbits(32)) for _ in range(sockets)]
    await asyncio.gather(*(fuzz_one(probe, n % 2 == 1, rng, each) for n, rng in enumerate(rngs)))


_VALUES: list[Any] = [None, True, 0, -1, 2**70, 1.5, "", "x" * 70, "R5", "draw", "ZZZZ", []]
_VALUES += [{}, [1, [2]], {"a": 1}, "\u202e", "W=R", "catch 1", "face 1 2", "pause"]
_KEYS = ["role", "host_key", "secret", "seat", "name", "code", "action", "id", "cmd", "ms"]
_KEYS += ["bots", "variant", "target", "house_rules", "loser", "reaction_ms", "to"]
_TYPES = ["hello", "join", "act", "take_back", "host", "ping", "lag", "view", None, 7]
_COMMANDS = ["start", "pause", "resume", "retry", "decide", "end", "free_seat", "move_seat"]


async def fuzz_one(probe: ProbeLike, phone: bool, rng: random.Random, each: int) -> None:
    hello = {"type": "hello", "role": "phone" if phone else "display"}
    forger = await Forger.open(probe.table.port, hello)
    for _ in range(each):
        message = {k: rng.choice(_VALUES) for k in rng.sample(_KEYS, rng.randrange(5))}
        message["type"] = rng.choice(_TYPES)
        if message["type"] == "host":
            message["cmd"] = rng.choice(_COMMANDS)
        await forger.send(message)
        await asyncio.sleep(1 / 15)  # under a socket's rate
    since = len(forger.messages)
    await forger.send({"type": "ping", "id": "after the fuzz"})
    pong = await forger.next("pong", since)
    probe.forgery(f"fuzzed messages (a socket answers after {each})", pong is not None)
    await forger.close()


async def frames(probe: ProbeLike) -> None:
    """Each frame no page sends, from a display of its own; then a ping answered."""
    for forged in FORGED_FRAMES:
        forger = await Forger.open(probe.table.port, {"type": "hello", "role": "display"})
        await frame(probe, forger, forged)
        await forger.close()


async def frame(probe: ProbeLike, forger: Forger, forged: Forged) -> None:
    since = len(forger.messages)
    await forger.send(forged.payload, raw=forged.raw)
    if forged.close_code is not None:
        await forger.next("never", since)  # until it closes
        probe.forgery(forged.kind, forger.closed == forged.close_code)
        return
    refused = await forger.next("refused", since)
    words = "" if refused is None else str(refused.get("message"))
    since = len(forger.messages)
    await forger.send({"type": "ping", "id": "after"})
    pong = await forger.next("pong", since)
    probe.forgery(forged.kind, forged.refusal in words and pong is not None)


async def origins(probe: ProbeLike) -> None:
    port = probe.table.port
    ours = f"127.0.0.1:{port}"
    for kind, host, origin, expected in (
        ("another Origin", ours, "http://evil.example", 403),
        ("Origin null", ours, "null", 403),
        ("another port's Origin", ours, f"http://127.0.0.1:{port + 1}", 403),
        ("another Host (WebSocket)", "evil.example", None, 421),
    ):
        status = await asyncio.to_thread(upgrade_status, port, host, origin, next(_ADDRESSES))
        probe.forgery(kind, status == expected)
    status = await asyncio.to_thread(get_status, port, next(_ADDRESSES), "evil.example")
    probe.forgery("another Host (a page)", status == 421)
    control = await asyncio.to_thread(upgrade_status, port, ours, f"http://{ours}", "127.0.0.6")
    if control != 101:
        raise BenchError(f"the table's own handshake was answered {control}, not 101")


async def forge_all(probe: ProbeLike, restart: Callable[..., Awaitable[float]]) -> None:
    await replays(probe, restart)
    await strangers(probe)
    await frames(probe)
    await fuzzed(probe)
    await origins(probe)

"""A scripted Showdown unit behind a fake serial port, on virtual time.

``FakeUnit`` answers the protocol through the real ``ServerConnection`` and
keeps a journal, like the daemon, but decides showdowns from a script
(``outcomes``: result fields per run) and can misbehave on cue: drop the link,
forget a showdown (a restart), lose an event, send noise, fault, refuse, answer
with malformed data, flood. A scripted launch ``"pending"`` journals the
decision and keeps launching until ``land()``; ``"interrupted"`` journals it
and crashes (a restart) before the launch ends.
``unit.open_port`` is what ``RemoteUnit(open_port=...)`` calls; its ports have
no file descriptor, so the link polls them and sleeps through ``unit.sleep``,
which only moves the virtual clock.

With ``bots=True`` it speaks the "bots" capability (docs/protocol.md): it takes
a showdown's ``bots`` (a reaction out of range is ``invalid_argument``), its
``armed`` event and results carry the bot sides, and with two bots it starts
the countdown by itself once armed (at once: virtual time).
"""

from __future__ import annotations

import collections

from firmware_host.protocol import Event, EventSequencer, ServerConnection, encode

#: A bot's reaction median the unit takes, in ms (docs/protocol.md).
BOT_REACTION_MS = (100, 1000)

__all__ = ["FakeUnit", "FakePort", "decided", "timeout", "void", "false_start"]


def decided(winner="a", a_us=200_000, b_us=230_000, launch="launched", counted=None):
    loser = "b" if winner == "a" else "a"
    return dict(
        winner=winner,
        loser=loser,
        reason="faster",
        tie_reruns=0,
        reaction_us={"a": a_us, "b": b_us},
        margin_us=abs(a_us - b_us),
        launch=launch,
        cards_counted=counted,
    )


def false_start(offender="b"):
    return dict(
        winner="a" if offender == "b" else "b",
        loser=offender,
        reason="false_start",
        tie_reruns=0,
        reaction_us={"a": None, "b": None},
        margin_us=None,
        launch="launched",
        cards_counted=None,
    )


def timeout():
    return dict(
        winner=None,
        loser=None,
        reason="timeout",
        tie_reruns=0,
        reaction_us={"a": None, "b": None},
        margin_us=None,
        launch="none",
        cards_counted=None,
    )


def void(reruns=3):
    return dict(
        winner=None,
        loser=None,
        reason="tie_void",
        tie_reruns=reruns,
        reaction_us={"a": 200_000, "b": 200_100},
        margin_us=100,
        launch="none",
        cards_counted=None,
    )


class FakePort:
    """One open link: bytes the unit sends wait in ``inbox``."""

    def __init__(self, unit: FakeUnit):
        self.unit = unit
        self.server = ServerConnection(token=unit.token)
        self.inbox = bytearray()
        self.alive = True

    def fileno(self):
        raise AttributeError("no file descriptor")

    def write(self, data: bytes) -> int:
        if not self.alive:
            raise OSError("write failed: link down")
        for item in self.server.receive_data(data):
            self.unit.handle(self, item)
        return len(data)

    def read(self, size: int) -> bytes:
        if not self.alive:
            raise OSError("socket disconnected")
        data = bytes(self.inbox[:size])
        del self.inbox[:size]
        return data

    def close(self) -> None:
        self.alive = False
        if self in self.unit.ports:
            self.unit.ports.remove(self)

    def push(self, data: bytes) -> None:
        self.inbox += data


class FakeUnit:
    """See the module docstring. ``log`` records each command as (cmd, args)."""

    def __init__(
        self, outcomes=(), *, version: int = 1, bots: bool = False, token: str | None = None
    ):
        self.now = 0.0
        self.token = token  # the unit's token: auth first, as the daemon asks
        self.capabilities = ["bench", "bots"] if bots else ["bench"]
        self.bots: dict[str, float] = {}  # side -> reaction_ms of the armed showdown
        self.sleeps: list[float] = []
        self.outcomes = collections.deque(outcomes)
        self.version = version
        self.events = EventSequencer()
        self.ports: list[FakePort] = []
        self.journal: dict[str, dict] = {}
        self.state = "idle"
        self.current: dict | None = None
        self.fault: str | None = None
        self.log: list[tuple[str, dict]] = []
        self.runs: list[str] = []  # showdown ids run (countdown started)
        self.reachable = True
        # Cues, used once: command name -> callable(unit, port), run before the
        # unit answers it (return "no reply" to send none) or after.
        self.before_reply: dict[str, object] = {}
        self.after_reply: dict[str, object] = {}
        self.drop_event: set[str] = set()  # events never sent
        # Persistent misbehaviour: command -> callable(unit, request) -> reply data
        # sent instead of the real reply; event name -> callable(data) -> data sent.
        self.replace_reply: dict[str, object] = {}
        self.corrupt_event: dict[str, object] = {}
        self.busy_with: str | None = None
        self.launching: dict | None = None  # the final result of a pending launch

    # -- the test's side ---------------------------------------------------------

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds

    def open_port(self, url, **settings):
        if not self.reachable:
            raise OSError(f"Could not open port {url}: [Errno 111] Connection refused")
        port = FakePort(self)
        self.ports.append(port)
        return port

    def drop_links(self) -> None:
        """Every open link breaks (the next read or write fails)."""
        for port in list(self.ports):
            port.alive = False
        self.ports.clear()

    def restart(self) -> None:
        """The daemon died and came back: links gone, the running showdown
        forgotten, the journal kept."""
        self.drop_links()
        self.state, self.current = "idle", None

    def commands(self, name: str) -> list[dict]:
        return [args for cmd, args in self.log if cmd == name]

    # -- the unit's side ---------------------------------------------------------

    def emit(self, name: str, **data) -> None:
        event = self.events.event(name, **data)
        if name in self.drop_event:
            return
        if name in self.corrupt_event:
            event = Event(name, event.seq, self.corrupt_event[name](dict(data)))
        for port in self.ports:
            if port.server.ready:
                port.push(encode(event))

    def status(self) -> dict:
        return {
            "state": self.state,
            "paddles": {"a": False, "b": False},
            "showdown": self.current,
            "last_result": None,
            "fault": self.fault if self.state == "fault" else None,
        }

    def handle(self, port: FakePort, request) -> None:
        if not hasattr(request, "cmd"):  # a ProtocolError: the line was noise
            port.push(port.server.send(request.to_reply()))
            return
        args = dict(request.args)
        if args.get("bots") is None:  # an optional argument left out
            args.pop("bots", None)
        self.log.append((request.cmd, args))
        cue = self.before_reply.pop(request.cmd, None)
        if cue is not None and cue(self, port) == "no reply":
            return
        if not port.alive:
            return
        handler = getattr(self, f"_cmd_{request.cmd}", None)
        reply = handler(request) if handler else request.reply()
        if request.cmd in self.replace_reply:
            reply = request.reply(**self.replace_reply[request.cmd](self, request))
        if port.alive:
            port.push(port.server.send(reply))
        if request.cmd in ("start", "bench_timer", "showdown") and self.state == "countdown":
            self._run()
        after = self.after_reply.pop(request.cmd, None)
        if after is not None:
            after(self, port)

    def _cmd_hello(self, request):
        return request.reply(
            version=self.version,
            unit={"name": "fake"},
            capabilities=list(self.capabilities),
            seq=self.events.last,
        )

    def _cmd_status(self, request):
        return request.reply(**self.status())

    def _cmd_showdown(self, request):
        args = request.args
        showdown_id = args["showdown_id"]
        if self.current is not None and self.current["showdown_id"] == showdown_id:
            return request.reply(**self.status())
        if showdown_id in self.journal:
            return request.reply(state="done", result=self.journal[showdown_id])
        if self.state == "fault":
            return request.fail("fault", f"the unit is in fault ({self.fault}); cancel resets it")
        if self.busy_with or self.state not in ("idle", "armed"):
            return request.fail("busy", "the unit is busy: state is 'countdown'")
        bots = {}
        if "bots" in self.capabilities:
            for side, bot in sorted((args.get("bots") or {}).items()):
                low, high = BOT_REACTION_MS
                if not low <= bot["reaction_ms"] <= high:
                    return request.fail(
                        "invalid_argument",
                        f"field 'bots.{side}.reaction_ms' must be a number from {low} to {high}, "
                        f"not {bot['reaction_ms']}",
                    )
                bots[side] = bot["reaction_ms"]
        self.bots = bots
        self.current = {
            "showdown_id": showdown_id,
            "cards": args["cards"],
            "players": dict(args["players"]),
            "tie_reruns": 0,
        }
        self.state = "armed"
        sides = {"bots": sorted(bots)} if "bots" in self.capabilities else {}
        self.emit(
            "armed",
            showdown_id=showdown_id,
            cards=args["cards"],
            players=dict(args["players"]),
            **sides,
        )
        reply = request.reply(**self.status())
        if len(bots) == 2:  # two bots: the unit starts by itself (after the reply)
            self.state = "countdown"
        return reply

    def _cmd_start(self, request):
        if self.state != "armed":
            return request.fail("not_armed", "no showdown is armed: arm one first")
        self.state = "countdown"
        return request.reply(**self.status())

    def _cmd_bench_timer(self, request):
        if self.state == "armed":
            self.state = "countdown"
        return request.reply()

    def _cmd_cancel(self, request):
        self.log.append(("reset", {}))
        self.state, self.current, self.fault = "idle", None, None
        return request.reply(**self.status())

    def _cmd_result(self, request):
        known = self.journal.get(request.args["showdown_id"])
        if known is None:
            return request.fail(
                "unknown_showdown", f"no result for showdown {request.args['showdown_id']!r}"
            )
        return request.reply(result=known)

    def _run(self) -> None:
        """The countdown and the scripted outcome, all at once (virtual time)."""
        current = self.current
        showdown_id = current["showdown_id"]
        self.runs.append(showdown_id)
        for step in (1, 2, 3):
            self.emit("countdown", showdown_id=showdown_id, step=step, steps=3, rerun=0)
        script = self.outcomes.popleft()
        if script == "fault":
            self.state, self.current, self.fault = "fault", None, "motor driver not answering"
            self.emit("fault", reason=self.fault)
            return
        if script == "hang":  # the showdown runs on; nothing more is said
            return
        self.emit("go", showdown_id=showdown_id, ticks=self.now)
        result = {
            "showdown_id": showdown_id,
            "players": current["players"],
            "cards": current["cards"],
            **script,
        }
        if "bots" in self.capabilities:
            result["bots"] = sorted(self.bots)
        if result["launch"] == "pending":  # decided and journaled; the cards fly on
            self.journal[showdown_id] = result
            self.state, self.current = "launching", None
            self.launching = {**result, "launch": "launched"}
            return
        if result["launch"] == "interrupted":  # journaled, then the unit died mid-launch
            self.journal[showdown_id] = result
            self.restart()
            return
        if result["reason"] == "false_start":  # with the arrow, before the launch
            self.emit("false_start", showdown_id=showdown_id, side=result["loser"])
        if result["loser"] is not None:
            self.emit(
                "launched",
                showdown_id=showdown_id,
                side=result["loser"],
                cards=current["cards"],
                verified=False,
                outcome=result["launch"],
            )
        self.journal[showdown_id] = result
        self.state, self.current = "idle", None
        self.emit("result", **result)

    def land(self) -> None:
        """A pending launch ends: the final result is journaled and sent."""
        result, self.launching = self.launching, None
        self.emit(
            "launched",
            showdown_id=result["showdown_id"],
            side=result["loser"],
            cards=result["cards"],
            verified=False,
            outcome=result["launch"],
        )
        self.journal[result["showdown_id"]] = result
        self.state = "idle"
        self.emit("result", **result)

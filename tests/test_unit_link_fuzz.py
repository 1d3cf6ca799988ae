"""Property tests of the engine's end, as tests/test_protocol_properties.py does
the unit's: whatever a unit sends (random bytes, replies and events of the
right shape with a few fields made wrong, replies to the wrong ids, floods),
UnitLink raises nothing but its own errors and keeps a bounded queue, and
RemoteUnit raises nothing but UnitProblem. Derandomized: the same examples
every run, a few seconds in all."""

import functools
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.units.ports import ShowdownOutcome, ShowdownRequest
from engine.units.remote import RemoteUnit, UnitProblem
from engine.units.unit_link import (
    MAX_QUEUED_EVENTS,
    AuthFailed,
    CommandRefused,
    LinkLost,
    UnitLink,
    VersionMismatch,
)
from firmware_host.protocol import EVENTS as UNIT_EVENTS
from tests.fake_unit import FakeUnit, decided

URL = "socket://fuzz.test:7700"
ALLOWED = (LinkLost, CommandRefused, VersionMismatch, AuthFailed)
FUZZ = settings(derandomize=True, deadline=None, max_examples=150)

# -- what a unit sends, and ways to get it wrong ----------------------------------------

RESULT = {
    "showdown_id": "t-1",
    "players": {"a": "Ann", "b": "Bob"},
    "winner": "b",
    "loser": "a",
    "reason": "faster",
    "tie_reruns": 0,
    "reaction_us": {"a": 250_000, "b": 230_000},
    "margin_us": 20_000,
    "cards": 3,
    "launch": "launched",
    "cards_counted": None,
}
SHOWDOWN = {"showdown_id": "t-1", "cards": 3, "players": {"a": "Ann", "b": "Bob"}, "tie_reruns": 0}
STATUS = {
    "state": "armed",
    "paddles": {"a": False, "b": False},
    "showdown": SHOWDOWN,
    "last_result": None,
    "fault": None,
}
HELLO = {"version": 1, "unit": {"name": "u"}, "capabilities": ["bench"], "seq": 0}
#: Each command's good replies.
REPLIES = {
    "hello": [HELLO],
    "auth": [{}],
    "ping": [{}],
    "bench_timer": [{}],
    "status": [STATUS, {**STATUS, "state": "idle", "showdown": None, "last_result": RESULT}],
    "start": [{**STATUS, "state": "countdown"}],
    "cancel": [{**STATUS, "state": "idle"}],
    "showdown": [STATUS, {"state": "done", "result": RESULT}],
    "result": [{"result": RESULT}, {"result": {**RESULT, "launch": "pending"}}],
    "history": [{"results": [RESULT], "players": {}}],
}
#: Good events.
EVENTS = [
    {"event": "state", "state": "countdown", "previous": "armed"},
    {"event": "armed", "showdown_id": "t-1", "cards": 3, "players": {"a": "Ann", "b": "Bob"}},
    {"event": "countdown", "showdown_id": "t-1", "step": 1, "steps": 3, "rerun": 0},
    {"event": "go", "showdown_id": "t-1", "ticks": 12.5},
    {"event": "tie", "showdown_id": "t-1", "gap_us": 90, "rerun": 1, "void": False},
    {
        "event": "launched",
        "showdown_id": "t-1",
        "side": "a",
        "cards": 3,
        "verified": False,
        "outcome": "jam",
    },
    {"event": "result", **RESULT},
    {"event": "fault", "reason": "stuck"},
    {"event": "paddle_held", "side": "b"},
    {"event": "sparkle"},
]
# Values of every JSON type, near the edges the checks must catch.
WRONG = [
    None,
    True,
    False,
    0,
    -1,
    1.5,
    2**70,
    "",
    "x",
    "a",
    "done",
    "pending",
    [],
    [1],
    {},
    {"a": 1},
    {"a": None, "b": None},
    RESULT,
]
KEYS = sorted(
    {key for replies in REPLIES.values() for reply in replies for key in reply}
    | {key for event in EVENTS for key in event}
    | set(RESULT)
    | {"id", "ok", "seq"}
)

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=8,
)
wrong = st.sampled_from(WRONG) | st.sampled_from(WRONG) | json_values
# Up to two fields changed, or dropped (``...``), at the top or in a result.
changes = st.dictionaries(st.sampled_from(KEYS), wrong | st.just(...), max_size=2)


def _apply(message: dict, change: dict) -> dict:
    return {key: value for key, value in {**message, **change}.items() if value is not ...}


def changed(message: dict, top: dict, inner: dict) -> dict:
    message = _apply(message, top)
    if isinstance(message.get("result"), dict):
        message["result"] = _apply(message["result"], inner)
    elif message.get("event") == "result":
        message = _apply(message, inner)
    return message


def almost(messages: list[dict]):
    """One of ``messages``, mostly as it is, else with a field or two wrong."""
    exact = st.sampled_from(messages)
    return exact | exact | st.builds(changed, exact, changes, changes)


# The strategies are cached: building (and validating) one per draw is most of the time.
@functools.cache
def reply(cmd: str, request_id: int):
    """The reply to request ``request_id``, mostly; or to another id, a refusal, none."""
    head = st.sampled_from(
        [{"id": request_id, "ok": True}] * 4
        + [
            {"id": request_id + 1, "ok": True},
            {"id": request_id, "ok": False, "error": {"code": "busy", "message": "no"}},
        ]
    )
    return st.builds(lambda head, body: [{**body, **head}], head, almost(REPLIES[cmd])) | st.just(
        []
    )


@functools.cache
def event(seq: int):
    return st.builds(
        lambda body, seq: {**body, "seq": seq}, almost(EVENTS), st.sampled_from([seq, seq, seq + 2])
    )


# Whole lines of noise (the random-bytes test cuts lines anywhere).
noise = st.binary(max_size=60).map(lambda junk: junk.replace(b"\n", b"") + b"\n") | st.sampled_from(
    [
        b"\n",
        b"\r\n",
        b"[1,2]\n",
        b'{"id": null, "ok": false, "error": {"code": "x", "message": "y"}}\n',
        b"\xff\n",
        b"x" * 200,
    ]
)


def lines(values) -> bytes:
    return b"".join(v if isinstance(v, bytes) else json.dumps(v).encode() + b"\n" for v in values)


@functools.cache
def answer(cmd: str, request_id: int):
    """What the unit sends after a request: events and noise around its reply (or not)."""
    extras = st.lists(event(request_id) | noise, max_size=2)
    return st.builds(
        lambda before, reply, after: lines(before + reply + after),
        extras,
        reply(cmd, request_id),
        extras,
    )


# -- a scripted port and virtual time ---------------------------------------------------


class ScriptedPort:
    """A port with no file descriptor: each write lets the next answer in,
    read in pieces of the sizes in ``cuts``."""

    def __init__(self, answers: list[bytes], cuts: list[int]):
        self.answers = list(answers)
        self.cuts = cuts or [65536]
        self.inbox = bytearray()
        self.reads = 0

    def fileno(self):
        raise AttributeError("no file descriptor")

    def write(self, data: bytes) -> int:
        if self.answers:
            self.inbox += self.answers.pop(0)
        return len(data)

    def read(self, size: int) -> bytes:
        self.reads += 1
        data = bytes(self.inbox[: min(size, self.cuts[self.reads % len(self.cuts)])])
        del self.inbox[: len(data)]
        return data

    def close(self) -> None:
        pass


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


CALLS = [
    ("status", {}),
    ("showdown", {"showdown_id": "t-1", "cards": 3, "players": {"a": "Ann", "b": "Bob"}}),
    ("result", {"showdown_id": "t-1"}),
    ("start", {}),
    ("cancel", {}),
    ("ping", {}),
    ("history", {"limit": 1}),
    ("bench_timer", {}),
    (None, {}),
    (None, {}),
]


def exercise(port: ScriptedPort, token: str | None, calls) -> list[str]:
    """Open a link over ``port`` and make ``calls`` (None: wait for an event):
    only the link's own errors come out, and the queue stays within its limit.
    Returns what each step gave, to show what the examples reach."""
    clock = Clock()
    link = UnitLink(
        URL,
        token=token,
        reply_timeout_s=0.5,
        poll_s=0.05,
        clock=clock,
        sleep=clock.sleep,
        open_port=lambda url, **settings: port,
    )
    try:
        link.open()
    except ALLOWED as exc:
        return [f"open: {type(exc).__name__}"]
    seen = ["open"]
    for cmd, args in calls:
        try:
            if cmd is None:
                seen.append(f"event: {type(link.next_event(0.2)).__name__}")
            else:
                assert isinstance(link.call(cmd, **args), dict)
                seen.append(cmd)
        except ALLOWED as exc:
            seen.append(f"{cmd}: {type(exc).__name__}")
        assert link.queued_events <= MAX_QUEUED_EVENTS
        if not link.is_open:
            break
    link.close()
    return seen


# -- the properties ----------------------------------------------------------------------


@FUZZ
@given(st.booleans(), st.permutations(CALLS), st.data())
def test_replies_and_events_of_almost_the_right_shape_raise_only_link_errors(token, calls, data):
    commands = ["auth"] * token + ["hello"] + [cmd or "status" for cmd, _ in calls]
    answers = [data.draw(answer(cmd, number)) for number, cmd in enumerate(commands, 1)]
    if data.draw(st.integers(0, 3)):  # mostly a good start, to reach the calls
        answers[: 1 + token] = [
            lines([{"id": number, "ok": True, **REPLIES[cmd][0]}])
            for number, cmd in enumerate(commands[: 1 + token], 1)
        ]
    cuts = data.draw(st.lists(st.integers(1, 300), max_size=4))
    exercise(ScriptedPort(answers, cuts), "t0k" if token else None, calls)


@FUZZ
@given(
    st.booleans(),
    st.lists(st.binary(max_size=400), max_size=12),
    st.lists(st.integers(1, 500), max_size=4),
)
def test_random_bytes_raise_only_link_errors(hello, answers, cuts):
    answers = [lines([{"id": 1, "ok": True, **HELLO}])] * hello + answers
    exercise(ScriptedPort(answers, cuts), None, CALLS)


@settings(derandomize=True, deadline=None, max_examples=25)
@given(event(1), st.integers(0, 3 * MAX_QUEUED_EVENTS), st.integers(0, 3))
def test_a_flood_keeps_the_queue_bounded(flooding_event, count, when):
    answers = [lines([{"id": 1, "ok": True, **HELLO}])] + [b""] * when
    answers.append(lines([flooding_event]) * count)
    exercise(ScriptedPort(answers, []), None, CALLS)


REQUEST = ShowdownRequest("r1", 0, 1, "Ann", "Bob", 3)
#: Virtual seconds after which a RemoteUnit still waiting on a unit that says
#: the showdown is on counts as waiting, not stuck: the heartbeat keeps asking.
STALLED_S = 30.0


class Stalled(Exception):
    pass


@FUZZ
@given(
    st.sampled_from(["hello", "status", "showdown", "start", "result", "cancel"]),
    st.data(),
    st.sampled_from(EVENTS),
    changes,
    changes,
    st.booleans(),
)
def test_the_remote_unit_raises_only_unit_problems(cmd, data, bad_event, top, inner, corrupt_event):
    unit = FakeUnit([decided(winner="a")] * 3)
    reply_data = data.draw(almost(REPLIES[cmd]))
    unit.replace_reply[cmd] = lambda unit, request: {
        key: value for key, value in reply_data.items() if key not in ("id", "ok")
    }
    name = bad_event["event"]
    if corrupt_event and name in UNIT_EVENTS:
        unit.corrupt_event[name] = lambda original: {
            key: value
            for key, value in changed({"event": name, **original}, top, inner).items()
            if key not in ("event", "seq")
        }

    def sleep(seconds):
        unit.sleep(seconds)
        if unit.now > STALLED_S:
            raise Stalled

    port = RemoteUnit(
        URL,
        start=True,
        id_prefix="t",
        reconnect_s=0.5,
        reply_timeout_s=0.5,
        open_port=unit.open_port,
        clock=unit.clock,
        sleep=sleep,
    )
    try:
        outcome = port.run_showdown(REQUEST)
    except (UnitProblem, Stalled):
        return
    assert isinstance(outcome, ShowdownOutcome)
    outcome.check(REQUEST)

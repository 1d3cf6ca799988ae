"""What was shown is durable: every change is saved before any page sees it; a
change whose save fails (an OSError injected on the save path: a full disk, an
I/O error, a read-only disk, a permission taken away) is not applied at all,
field for field, its sender is told in words, every screen pauses with what to
do, and the host's retry saves and goes on. And whatever view a page got, the
save file on disk already held what it showed."""

from __future__ import annotations

import errno
import json
import logging
import os
import random
import types

import pytest

from engine.apps.table import durable
from engine.apps.table.companion import CompanionRoom
from engine.apps.table.hub import Hub
from engine.apps.table.room import Room
from engine.units.ports import ShowdownOutcome
from tests.room_helpers import last_view, run_runner, taken

#: A position where Ann (seat 0) plays a Wild Showdown for 2 cards next.
SHOWDOWN_NEXT = "showdown R5!2,G2/B1,Y1 G1,B2,G3,G4 R1 R + 0 play - - 0,0 1 1 500 - 1:0"
#: What a failed save changes on purpose: the pause, and the outcome it holds back.
PAUSE_FIELDS = {"paused", "save_problem", "_paused_before", "_held_outcome"}


class Disk:
    """The save path's disk: ``error`` (an errno) makes every save fail as the
    system would, from the real writer's first step."""

    def __init__(self, monkeypatch):
        self.error: int | None = None
        self.saves = 0
        real = durable.write_save

        def write(path, snapshot):
            if self.error is not None:
                raise OSError(self.error, os.strerror(self.error), str(path))
            self.saves += 1
            real(path, snapshot)

        monkeypatch.setattr(durable, "write_save", write)


@pytest.fixture
def disk(monkeypatch):
    return Disk(monkeypatch)


def make_room(tmp_path, seats=2, seed=7):
    secrets = iter(f"secret-{n}" for n in range(100))
    return Room(
        seats=seats,
        rng=random.Random(seed),
        new_secret=lambda: next(secrets),
        save=tmp_path / "table.json",
    )


def hello(room, role="display", secret=None):
    conn = room.connect()
    message = {"type": "hello", "role": role, "secret": secret}
    if role == "display":
        message["host_key"] = room.host_key  # the host's display
    room.receive(conn, json.dumps(message))
    return conn


def send(room, conn, **message):
    room.receive(conn, json.dumps(message))
    return taken(room, conn)


def refusals(messages):
    return [m["message"] for m in messages if m["type"] == "refused"]


def dump(value, depth=0, opaque=()):
    """``value`` as plain values, every attribute of every object inside it
    (a random generator's state, a game's slots): two dumps are equal when the
    objects are equal field for field. The ``opaque`` objects (the unit: not
    the room's, and it keeps the verdicts it decided) by their type alone, and
    a logger (the process's) by its name."""
    if depth > 12:
        return "..."
    if any(value is thing for thing in opaque):
        return ("opaque", type(value).__name__)
    if isinstance(value, logging.Logger):
        # By name: its manager reaches every logger of the process, which after
        # a whole run's imports made one dump 27 s long.
        return ("Logger", value.name)
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    if isinstance(value, random.Random):
        return ("Random", value.getstate())
    if isinstance(value, (list, tuple)):
        return [dump(v, depth + 1, opaque) for v in value]
    if isinstance(value, dict):
        return {repr(k): dump(v, depth + 1, opaque) for k, v in value.items()}
    if isinstance(value, (set, frozenset)):
        return sorted(repr(v) for v in value)
    if isinstance(value, types.MethodType):
        return ("method", value.__func__.__qualname__)
    if isinstance(value, (types.FunctionType, types.BuiltinFunctionType, type)):
        return ("function", getattr(value, "__qualname__", repr(value)))
    slots = [name for cls in type(value).__mro__ for name in getattr(cls, "__slots__", ())]
    fields = {name: getattr(value, name) for name in slots if hasattr(value, name)}
    fields.update(getattr(value, "__dict__", {}))
    return (type(value).__name__, {k: dump(v, depth + 1, opaque) for k, v in fields.items()})


def state(room, leave_out=()):
    """The room field for field (but its caches and its connection list), and
    each connection's fields and what waits for it."""
    skip = Hub._NOT_STATE | PAUSE_FIELDS | set(leave_out)
    opaque = (room.unit,)
    fields = {
        name: dump(value, opaque=opaque) for name, value in vars(room).items() if name not in skip
    }
    conns = [dump({**vars(conn), "outbox": list(conn.outbox)}) for conn in room.connections]
    return fields, conns


def seated(tmp_path, seats=2):
    room = make_room(tmp_path, seats=seats)
    display = hello(room)
    ann = hello(room, "phone")
    send(room, ann, type="join", seat=0, name="Ann", code=room.code)
    send(room, display, type="host", cmd="start")
    return room, display, ann


def at_showdown(tmp_path):
    room, display, ann = seated(tmp_path)
    room.restore({**room.snapshot(), "notation": SHOWDOWN_NEXT})
    taken(room, display), taken(room, ann)
    return room, display, ann


PAUSED_FULL = (
    "The game is paused: the table cannot save: the disk is full at {path}. What to do: "
    "free space on the disk, then press Retry on the host's display."
)


# -- a person's move ------------------------------------------------------------------------


def test_a_move_whose_save_fails_applies_nothing_tells_the_sender_and_pauses_every_screen(
    tmp_path, disk
):
    room, display, ann = at_showdown(tmp_path)
    watcher = hello(room)
    taken(room, watcher)
    path = tmp_path / "table.json"
    saved = path.read_text()
    disk.error = errno.ENOSPC
    messages = send(room, ann, type="act", action="R5!2", id="ab-1")
    assert refusals(messages) == [f"the table cannot save: the disk is full at {path}"]
    assert room.game.notation() == SHOWDOWN_NEXT and path.read_text() == saved
    pause = PAUSED_FULL.format(path=path)
    for got in (taken(room, display), taken(room, watcher), messages):
        views = [m["view"] for m in got if m["type"] == "view"]
        assert [(v["paused"], v["cannot_save"]) for v in views] == [(pause, True)]
        assert views[0]["phase"] == "play" and views[0]["turn"] == 0  # the move is not shown
        assert views[0]["seats"][0]["cards"] == 2
    assert room.next_task() is None  # nothing moves until the host retries


def test_after_a_failed_save_the_room_equals_the_room_before_field_for_field(tmp_path, disk):
    room, _display, ann = at_showdown(tmp_path)
    before = state(room)
    disk.error = errno.ENOSPC
    send(room, ann, type="act", action="R5!2", id="ab-1")
    fields, conns = state(room)
    assert fields == before[0]
    # each connection as it was, but for the pause's view queued for it
    for now, then in zip(conns, before[1], strict=True):
        outbox_now, outbox_then = now.pop("'outbox'"), then.pop("'outbox'")
        assert now.pop("'last_view'") != then.pop("'last_view'")  # the pause's view
        assert now == then
        assert outbox_now[: len(outbox_then)] == outbox_then


@pytest.mark.parametrize(
    ("error", "words"),
    [
        (errno.EIO, "the disk failed to write (an I/O error)"),
        (errno.EROFS, "the disk is read-only"),
        (errno.EACCES, "permission denied"),
        (errno.EPERM, "the operation is not permitted"),
        (errno.EDQUOT, "the disk quota is used up"),
        (errno.ENAMETOOLONG, "file name too long"),
    ],
)
def test_each_reason_a_save_fails_is_said_in_its_own_words(tmp_path, disk, error, words):
    room, _display, ann = at_showdown(tmp_path)
    disk.error = error
    path = tmp_path / "table.json"
    assert refusals(send(room, ann, type="act", action="R5!2", id="ab-1")) == [
        f"the table cannot save: {words} at {path}"
    ]
    assert room.paused.startswith(f"The game is paused: the table cannot save: {words} at {path}")


def test_while_the_table_cannot_save_every_change_is_refused_but_the_hosts_retry(tmp_path, disk):
    room, display, ann = at_showdown(tmp_path)
    disk.error = errno.ENOSPC
    send(room, ann, type="act", action="R5!2", id="ab-1")
    path = tmp_path / "table.json"
    waiting = f"the table cannot save: the disk is full at {path}: the game is paused until the host retries"
    assert refusals(send(room, ann, type="act", action="R5!2", id="ab-2")) == [waiting]
    assert refusals(send(room, display, type="host", cmd="pause")) == [waiting]
    assert refusals(send(room, display, type="host", cmd="decide", loser=0)) == [waiting]
    # a retry with the disk still full: refused, still paused
    assert refusals(send(room, display, type="host", cmd="retry")) == [
        f"the table cannot save: the disk is full at {path}"
    ]
    assert room.paused == PAUSED_FULL.format(path=path)
    disk.error = None
    retried = send(room, display, type="host", cmd="retry")
    assert refusals(retried) == [] and room.paused is None and room.save_problem is None
    assert last_view(retried)["cannot_save"] is False
    # the move sent again goes through, saved before it is shown
    assert refusals(send(room, ann, type="act", action="R5!2", id="ab-3")) == []
    assert json.loads(path.read_text())["notation"] == room.game.notation() != SHOWDOWN_NEXT


def test_a_join_whose_save_fails_seats_nobody_and_sends_no_welcome(tmp_path, disk):
    room = make_room(tmp_path)
    display = hello(room)
    ann = hello(room, "phone")
    taken(room, display), taken(room, ann)
    disk.error = errno.EROFS
    messages = send(room, ann, type="join", seat=0, name="Ann", code=room.code)
    assert [m["type"] for m in messages] == ["view", "refused"]  # the pause, and why
    assert ann.seat is None and room.seats[0].kind is None and room.seats[0].secret is None
    assert last_view(taken(room, display))["seats"][0]["name"] is None
    disk.error = None
    send(room, display, type="host", cmd="retry")
    taken(room, ann)
    joined = send(room, ann, type="join", seat=0, name="Ann", code=room.code)
    # a new secret (the one drawn for the failed join was never sent), in the welcome
    assert joined[0] == {
        "type": "welcome",
        "role": "phone",
        "seat": 0,
        "secret": "secret-1",
        "host": False,
    }
    assert ann.seat == 0 and room.seats[0].secret == "secret-1"


def test_a_start_whose_save_fails_deals_nothing_and_the_next_deals_as_if_it_never_was(
    tmp_path, disk
):
    room = make_room(tmp_path)
    display = hello(room)
    ann = hello(room, "phone")
    send(room, ann, type="join", seat=0, name="Ann", code=room.code)
    disk.error = errno.ENOSPC
    assert len(refusals(send(room, display, type="host", cmd="start"))) == 1
    assert room.match is None and [s.kind for s in room.seats] == ["person", None]
    disk.error = None
    send(room, display, type="host", cmd="retry")
    send(room, display, type="host", cmd="start")
    unfailed = make_room(tmp_path / "other")
    d, a = hello(unfailed), hello(unfailed, "phone")
    send(unfailed, a, type="join", seat=0, name="Ann", code=unfailed.code)
    send(unfailed, d, type="host", cmd="start")
    assert room.game.notation() == unfailed.game.notation()  # the shuffle was put back too


# -- the machines: a bot's move, a showdown's outcome, the next round --------------------------


def test_a_bots_move_whose_save_fails_is_undone_and_made_again_after_the_retry(tmp_path, disk):
    room, display, _ann = seated(tmp_path)
    unfailed, _, _ = seated(tmp_path / "other")
    send(room, display, type="host", cmd="hand_to_bot", seat=0)
    send(unfailed, hello(unfailed), type="host", cmd="hand_to_bot", seat=0)
    assert room.next_task() == "bot"
    before = state(room)[0]
    disk.error = errno.EIO
    room.bot_step()  # the Runner's call: nothing raised out
    assert state(room)[0] == before
    assert room.paused.startswith("The game is paused: the table cannot save: the disk failed")
    assert room.next_task() is None
    disk.error = None
    send(room, display, type="host", cmd="retry")
    assert room.next_task() == "bot"
    room.bot_step()
    unfailed.bot_step()
    assert room.game.notation() == unfailed.game.notation()
    assert room.log == unfailed.log


def test_a_showdowns_outcome_whose_save_fails_is_held_and_applied_by_the_retry(tmp_path, disk):
    room, display, ann = at_showdown(tmp_path)
    send(room, ann, type="act", action="R5!2", id="ab-1")
    request = room.showdown_request()
    outcome = ShowdownOutcome(1, 0, "faster", {0: 250_000, 1: 310_000}, 60_000)
    disk.error = errno.ENOSPC
    room.finish_showdown(outcome)  # the Runner's call: nothing raised out
    assert room.game.pending_showdown is not None and room.match.showdowns == 0
    assert room.next_task() is None
    disk.error = None
    assert refusals(send(room, display, type="host", cmd="retry")) == []
    assert room.game.pending_showdown is None and room.match.showdowns == 1
    saved = json.loads((tmp_path / "table.json").read_text())
    assert saved["showdowns"] == 1 and saved["notation"] == room.game.notation()
    assert room.match.events[-1].data["loser"] == 1
    assert request.showdown_id.endswith(":r1:s1")


def test_the_runner_plays_on_after_a_failed_save_is_retried(tmp_path, disk):
    room, display, _ann = seated(tmp_path)
    send(room, display, type="host", cmd="hand_to_bot", seat=0)
    disk.error = errno.ENOSPC
    run_runner(room, until=lambda: room.save_problem is not None)
    assert room.paused.startswith("The game is paused: the table cannot save")
    assert "the server failed" not in room.paused
    decisions = room.match.decisions
    disk.error = None
    send(room, display, type="host", cmd="retry")
    run_runner(room, until=lambda: room.match.decisions > decisions + 3)
    assert room.match.decisions > decisions + 3 and room.paused is None


def test_a_unit_problem_during_the_pause_comes_back_after_the_retry(tmp_path, disk):
    room, display, ann = at_showdown(tmp_path)
    send(room, ann, type="act", action="R5!2", id="ab-1")
    room.showdown_request()
    disk.error = errno.ENOSPC
    send(room, display, type="host", cmd="pause")
    room.pause("The game is paused: the unit is off. What to do: switch it on")
    assert room.paused.startswith("The game is paused: the table cannot save")
    disk.error = None
    send(room, display, type="host", cmd="retry")
    assert room.paused == "The game is paused: the unit is off. What to do: switch it on"


# -- every view shown is in the save file already ----------------------------------------------


def test_every_view_a_page_got_is_what_the_save_file_held_at_that_moment(tmp_path):
    """A kill right after any view was sent resumes to what that view showed:
    after every change, the view the display got equals the view of a table
    restored from the file (but for who is connected and the live panel)."""
    room, display, _ann = seated(tmp_path, seats=3)
    send(room, display, type="host", cmd="hand_to_bot", seat=0)
    path = tmp_path / "table.json"
    checked = 0

    def public(view):
        view = dict(view)
        for field in ("showdown", "you", "paused"):
            view.pop(field)
        view["seats"] = [
            {**s, "connected": None, "lag_ms": None, "drew": None} for s in view["seats"]
        ]
        return view

    while room.game.round == 1 and checked < 400:
        task = room.next_task()
        if task == "bot":
            room.bot_step()
        elif task == "showdown":
            room.finish_showdown(room.unit.run_showdown(room.showdown_request()))
        else:
            break
        shown = last_view(taken(room, display))
        if shown is None:
            continue
        resumed = make_room(tmp_path / "resumed", seats=3)
        resumed.restore(json.loads(path.read_text()))
        assert public(resumed.view_for(hello(resumed))) == public(shown)
        checked += 1
    assert checked > 20


# -- the companion -------------------------------------------------------------------------------


def companion(tmp_path):
    room = CompanionRoom(rng=random.Random(3), code="ABCD", save=tmp_path / "companion.json")
    display = hello(room)
    send(room, display, type="host", cmd="start", players=["Ann", "Bob"])
    return room, display


def test_a_companions_round_whose_save_fails_records_nothing_and_the_retry_goes_on(tmp_path, disk):
    room, display = companion(tmp_path)
    before = state(room)[0]
    disk.error = errno.ENOSPC
    path = tmp_path / "companion.json"
    messages = send(room, display, type="host", cmd="round", winner=0, points=20)
    assert refusals(messages) == [f"the table cannot save: the disk is full at {path}"]
    assert state(room)[0] == before and room.scores == [0, 0]
    assert last_view(messages)["cannot_save"] is True
    disk.error = None
    assert refusals(send(room, display, type="host", cmd="retry")) == []
    assert refusals(send(room, display, type="host", cmd="round", winner=0, points=20)) == []
    assert room.scores == [20, 0] and json.loads(path.read_text())["entries"][0]["points"] == 20


def test_a_companions_showdown_outcome_whose_save_fails_is_held_for_the_retry(tmp_path, disk):
    room, display = companion(tmp_path)
    send(room, display, type="host", cmd="showdown", challenger=0, opponent=1, cards=2)
    request = room.showdown_request()
    disk.error = errno.ENOSPC
    room.finish_showdown(ShowdownOutcome(1, 0, "faster", {0: 250_000, 1: 300_000}, 50_000))
    assert room.entries == [] and room.next_task() is None
    assert room.paused.startswith("The game is paused: the table cannot save")
    disk.error = None
    assert refusals(send(room, display, type="host", cmd="retry")) == []
    assert [(e["kind"], e["loser"], e["showdown_id"]) for e in room.entries] == [
        ("showdown", 1, request.showdown_id)
    ]


def test_an_attribute_that_cannot_be_copied_is_left_alone_and_said_once(tmp_path, disk, caplog):
    import threading

    room, _display, ann = at_showdown(tmp_path)
    room.a_lock = threading.Lock()  # as a later field might be
    disk.error = errno.ENOSPC
    assert refusals(send(room, ann, type="act", action="R5!2", id="ab-1")) == [
        f"the table cannot save: the disk is full at {tmp_path / 'table.json'}"
    ]
    assert room.game.notation() == SHOWDOWN_NEXT  # the rest is undone all the same
    assert [r.getMessage() for r in caplog.records if "cannot be copied" in r.getMessage()] == [
        "Room.a_lock cannot be copied: a change whose save fails does not undo it "
        "(name it in _NOT_STATE if it is not the room's state)"
    ]

"""``showdown-unit demo``: a short, readable session on mock pins, then ``simulate``.

Four showdowns play on the real state machine and board (mock pins, virtual
time, a shortened countdown so the story stays short): a normal win, a false
start, a near-tie that is re-run (with the callbacks arriving in the wrong
order), and nobody pressing. Each event is printed with its time. Then 1000
simulated showdowns are checked against their ground truth. Exit 0 only if
every decision was right.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from typing import TypedDict

from firmware_host.people.console import positive_int, seed
from firmware_host.people.words import decision_line, event_line
from firmware_host.protocol import EventName
from firmware_host.service.config import load_config
from firmware_host.sim.rig import VirtualRig
from firmware_host.sim.simulate import format_summary, simulate

__all__ = ["SCENE_TIMING", "SCENES", "play_demo", "add_arguments", "command"]


class _SceneTiming(TypedDict):
    """The TimingConfig fields the scenes change."""

    countdown_step_s: float
    hold_min_s: float
    hold_max_s: float
    response_timeout_s: float
    settle_s: float


#: The unit's timing for the scenes: a shortened countdown so the demo reads
#: quickly (the default steps are 1 s).
SCENE_TIMING: _SceneTiming = {
    "countdown_step_s": 0.5,
    "hold_min_s": 0.3,
    "hold_max_s": 0.8,
    "response_timeout_s": 2.0,
    "settle_s": 0.025,
}

#: A bench call: ("press" or "release", side, offset from GO in s, callback delay in s).
_Edge = tuple[str, str, float, float]

#: (title, showdown id, cards, players, edges, notes) where edges are bench
#: calls for the first round, and for the re-run if there is one.
SCENES: list[tuple[str, str, int, dict[str, str], list[list[_Edge]]]] = [
    (
        "A normal win",
        "demo-1",
        3,
        {"a": "Ann", "b": "Bob"},
        [
            [
                ("press", "a", 0.2314, 0.0021),
                ("press", "b", 0.2648, 0.0004),
                ("release", "a", 0.45, 0.0),
                ("release", "b", 0.48, 0.0),
            ]
        ],
    ),
    (
        "A false start in the hold",
        "demo-2",
        2,
        {"a": "Ann", "b": "Bob"},
        [[("press", "b", -0.25, 0.0008), ("release", "b", -0.05, 0.0)]],
    ),
    (
        "A near tie (120 us apart) is re-run; then the callbacks arrive in the wrong order",
        "demo-3",
        4,
        {"a": "Cat", "b": "Dan"},
        [
            [
                ("press", "a", 0.25, 0.0031),
                ("press", "b", 0.25012, 0.0002),
                ("release", "a", 0.40, 0.0),
                ("release", "b", 0.40, 0.0),
            ],
            [
                ("press", "a", 0.2870, 0.0090),
                ("press", "b", 0.2873, 0.0005),
                ("release", "a", 0.50, 0.0),
                ("release", "b", 0.50, 0.0),
            ],
        ],
    ),
    ("Nobody presses", "demo-4", 1, {"a": "Eve", "b": "Fay"}, [[]]),
]


def play_demo(out=sys.stdout) -> list:
    """Play the scenes; returns their Results as dicts."""
    config = load_config(None)
    config = config.replace(timing=replace(config.timing, **SCENE_TIMING))
    out.write(
        "Showdown unit demo: the real state machine and board on mock pins, virtual time.\n"
        f"The countdown is shortened for the demo: {SCENE_TIMING['countdown_step_s']} s "
        f"steps (default {load_config(None).timing.countdown_step_s} s), hold "
        f"{SCENE_TIMING['hold_min_s']}-{SCENE_TIMING['hold_max_s']} s.\n"
    )
    with VirtualRig(config, seed=2024) as rig:
        return [_play_scene(rig, scene, out) for scene in SCENES]


def _play_scene(rig: VirtualRig, scene: tuple, out) -> dict:
    """One scene on ``rig``: its events and presses written to ``out`` as
    they come; returns its Result as a dict."""
    title, showdown_id, cards, players, rounds = scene
    out.write(f"\n== {title}\n")
    pending = list(rounds)
    started = rig.clock()

    def on_event(event) -> None:
        if event.name == "countdown" and event.data["step"] == 1 and pending:
            for kind, side, offset_s, delay_s in pending.pop(0):
                place = rig.bench.press if kind == "press" else rig.bench.release
                place(side, offset_s=offset_s, delay_s=delay_s)
        text = _scene_line(rig, event, started)
        if text is not None:
            out.write(f"  {rig.clock() - started:7.3f} s  {text}\n")

    forward, listeners = rig.board.on_paddle_edge, rig.core.listeners
    assert forward is not None  # the core listens to the board

    def on_edge(side, ticks, pressed) -> None:
        if pressed:
            out.write(
                f"  {rig.clock() - started:7.3f} s  paddle {side.upper()} pressed: "
                f"{_edge_timing(rig, ticks)}\n"
            )
        forward(side, ticks, pressed)

    rig.board.on_paddle_edge = on_edge
    rig.core.listeners = (*listeners, on_event)
    rig.core.arm(showdown_id, cards, players)
    rig.core.start()
    rig.advance(15)
    rig.core.listeners, rig.board.on_paddle_edge = listeners, forward
    result = rig.core.result(showdown_id)
    assert result is not None  # the showdown is over by now
    return result.to_dict()


def _scene_line(rig: VirtualRig, event, started: float) -> str | None:
    """What the scene says of ``event``: its line, the decision when a round
    settles, GO with its tick; None for the other state changes."""
    if event.name == EventName.GO:
        return f"GO (tick {event.data['ticks'] - started:.6f} s)"
    if event.name != EventName.STATE:
        return event_line(event.name, event.data)
    if event.data["previous"] in ("go", "false_start") and event.data["state"] in (
        "resolved",
        "launching",
        "countdown",
    ):
        decision = rig.core.decision
        assert decision is not None  # the round has settled
        return decision_line(decision.outcome, decision.winner, decision.loser, decision.margin_us)
    return None


def _edge_timing(rig, ticks: float) -> str:
    """Where an edge's tick lies against GO, and how late its callback came."""
    rnd = rig.core.round
    late_ms = (rig.clock() - ticks) * 1000
    if rnd is None or rnd.go_tick is None:
        return f"tick before GO, callback {late_ms:.1f} ms after the tick"
    when = f"GO {'+' if ticks >= rnd.go_tick else '-'} {abs(ticks - rnd.go_tick) * 1000:.3f} ms"
    return f"tick at {when}, callback {late_ms:.1f} ms after the tick"


def add_arguments(parser) -> None:
    parser.add_argument(
        "--showdowns",
        type=positive_int,
        default=1000,
        metavar="N",
        help="how many showdowns the closing simulation plays (default 1000)",
    )
    parser.add_argument("--seed", type=seed, default=1, metavar="S", help="its seed (default 1)")


def command(args) -> int:
    play_demo()
    print(f"\n== simulate --showdowns {args.showdowns} --seed {args.seed}")
    figures = simulate(args.showdowns, args.seed)
    figures.pop("_wrong_examples", None)
    print(format_summary(figures, args.seed))
    ok = (
        figures["wrong"] == 0 and figures["false_starts_caught"] == figures["false_starts_injected"]
    )
    print("\nevery decision right" if ok else "\nSOME DECISIONS WERE WRONG")
    return 0 if ok else 1

"""The showdown panel's state: who faces whom, the countdown, GO, the verdict.

One dict per showdown, in the views of every connection (it holds no card).
The table room and the companion room both keep one: :func:`armed` when the
showdown is named, :func:`follow` for each live event of the unit (a
RemoteUnit's ``table`` hook, a live simulated unit), :func:`decided` with the
outcome. The pages draw it with ``static/showdown.js``.

>>> view = armed(0, 2, ["Ann", "Bob"], 3, cause="WS")
>>> follow(view, "countdown", {"step": 1, "steps": 3})
>>> view["stage"], view["step"], view["steps"]
('countdown', 1, 3)
>>> decided(view, {0: "Ann", 2: "Bob"}, winner=2, loser=0, reason="faster",
...         reaction_us={0: 300000, 2: 250000}, margin_us=50000, tie_reruns=0)
>>> view["stage"], view["loser"], view["reactions"], view["margin_ms"]
('decided', 0, {'challenger': 300.0, 'opponent': 250.0}, 50.0)
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from firmware_host.people.words import duel_verdict

__all__ = ["armed", "follow", "follow_paddles", "decided", "ms"]


def armed(
    challenger: int, opponent: int, names: Sequence[str], cards: int, cause: str = ""
) -> dict[str, Any]:
    """A new showdown's panel: ``challenger`` (side a) against ``opponent``
    (side b) for ``cards`` cards; ``names`` are the two players' names."""
    return {
        "challenger": challenger,
        "opponent": opponent,
        "names": list(names),
        "cards": cards,
        "cause": cause,
        "stage": "armed",
        "step": None,
        "steps": None,
        "verdict": None,
        "reactions": None,
        "margin_ms": None,
        "false_start_by": None,
        "rerun": 0,
        "message": None,
    }


def follow(view: dict[str, Any], name: str, data: Mapping[str, Any]) -> None:
    """The unit's event ``name`` (with its ``data``) moves the panel on."""
    if name == "armed":
        view["stage"] = "armed"
    elif name == "countdown":
        view.update(stage="countdown", step=data.get("step"), steps=data.get("steps"))
        view["rerun"] = data.get("rerun", view["rerun"])
    elif name == "go":
        view["stage"] = "go"
    elif name == "false_start":
        side = data.get("side")
        view["false_start_by"] = view["challenger"] if side == "a" else view["opponent"]
    elif name == "tie":
        view["rerun"] = data.get("rerun", view["rerun"])
    elif name == "result":
        view["stage"] = "decided"


def follow_paddles(view: dict[str, Any], message: Mapping[str, Any]) -> None:
    """A round (or a round's end) of a showdown fought on the phones
    (``phone_port``) moves the panel on: each round is a countdown whose steps
    and GO the pages draw at the server's instants (``paddle``: the round's
    ``start_ms``, ``go_ms`` and ``steps``, which ``static/paddle.js`` keeps to);
    a round with no winner says why. The verdict comes with the outcome
    (:func:`decided`): only reactions the phones measured, never one invented."""
    if message.get("type") == "paddle_round":
        view.update(stage="countdown", step=0, steps=message.get("steps"), message=None)
        view["paddle"] = {
            key: message.get(key) for key in ("showdown_id", "round", "start_ms", "go_ms")
        }
        return
    kind = message.get("kind")
    if kind == "tie":
        view["rerun"] = view["rerun"] + 1
        view["message"] = "Too close to call: fought again"
    elif kind == "timeout":
        view["message"] = "Nobody tapped in time: fought again"
    elif kind == "missing":
        view["message"] = "A phone did not answer: the host decides"
    view["paddle"] = None


def decided(
    view: dict[str, Any],
    names: Mapping[int, str],
    *,
    winner: int,
    loser: int,
    reason: str,
    reaction_us: Mapping[int, int | None],
    margin_us: int | None,
    tie_reruns: int,
) -> None:
    """The verdict: in words (the unit's own, ``words.duel_verdict``), both
    reaction times and the margin in ms, the false starter, the re-runs."""
    c, o = view["challenger"], view["opponent"]
    view.update(
        stage="decided",
        verdict=duel_verdict(
            dict(names), winner, loser, reason, dict(reaction_us), margin_us, tie_reruns
        ),
        reactions={"challenger": ms(reaction_us.get(c)), "opponent": ms(reaction_us.get(o))},
        margin_ms=ms(margin_us),
        false_start_by=loser if reason == "false_start" else None,
        rerun=tie_reruns,
        winner=winner,
        loser=loser,
    )


def ms(micros: int | None) -> float | None:
    """Microseconds as milliseconds to 0.1 ms (None stays None)."""
    return None if micros is None else round(micros / 1000, 1)

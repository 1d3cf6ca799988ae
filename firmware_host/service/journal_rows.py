"""A journal row as a result: what may be written, and what a row reads back as.

>>> check_count(2, optional=False)
>>> later_timing({"reaction_us": {"a": 200000, "b": None}, "margin_us": None},
...              {"a": 200000, "b": 260000}, 60000)
{'reaction_us': {'a': 200000, 'b': 260000}, 'margin_us': 60000}
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from firmware_host.core.result import Result
from firmware_host.protocol import Launch
from firmware_host.service.journal_figures import RowDamaged
from firmware_host.service.journal_schema import NO_BOTS, canonical

__all__ = [
    "OUTCOMES",
    "AFTER_THE_DECISION",
    "decision",
    "later_timing",
    "check_count",
    "valid",
    "merged",
]

#: What a launch can end as (``pending`` is no end).
OUTCOMES = tuple(outcome for outcome in Launch if outcome is not Launch.PENDING)

# What the launch outcome may add to a decision: besides the launch itself,
# the timing of a press that came after the decision (the loser's reaction).
AFTER_THE_DECISION = ("launch", "cards_counted", "reaction_us", "margin_us")


def decision(result: Mapping[str, Any]) -> str:
    """The verdict part of a result (all but the launch and the timing), as canonical JSON."""
    return canonical({key: value for key, value in result.items() if key not in AFTER_THE_DECISION})


def later_timing(decided: Mapping[str, Any], reaction_us, margin_us) -> dict | None:
    """The decision's timing with what presses after it added, or None if
    ``reaction_us``/``margin_us`` would change what the decision measured
    (only a side it had no press for, and a margin it had not, may be filled in)."""
    before = decided.get("reaction_us") or {}
    if not isinstance(reaction_us, Mapping) or set(reaction_us) != {"a", "b"}:
        return None
    for side in "ab":
        if before.get(side) is not None and reaction_us[side] != before[side]:
            return None
    if decided.get("margin_us") is not None and margin_us != decided["margin_us"]:
        return None
    return {"reaction_us": dict(reaction_us), "margin_us": margin_us}


def check_count(counted, *, optional: bool) -> None:
    if counted is None and optional:
        return
    if isinstance(counted, bool) or not isinstance(counted, int) or counted < 0:
        raise ValueError(
            f"cards_counted must be a whole number >= 0"
            f"{' or None' if optional else ''}, not {counted!r}"
        )


def valid(result: Mapping[str, Any]) -> tuple[str, Mapping[str, Any]]:
    """The id and players of a valid result dict; ValueError if it is not one."""
    if not isinstance(result, Mapping):
        raise ValueError(f"a result must be a dict, not {type(result).__name__}")
    showdown_id, players = result.get("showdown_id"), result.get("players")
    if not isinstance(showdown_id, str) or not showdown_id:
        raise ValueError(f"a result needs a showdown_id string, not {showdown_id!r}")
    if not isinstance(players, Mapping) or not all(
        isinstance(players.get(side), str) for side in "ab"
    ):
        raise ValueError(f"a result needs players {{'a': name, 'b': name}}, not {players!r}")
    for text in (showdown_id, players["a"], players["b"]):
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:  # a lone surrogate: SQLite cannot store it
            raise ValueError(f"a result's names must be valid text, not {text!r}") from None
    try:
        Result.from_dict(dict(result))
        canonical(result)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"not a valid result: {exc}") from None
    check_count(result["cards_counted"], optional=True)
    return showdown_id, players


def merged(
    showdown_id: str, body, launch: str | None, counted: int | None, *, schema_version: int
) -> dict[str, Any]:
    """The result of one row of a journal of ``schema_version``: its body
    with the launch outcome (version 2 on), checked to be a valid result;
    RowDamaged if it is not."""
    try:
        result = json.loads(body)
    except (TypeError, ValueError):
        raise RowDamaged("its body is not JSON") from None
    if not isinstance(result, dict):
        raise RowDamaged(f"its body is not a result but a {type(result).__name__}")
    if schema_version >= 2:
        result = {**result, "launch": launch or "pending", "cards_counted": counted}
    if schema_version < 3 and "bots" not in result:
        result = {**result, "bots": NO_BOTS}  # read-only, not upgraded: no bots then
    try:
        Result.from_dict(result)
    except (TypeError, ValueError) as exc:
        raise RowDamaged(f"not a valid result: {exc}") from None
    if not all(isinstance(name, str) for name in result["players"].values()):
        raise RowDamaged(f"not a valid result: players must be names, not {result['players']}")
    if result["showdown_id"] != showdown_id:
        raise RowDamaged(f"its body is the result of {result['showdown_id']!r}")
    return result

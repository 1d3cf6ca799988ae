"""What the chaos probe's pages were shown, and the two promises it checks of it.

``benchmarks/table_chaos.py`` drives a real table's display and phones through
kills, a full disk and floods; every view and unit event each page receives is
given to a :class:`Book`, tagged with the *epoch* (the server process it came
from: 1, then one more after each restart). The book checks, as it goes:

- **No move shown then lost.** A view's log (newest line first, the display's
  up to ``MAX_LOG`` lines, a phone's its newest ``PHONE_LOG``) must hold the
  log of the view that page was shown before (a new match starts a new log);
  and after each restart, the display's first view of the new process must
  hold what every page was last shown by the old one. :func:`lost_lines` says
  how many of the newest lines of the earlier log are missing.
- **No verdict changed.** A showdown id's verdict (who won, a false start, both
  reaction times, the margin, the re-runs) as every page saw it, in the unit's
  ``result`` event and in the decided showdown panel, in every epoch, is one.

>>> lost_lines(["b", "a"], ["c", "b", "a"], window=300)  # one line more: nothing lost
0
>>> lost_lines(["b", "a"], ["c", "a"], window=300)  # "b" was shown, then is gone
1
>>> lost_lines(["e", "d", "c"], ["g", "f"], window=2) is None  # scrolled off: cannot tell
True
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import IO, Any

from engine.apps.table.room_views import MAX_LOG, PHONE_LOG

__all__ = ["Book", "lost_lines", "new_lines", "result_verdict", "panel_verdict", "Verdict"]

#: Who won (``a``, the challenger, or ``b``), a false start, the reaction times
#: of a and b and the margin in ms (0.1 ms), the near-ties fought again.
Verdict = tuple[str, bool, float | None, float | None, float | None, int]
#: Matching lines that show an earlier log was kept where the later one is cut
#: off at its window (fewer would let a common line such as a draw pass for it;
#: a short window needs at most half of it).
_CUT_OVERLAP = 3


def lost_lines(before: Sequence[str], after: Sequence[str], window: int) -> int | None:
    """How many of the newest lines of the log ``before`` (newest first) the
    later log ``after`` lacks: 0 when ``after`` holds all of it (above the new
    lines, or cut off by the ``window`` ``after`` is shown in); None when no
    line of ``before`` can be found and ``after`` is a full window (the lines
    may have scrolled off: this pair cannot tell).

    >>> lost_lines(["x", "b", "a"], ["y", "b", "a"], window=300)
    1
    >>> lost_lines(["c", "b", "a"], ["d", "c", "b"], window=3)  # "a" scrolled off
    0
    """
    if not before:
        return 0
    need = min(_CUT_OVERLAP, max(1, window // 2))
    for k in range(len(before)):
        kept = before[k:]
        for j in range(len(after)):
            m = min(len(kept), len(after) - j)
            if list(after[j : j + m]) != list(kept[:m]):
                continue
            whole = m == len(kept)
            cut = j + m == len(after) >= window and m >= min(len(kept), need)
            if whole or cut:
                return k
    return None if len(after) >= window else len(before)


def new_lines(before: Sequence[str], after: Sequence[str]) -> int:
    """How many lines at the top of the log ``after`` are new since ``before``
    (both newest first; a log that does not hold ``before``'s newest lines,
    a new match's, is all new). The log is capped: its length is no count.

    >>> new_lines(["b", "a"], ["d", "c", "b"]), new_lines(["b", "a"], ["y", "x"])
    (2, 2)
    """
    head = list(before[:_CUT_OVERLAP])
    for j in range(len(after)):
        if head and list(after[j : j + len(head)]) == head[: len(after) - j]:
            return j
    return len(after)


def _ms(micros: Any) -> float | None:
    return None if micros is None else round(micros / 1000, 1)


def result_verdict(data: dict[str, Any]) -> Verdict:
    """The verdict in a unit's ``result`` event (sides ``a`` and ``b``)."""
    reactions = data.get("reaction_us") or {}
    return (
        str(data["winner"]),
        data.get("reason") == "false_start",
        _ms(reactions.get("a")),
        _ms(reactions.get("b")),
        _ms(data.get("margin_us")),
        int(data.get("tie_reruns") or 0),
    )


def panel_verdict(panel: dict[str, Any] | None) -> Verdict | None:
    """The verdict a decided showdown panel shows (None: not decided)."""
    if not panel or panel.get("stage") != "decided" or panel.get("winner") is None:
        return None
    reactions = panel.get("reactions") or {}
    return (
        "a" if panel["winner"] == panel["challenger"] else "b",
        panel.get("false_start_by") is not None,
        reactions.get("challenger"),
        reactions.get("opponent"),
        panel.get("margin_ms"),
        int(panel.get("rerun") or 0),
    )


@dataclass
class Shown:
    """One view as the book keeps it."""

    epoch: int
    phase: str
    log: list[str]


@dataclass
class _Page:
    window: int
    last: Shown | None = None
    by_epoch: dict[int, Shown] = field(default_factory=dict)
    armed: tuple[str, int] | None = None  # the showdown id it was told of last, its epoch


@dataclass
class Book:
    """Every page's views and events (see the module docstring); ``record``, a
    text file, gets each of them as a JSON line."""

    record: IO[str] | None = None
    pages: dict[str, _Page] = field(default_factory=dict)
    views: int = 0
    checks: int = 0
    unverifiable: int = 0
    moves_lost: int = 0
    lost_examples: list[dict[str, Any]] = field(default_factory=list)
    verdicts: dict[str, dict[Verdict, list[str]]] = field(default_factory=dict)
    unkeyed_panels: int = 0
    #: The epochs each showdown id's verdict was seen in (two: fought again after a resume).
    verdict_epochs: dict[str, set[int]] = field(default_factory=dict)
    #: The epochs each showdown id was armed in (two: a kill came while it was fought).
    armed_epochs: dict[str, set[int]] = field(default_factory=dict)
    _checked_epoch: int = 1

    def page(self, name: str, *, display: bool) -> None:
        """A page the book follows (a display sees the whole log, a phone its newest lines)."""
        self.pages.setdefault(name, _Page(MAX_LOG if display else PHONE_LOG))

    def view(self, name: str, epoch: int, view: dict[str, Any], phase: str = "") -> None:
        """``view`` was shown to page ``name`` by server ``epoch``."""
        page = self.pages[name]
        shown = Shown(epoch, str(view.get("phase")), list(view.get("log") or []))
        self.views += 1
        self._write({"page": name, "epoch": epoch, "phase": phase, "view": view})
        if page.last is not None and not _new_match(page.last, shown):
            self._compare(page.last, shown, page.window, f"{name}: one view to the next")
        if page.window == MAX_LOG and epoch > self._checked_epoch:
            self._after_restart(shown)
        page.last = page.by_epoch[epoch] = shown
        panel = panel_verdict(view.get("showdown"))
        if panel is not None:
            if page.armed is not None and page.armed[1] == epoch:
                self._verdict(page.armed[0], panel, epoch, f"{name}'s panel")
            else:
                self.unkeyed_panels += 1

    def event(self, name: str, epoch: int, kind: str, data: dict[str, Any]) -> None:
        """A unit event (``armed``, ``result``, ...) page ``name`` was sent."""
        self._write({"page": name, "epoch": epoch, "event": kind, "data": data})
        showdown_id = data.get("showdown_id")
        if not isinstance(showdown_id, str):
            return
        if kind == "armed":
            self.pages[name].armed = (showdown_id, epoch)
            self.armed_epochs.setdefault(showdown_id, set()).add(epoch)
        elif kind == "result":
            self._verdict(showdown_id, result_verdict(data), epoch, f"{name}'s result event")

    def _after_restart(self, first: Shown) -> None:
        """The display's first view from a new server: what every page was last
        shown by the one before must be in it."""
        before = first.epoch - 1
        for name, page in self.pages.items():
            last = page.by_epoch.get(before)
            if last is not None and not _new_match(last, first):
                self._compare(last, first, MAX_LOG, f"{name}'s last of epoch {before}")
        self._checked_epoch = first.epoch

    def _compare(self, before: Shown, after: Shown, window: int, what: str) -> None:
        self.checks += 1
        lost = lost_lines(before.log, after.log, window)
        if lost is None:
            self.unverifiable += 1
        elif lost:
            self.moves_lost += lost
            if len(self.lost_examples) < 5:
                self.lost_examples.append(
                    {"what": what, "lost": before.log[:lost], "then": after.log[:3]}
                )

    def _verdict(self, showdown_id: str, verdict: Verdict, epoch: int, seen: str) -> None:
        seen_as = self.verdicts.setdefault(showdown_id, {}).setdefault(verdict, [])
        seen_as.append(f"{seen}, epoch {epoch}")
        self.verdict_epochs.setdefault(showdown_id, set()).add(epoch)

    def _write(self, line: dict[str, Any]) -> None:
        if self.record is not None:
            self.record.write(json.dumps(line) + "\n")

    def changed_verdicts(self) -> dict[str, list[str]]:
        """Each showdown id seen with more than one verdict: where each was seen first."""
        return {
            showdown_id: [f"{verdict} ({seen[0]})" for verdict, seen in seen_as.items()]
            for showdown_id, seen_as in self.verdicts.items()
            if len(seen_as) > 1
        }

    def figures(self) -> dict[str, Any]:
        changed = self.changed_verdicts()
        return {
            "views": self.views,
            "log_checks": self.checks,
            "log_checks_unverifiable": self.unverifiable,
            "moves_lost": self.moves_lost,
            "lost_examples": self.lost_examples,
            "showdowns_seen": len(self.verdicts),
            "showdowns_seen_across_a_restart": sum(
                len(epochs) > 1 for epochs in self.verdict_epochs.values()
            ),
            "showdowns_armed_across_a_restart": sum(
                len(epochs) > 1 for epochs in self.armed_epochs.values()
            ),
            "verdicts_changed": len(changed),
            "changed_examples": dict(list(changed.items())[:5]),
            "panels_without_an_id": self.unkeyed_panels,
        }


def _new_match(before: Shown, after: Shown) -> bool:
    """Whether ``after`` is a new match's first log, started where ``before``'s was over."""
    starts = bool(after.log) and after.log[-1].startswith("Match:")
    return before.phase in ("match_over", "lobby") and starts and after.phase != before.phase

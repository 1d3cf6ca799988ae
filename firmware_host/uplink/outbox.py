"""The outbox: which results are in flight, which are due again, and the cursor.

Sans-IO, in h11's shape: it is fed what was read (:meth:`Outbox.offer`), what
the league acknowledged (:meth:`Outbox.settle`) and the time, and says what to
send now (:meth:`Outbox.due`) and when it next needs the clock
(:meth:`Outbox.next_deadline`). The MQTT client, the journal and the state
file live in :mod:`firmware_host.uplink.service`.

A result is done when the league's ack names its id, stored or refused; a
broker's PUBACK is not delivery (issue 23 measured that losing results). Until
then it is sent again after ``resend_after_s`` and at every reconnect; each
resend the league does not answer doubles the wait, up to ``MAX_RESEND_S``
(a league that is down is not flooded by every unit's whole window), and any
ack brings the rest back to ``resend_after_s``.

Per source (the journal, the match book) the outbox keeps a cursor: the
highest entry such that every entry read up to it is done. Entries done above
it (acked out of order) are kept as ``done_above``, so a restart resends only
what was not acked.

>>> box = Outbox({}, {}, window=2, resend_after_s=5.0)
>>> for seq in (1, 2):
...     box.offer(Outgoing("journal", seq, f"u:{seq}", b"{}"))
>>> [item.id for item in box.due(now=0.0)], box.due(now=1.0), box.next_deadline()
(['u:1', 'u:2'], [], 5.0)
>>> [item.id for item in box.settle(["u:2"])], box.cursor("journal"), box.done_above("journal")
(['u:2'], 0, {2})
>>> [item.id for item in box.due(now=5.0)]
['u:1']
>>> _ = box.settle(["u:1"]); box.cursor("journal"), box.done_above("journal"), box.free
(2, set(), 2)
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

__all__ = ["Outgoing", "Outbox", "Counts"]


@dataclass(frozen=True)
class Outgoing:
    """One result message to deliver: its source, its entry there (the
    order), its id on the wire and the encoded message; ``at`` is when the
    unit recorded it and ``summary`` a line for people (Home Assistant)."""

    source: str
    seq: int
    id: str
    payload: bytes
    at: float = 0.0
    summary: str = ""


@dataclass
class Counts:
    """What the uplink did since it started: the ``figures`` of its status."""

    sent: int = 0  # results sent at least once
    resent: int = 0  # sends after the first
    acked: int = 0  # the league stored them
    refused: int = 0  # the league refused them (logged with the reason)
    skipped: int = 0  # rows that are no valid result: never sent
    last_id: str | None = None
    last_result_at: float | None = None


@dataclass
class _InFlight:
    item: Outgoing
    sent_at: float | None = None  # None: not sent yet, or due at once (a reconnect)
    sends: int = 0
    unanswered: int = 0  # resends since the league last acked anything: the back-off


@dataclass
class _Source:
    cursor: int
    done_above: set[int] = field(default_factory=set)
    read_upto: int = 0  # the highest entry offered or skipped so far (done above it: not yet)


#: The longest a result waits for its ack before it is sent again (the back-off's cap).
MAX_RESEND_S = 60.0


class Outbox:
    """The results in flight, at most ``window`` of them, in the order offered."""

    def __init__(
        self,
        cursors: Mapping[str, int],
        done_above: Mapping[str, Iterable[int]],
        *,
        window: int = 200,
        resend_after_s: float = 5.0,
    ):
        if window < 1:
            raise ValueError(f"window must be 1 or more, not {window}")
        if not resend_after_s > 0:
            raise ValueError(f"resend_after_s must be > 0, not {resend_after_s}")
        self.window, self.resend_after_s = window, resend_after_s
        self.max_resend_s = max(resend_after_s, MAX_RESEND_S)
        self._sources: dict[str, _Source] = {}
        for name in {*cursors, *done_above}:
            cursor = cursors.get(name, 0)
            above = {seq for seq in done_above.get(name, ()) if seq > cursor}
            self._sources[name] = _Source(cursor, above, cursor)
        self._flight: dict[str, _InFlight] = {}  # id -> item, in the order offered
        self.counts = Counts()

    # -- what the reader asks --------------------------------------------------------

    @property
    def free(self) -> int:
        """How many more results may be offered now."""
        return self.window - len(self._flight)

    @property
    def pending(self) -> int:
        """Results in flight: read, not yet acked."""
        return len(self._flight)

    def cursor(self, source: str) -> int:
        return self._source(source).cursor

    def done_above(self, source: str) -> set[int]:
        return set(self._source(source).done_above)

    def read_position(self, source: str) -> tuple[int, frozenset[int]]:
        """Where the reader of ``source`` goes on: the entries after the first
        number, less those in the set (done already: acked before a restart)."""
        state = self._source(source)
        return state.cursor, frozenset(state.done_above)

    def offered_upto(self, source: str) -> int:
        """The highest entry of ``source`` offered or done so far."""
        return self._source(source).read_upto

    # -- what happens ----------------------------------------------------------------

    def offer(self, item: Outgoing) -> None:
        """A result read from its source, after every one offered before."""
        state = self._source(item.source)
        if item.seq <= state.read_upto:
            raise ValueError(
                f"{item.source} entry {item.seq} offered after entry {state.read_upto}"
            )
        if self.free < 1:
            raise ValueError(f"the window of {self.window} results is full")
        if item.id in self._flight:
            raise ValueError(f"{item.id!r} is in flight already")
        state.read_upto = item.seq
        self._flight[item.id] = _InFlight(item)

    def skip(self, source: str, seq: int) -> None:
        """An entry that is no valid result: done without being sent."""
        state = self._source(source)
        state.read_upto = max(state.read_upto, seq)
        state.done_above.add(seq)
        self.counts.skipped += 1
        self._advance(source)

    def due(self, now: float) -> list[Outgoing]:
        """What to send now, in the order offered: each new result, and each
        one whose last send is ``resend_after_s`` old. They count as sent at
        ``now``."""
        out = []
        for flight in self._flight.values():
            if flight.sent_at is not None and now - flight.sent_at < self._wait(flight):
                continue
            if flight.sent_at is not None:
                flight.unanswered += 1  # a resend on the clock: the next waits longer
            flight.sent_at = now
            flight.sends += 1
            if flight.sends == 1:
                self.counts.sent += 1
            else:
                self.counts.resent += 1
            out.append(flight.item)
        return out

    def _wait(self, flight: _InFlight) -> float:
        """How long a sent result waits for its ack: ``resend_after_s``,
        doubled at each resend nobody answered, up to ``max_resend_s``. A
        league that is down is not flooded by every unit's whole window."""
        return min(self.resend_after_s * 2**flight.unanswered, self.max_resend_s)

    def reconnected(self) -> None:
        """A new connection: everything in flight is due at once (the old
        connection's messages may be gone with the broker)."""
        for flight in self._flight.values():
            flight.sent_at = None

    def settle(self, ids: Iterable[str], *, refused: bool = False) -> list[Outgoing]:
        """Ids the league's ack named: done. The results they were (ids not
        in flight, an ack again or one meant for an earlier run, are ignored)."""
        done = []
        for id_ in ids:
            flight = self._flight.pop(id_, None)
            if flight is None:
                continue
            item = flight.item
            self._source(item.source).done_above.add(item.seq)
            done.append(item)
            if refused:
                self.counts.refused += 1
            else:
                self.counts.acked += 1
                self.counts.last_id = item.id
                self.counts.last_result_at = item.at
        for source in {item.source for item in done}:
            self._advance(source)
        if done:  # the league answers: what is still in flight waits the short time again
            for flight in self._flight.values():
                flight.unanswered = 0
        return done

    def next_deadline(self) -> float | None:
        """When something is next due (the clock of :meth:`due`): None with
        nothing in flight, ``-inf`` when a result is due now (not sent yet,
        or a reconnect), else when the oldest send is ``resend_after_s`` old."""
        if not self._flight:
            return None
        if any(flight.sent_at is None for flight in self._flight.values()):
            return -math.inf
        return min(
            flight.sent_at + self._wait(flight)
            for flight in self._flight.values()
            if flight.sent_at is not None
        )

    # -- inside ------------------------------------------------------------------------

    def _source(self, name: str) -> _Source:
        if name not in self._sources:
            self._sources[name] = _Source(0)
        return self._sources[name]

    def _advance(self, source: str) -> None:
        """The cursor up to the entry before the lowest one still in flight."""
        state = self._source(source)
        waiting = [f.item.seq for f in self._flight.values() if f.item.source == source]
        lowest = min(waiting) if waiting else None
        # Only entries read so far: one done above a gap not read yet (acked before a
        # restart) waits for the gap.
        below = [
            seq
            for seq in state.done_above
            if seq <= state.read_upto and (lowest is None or seq < lowest)
        ]
        if below:
            state.cursor = max(state.cursor, *below)
            state.done_above = {seq for seq in state.done_above if seq > state.cursor}

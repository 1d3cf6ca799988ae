"""An exact solver of Pitch's trick play with every card known (double dummy).

The position is small ints: a trump is its rank 0 (the 2) to 15 (the ace), a
hand is a 16-bit mask of ranks, the four hands one 64-bit int (seat ``s`` in
bits ``16*s`` up). The value of a position is the final ``utility[points]``
where ``points`` is what team A (seats 0 and 2) took in the whole hand: the
utility table says what each total is worth to team A (the score it gains
less the score the other team gains, or a win or loss of the match), so the
contract's threshold is searched exactly. Seats 0 and 2 maximise, 1 and 3
minimise, with alpha-beta; finished tricks meet again in a table of bounds,
and cards of one hand that touch (no other live card between them) and score
alike are one move.

>>> solver = TrickSolver(list(range(11)))
>>> hands = pack_hands([[15, 1], [14, 0], [13], [12]])  # A,3 / K,2 / Q / J
>>> solver.value(hands, leader=0, pts_a=0)  # the 2 under the ace (3 points), the king takes the 3
3
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = [
    "RANK_POINTS",
    "TrickSolver",
    "pack_hands",
    "hand_of",
    "ranks_of",
    "lead_from",
]

#: Points of each rank: 2 (1), 3 (3), 4-9 (0), 10, low joker, high joker,
#: off-jack, jack (1 each), queen, king (0), ace (1).
RANK_POINTS = (1, 3, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 0, 0, 1)
_FULL = 0xFFFF
_NEG = -(10**9)
_POS = 10**9
_EXACT, _LOWER, _UPPER = 0, 1, 2


def _ranks_desc() -> tuple[tuple[int, ...], ...]:
    """mask -> its ranks high to low: a mask's are its highest rank and those
    of the mask without it, already made (a tenth of the cost of testing every
    bit of every mask, at each import)."""
    table: list[tuple[int, ...]] = [()]
    for m in range(1, 1 << 16):
        high = m.bit_length() - 1
        table.append((high, *table[m ^ (1 << high)]))
    return tuple(table)


#: mask -> its ranks high to low.
_RANKS_DESC: tuple[tuple[int, ...], ...] = _ranks_desc()


def _order(leader: int, holding: int) -> tuple[int, ...]:
    return tuple(s for s in ((leader + i) % 4 for i in range(4)) if holding >> s & 1)


#: leader -> the seats holding trumps (a 4-bit mask) -> the trick's order of play.
_ORDERS = tuple(tuple(_order(leader, h) for h in range(16)) for leader in range(4))
_DISTINCT: dict[int, tuple[int, ...]] = {}


def _distinct(mine: int, others: int) -> tuple[int, ...]:
    """The cards of ``mine`` worth trying: one of each run of touching cards
    (no card of ``others`` between them) that score alike; the highest first,
    then low to high (win it, or duck cheaply)."""
    key = mine << 16 | others
    moves = _DISTINCT.get(key)
    if moves is None:
        reps: list[int] = []
        last = -1
        for r in _RANKS_DESC[mine]:
            if not (
                reps
                and RANK_POINTS[r] == RANK_POINTS[last]
                and not others >> (r + 1) & ((1 << (last - r - 1)) - 1)
            ):
                reps.append(r)
            last = r
        moves = tuple(reversed(reps))
        _DISTINCT[key] = moves
    return moves


def pack_hands(hands: Sequence[Sequence[int]]) -> int:
    """Four hands of ranks as one int.

    >>> hand_of(pack_hands([[0], [1, 2], [], [15]]), 1) == 0b110
    True
    """
    packed = 0
    for seat, ranks in enumerate(hands):
        for r in ranks:
            packed |= 1 << (16 * seat + r)
    return packed


def hand_of(packed: int, seat: int) -> int:
    """Seat's 16-bit mask of ranks."""
    return (packed >> (16 * seat)) & _FULL


def ranks_of(mask: int) -> tuple[int, ...]:
    """The ranks in ``mask``, high to low."""
    return _RANKS_DESC[mask]


def lead_from(packed: int, seat: int, partner_first: bool = False) -> int | None:
    """Who leads when ``seat`` should (R7): it if it holds a trump, else (with
    the ``lead=partner`` rule its partner first) the next seat clockwise
    holding one; None when nobody does."""
    if packed >> (16 * seat) & _FULL:
        return seat
    if partner_first and packed >> (16 * ((seat + 2) % 4)) & _FULL:
        return (seat + 2) % 4
    for step in (1, 2, 3):
        other = (seat + step) % 4
        if packed >> (16 * other) & _FULL:
            return other
    return None


class TrickSolver:
    """Exact values of trick-play positions for one hand's ``utility`` table
    (index: team A's points at the end of the hand). ``low_to_holder``: the
    2 scores for the team that played it (house rule ``low=holder``);
    ``partner_first``: the ``lead=partner`` rule. The table of finished tricks
    lives as long as the solver, so reuse one solver for one hand's positions."""

    def __init__(
        self,
        utility: Sequence[int],
        *,
        low_to_holder: bool = False,
        partner_first: bool = False,
    ) -> None:
        self.utility = tuple(utility)
        self.low_to_holder = low_to_holder
        self.partner_first = partner_first
        self.table: dict[int, tuple[int, int]] = {}
        self.nodes = 0

    # -- the public questions ---------------------------------------------------------

    def value(self, packed: int, leader: int, pts_a: int) -> int:
        """The exact value of a trick's start: ``leader`` to lead, team A at ``pts_a``."""
        return self._boundary(packed, leader, pts_a, _NEG, _POS)

    def move_values(
        self,
        packed: int,
        trick: Sequence[tuple[int, int]],
        order: Sequence[int],
        pts_a: int,
    ) -> dict[int, int]:
        """The exact value of each card (rank) the seat to act may play.

        ``packed``: the hands now (the trick's cards already out of them),
        ``trick``: (seat, rank) played so far, ``order``: the seats of this
        trick in turn (the seat to act is ``order[len(trick)]``).
        """
        index = len(trick)
        seat = order[index]
        best_rank, best_seat, trick_mask = -1, -1, 0
        for s, r in trick:
            trick_mask |= 1 << r
            if r > best_rank:
                best_rank, best_seat = r, s
        won_a, won_b = self._trick_points(trick)
        values: dict[int, int] = {}
        mine = hand_of(packed, seat)
        for rank, twins in self._moves(packed, mine, trick_mask):
            new_best, new_seat = (rank, seat) if rank > best_rank else (best_rank, best_seat)
            a, b = self._add_points(won_a, won_b, rank, seat)
            v = self._follow(
                packed & ~(1 << (16 * seat + rank)),
                order,
                index + 1,
                new_best,
                new_seat,
                trick_mask | 1 << rank,
                a,
                b,
                pts_a,
                _NEG,
                _POS,
            )
            for twin in twins:
                values[twin] = v
        return values

    # -- the search -------------------------------------------------------------------

    def _trick_points(self, trick: Sequence[tuple[int, int]]) -> tuple[int, int]:
        """Points in the trick so far: (to its winner's team, to team A as the 2's holder)."""
        won, holder_a = 0, 0
        for s, r in trick:
            won, holder_a = self._add_points(won, holder_a, r, s)
        return won, holder_a

    def _add_points(self, won: int, holder_a: int, rank: int, seat: int) -> tuple[int, int]:
        """Add ``rank``'s points: to the trick's winner, or (the 2 under the
        ``low=holder`` rule) to its holder's team (counted here only for team A)."""
        if rank == 0 and self.low_to_holder:
            return won, holder_a + (1 if seat % 2 == 0 else 0)
        return won + RANK_POINTS[rank], holder_a

    def _moves(self, packed: int, mine: int, trick_mask: int) -> list[tuple[int, list[int]]]:
        """The seat's distinct cards: (the card tried, the cards it stands for)."""
        live = ((packed | packed >> 16 | packed >> 32 | packed >> 48) & _FULL) | trick_mask
        others = live & ~mine
        groups: list[tuple[int, list[int]]] = []
        last = -1
        for r in _RANKS_DESC[mine]:
            if (
                groups
                and RANK_POINTS[r] == RANK_POINTS[last]
                and not others >> (r + 1) & ((1 << (last - r - 1)) - 1)
            ):
                groups[-1][1].append(r)
            else:
                groups.append((r, [r]))
            last = r
        return groups

    def _follow(
        self,
        packed: int,
        order: Sequence[int],
        index: int,
        best_rank: int,
        best_seat: int,
        trick_mask: int,
        won: int,
        holder: int,
        pts_a: int,
        alpha: int,
        beta: int,
    ) -> int:
        """The value after ``index`` cards of the trick are down."""
        if index == len(order):
            pts = pts_a + (won if best_seat % 2 == 0 else 0) + holder
            if not packed:
                return self.utility[pts]
            leader = lead_from(packed, best_seat, self.partner_first)
            assert leader is not None
            return self._boundary(packed, leader, pts, alpha, beta)
        self.nodes += 1
        seat = order[index]
        maximise = seat % 2 == 0
        shift = 16 * seat
        mine = packed >> shift & _FULL
        live = ((packed | packed >> 16 | packed >> 32 | packed >> 48) & _FULL) | trick_mask
        moves = _distinct(mine, live & ~mine)
        value = _NEG if maximise else _POS
        low_rule = self.low_to_holder
        follow = self._follow
        last = index + 1 == len(order)
        for rank in moves:
            if rank > best_rank:
                nb, ns = rank, seat
            else:
                nb, ns = best_rank, best_seat
            if rank == 0 and low_rule:
                w, h = won, holder + (1 if maximise else 0)
            else:
                w, h = won + RANK_POINTS[rank], holder
            rest = packed & ~(1 << (shift + rank))
            if last and not rest:
                v = self.utility[pts_a + (w if ns % 2 == 0 else 0) + h]
            else:
                v = follow(
                    rest, order, index + 1, nb, ns, trick_mask | 1 << rank, w, h, pts_a, alpha, beta
                )
            if maximise:
                if v > value:
                    value = v
                    if v > alpha:
                        alpha = v
            elif v < value:
                value = v
                if v < beta:
                    beta = v
            if alpha >= beta:
                break
        return value

    def _boundary(self, packed: int, leader: int, pts_a: int, alpha: int, beta: int) -> int:
        """A trick's start, through the table of bounds."""
        key = (packed << 6) | (leader << 4) | pts_a
        entry = self.table.get(key)
        if entry is not None:
            stored, flag = entry
            if flag == _EXACT:
                return stored
            if flag == _LOWER:
                if stored >= beta:
                    return stored
                alpha = max(alpha, stored)
            elif stored <= alpha:
                return stored
            else:
                beta = min(beta, stored)
        holding = (
            (1 if packed & _FULL else 0)
            | (2 if packed >> 16 & _FULL else 0)
            | (4 if packed >> 32 & _FULL else 0)
            | (8 if packed >> 48 else 0)
        )
        order = _ORDERS[leader][holding]
        a0, b0 = alpha, beta
        value = self._follow(packed, order, 0, -1, -1, 0, 0, 0, pts_a, alpha, beta)
        if value <= a0:
            self.table[key] = (value, _UPPER)
        elif value >= b0:
            self.table[key] = (value, _LOWER)
        else:
            self.table[key] = (value, _EXACT)
        return value

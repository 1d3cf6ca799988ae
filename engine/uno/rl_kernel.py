"""Classic's and Showdown's kept observations brought up to date: the environment's hot path.

``UnoCodec.update`` (engine.uno.rl_codec) of a classic or Showdown codec is
``ClassicKept.update``: each player's observation (bytes, laid out by the
codec) changed by what changed in the game's slots (engine.uno.game_state)
since that player's last update. The codec makes the tables (where each
card's, phase's and seat's one or count goes) and each player's kept list;
this module only reads and writes them. ``make build`` compiles it with
mypyc (an extension beside this file that ``import`` finds first; its Python
source is the reference, run where nothing is built or with
``UNO_RL_INTERPRETED=1``: engine.uno.rl_codec picks). The bytes always equal
the codec's full rebuild, ``UnoCodec.observe`` (tests/test_rl_incremental.py).

``make_mask`` is engine.rl.codec's (the environment's action mask), compiled:
every UNO codec gives it the environment as ``UnoCodec.make_mask``.

A player's kept list: the observation (a spare byte past its end, where a
mark that is nowhere points), the hand counted, the discards counted
(the draw pile's shuffles, the pile's length), where each mark's one is (top
card, phase, drawn card, colour, to act, catchable), then for each seat where
its "to act" one and its "catchable" one go, and for each seat from the
player where its hand size goes.
"""

from __future__ import annotations

from typing import Any, Final

__all__ = ["ClassicKept", "make_mask"]

# The kept list's items (see the module docstring); Final: mypyc writes them in.
OUT: Final = 0
SEEN: Final = 1
SHUFFLES: Final = 2
LENGTH: Final = 3
TOP: Final = 4
PHASE: Final = 5
DRAWN: Final = 6
COLOUR: Final = 7
TO_ACT: Final = 8
CATCHABLE: Final = 9
TO_ACT_AT: Final = 10
CATCHABLE_AT: Final = 11
SIZES_AT: Final = 12


class ClassicKept:
    """Brings each player's kept observation up to date (see the module docstring)."""

    def __init__(
        self,
        kept: list[list[Any]],
        tables: tuple[list[int], list[int], list[int], list[int], list[int], list[int]],
        places: tuple[int, int, int, int],
        slots: tuple[int, int, int],
    ) -> None:
        #: Each player's kept list: the codec's own (its start_round refills it).
        self.kept = kept
        #: Where a card counts in the hand, the discards, the top and drawn
        #: card; where a match key's colour and a phase slot put their one.
        self.face_of, self.discard_at, self.top_at = tables[0], tables[1], tables[2]
        self.drawn_at, self.colour_at, self.phase_at = tables[3], tables[4], tables[5]
        #: The faces' count, the spare byte, the Showdown phase's one, the direction byte.
        self.faces, self.spare, self.showdown_at, self.direction_at = places
        #: The phase slot's drawn, penalty and over values (engine.uno.game_state).
        self.drawn, self.penalty, self.over = slots
        self.zero = bytes(self.faces)

    def update(self, game: Any, player: int) -> bytearray:
        """``player``'s kept observation brought up to date, and returned.

        A card played (the engine removes it, the rest in order) or drawn (at
        the end) is one write; anything else a recount."""
        kept = self.kept[player]
        out: bytearray = kept[OUT]
        seen: list[int] = kept[SEEN]
        hands: list[list[int]] = game._hands
        hand = hands[player]
        if hand != seen:
            # The first card where they differ: the one played when the hand is
            # one card shorter and the rest follow in order, the first drawn
            # when it is longer and begins with all it was. (Loops on the
            # lists, not slices or sums: compiled, they allocate nothing.)
            known, size = len(seen), len(hand)
            common = min(known, size)
            i = 0
            while i < common and hand[i] == seen[i]:
                i += 1
            face_of = self.face_of
            if size == known - 1:
                j = i
                while j < size and hand[j] == seen[j + 1]:
                    j += 1
                if j == size:
                    out[face_of[seen[i]]] -= 1
                    del seen[i]
                else:
                    seen = self.recount(hand, out)
            elif i == known:  # cards drawn, at the end
                for j in range(known, size):
                    card = hand[j]
                    out[face_of[card]] += 1
                    seen.append(card)
            else:
                seen = self.recount(hand, out)
            kept[SEEN] = seen
        pile: list[int] = game._discard
        length: int = kept[LENGTH]
        shuffles: int = game._shuffles
        if kept[SHUFFLES] != shuffles or len(pile) < length:  # cards taken back
            faces = self.faces
            out[faces : 2 * faces] = self.zero
            kept[SHUFFLES] = shuffles
            length = 0
        end = len(pile)
        if end != length:
            discard_at = self.discard_at
            for i in range(length, end):
                out[discard_at[pile[i]]] += 1
            kept[LENGTH] = end
        spare = self.spare
        # Each mark: its one moves only when it moved.
        at = self.top_at[pile[end - 1]]
        was: int = kept[TOP]
        if was != at:
            out[was], out[at], kept[TOP] = 0, 1, at
        phase: int = game._phase
        drawn = to_act = spare
        if game._showdown is not None:
            at = self.showdown_at
        else:
            at = self.phase_at[phase]
            if phase != self.over:
                current: int = game.current
                to_act_at: list[int] = kept[TO_ACT_AT]
                to_act = to_act_at[current]
                if phase == self.drawn and current == player:
                    drawn = self.drawn_at[hand[len(hand) - 1]]
        was = kept[PHASE]
        if was != at:
            out[was], out[at], kept[PHASE] = 0, 1, at
        was = kept[DRAWN]
        if was != drawn:
            out[was], out[drawn], kept[DRAWN] = 0, 1, drawn
        top: int = game._top
        at = self.colour_at[top]
        was = kept[COLOUR]
        if was != at:
            out[was], out[at], kept[COLOUR] = 0, 1, at
        was = kept[TO_ACT]
        if was != to_act:
            out[was], out[to_act], kept[TO_ACT] = 0, 1, to_act
        at = self.direction_at
        direction: int = game._direction
        out[at] = 1 if direction == 1 else 0
        if phase == self.penalty:  # the slot is read only then: one read less a step
            pending: int = game._pending
            out[at + 1] = pending if pending < 255 else 255
        else:
            out[at + 1] = 0
        sizes_at: tuple[tuple[int, int], ...] = kept[SIZES_AT]
        for at, seat in sizes_at:
            out[at] = len(hands[seat])
        target: int = game._catchable
        at = spare
        if target >= 0 and len(hands[target]) == 1 and phase != self.over:
            catchable_at: list[int] = kept[CATCHABLE_AT]
            at = catchable_at[target]
        was = kept[CATCHABLE]
        if was != at:
            out[was], out[at], kept[CATCHABLE] = 0, 1, at
        return out

    def recount(self, hand: list[int], out: bytearray) -> list[int]:
        """Count ``hand`` afresh into ``out``; what is now counted."""
        out[0 : self.faces] = self.zero
        face_of = self.face_of
        for card in hand:
            out[face_of[card]] += 1
        return hand[:]


def make_mask(legal: tuple[Any, ...], index: dict[Any, int], scratch: bytearray, view: Any) -> Any:
    """engine.rl.codec.make_mask, compiled (the same ones, the same copy)."""
    for move in legal:
        scratch[index[move]] = 1
    mask = view.copy()
    for move in legal:
        scratch[index[move]] = 0
    return mask

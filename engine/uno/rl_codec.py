"""UNO's encoding for the environment (engine.rl): actions as numbers, what a player sees as bytes.

The action space of a variant and a number of players is fixed: every way to
play each card face of the variant's deck (each wild with each colour, each
play once more with UNO called; in Party! also each card's speed play, each wild
added to a mini pile and each Wild Drawn Together link), then draw, keep,
challenge, accept, catch, the colours, a Wild Showdown's opponent and count,
take and point. An action that names a player names them from the actor's
seat (``catch`` of the next player is one number whoever catches); a pair of
linked players is named the same way.

An observation is what ``PlayerView`` offers the player, as bytes, seats
counted from the player (0 is the player, 1 the next in seat order):

=====================  =====  ===============================================
part                   size   values
=====================  =====  ===============================================
hand                   F      copies of each face in the player's hand
discard pile           F      copies of each face on the discard pile
top card               F      1 at the top card's face
drawn card             F      1 at the card just drawn (the player's, DRAWN)
colour                 4      1 at the colour in force
phase                  9      1 at the game's phase (engine.uno.Phase)
direction, penalty     2      1 if clockwise; cards an ``accept`` draws (to 255)
seats                  4n     hand sizes; 1 at the seat to act; 1 at the seat
                              that may be caught; scores (% of the target, to 255)
Party! only            F+4+2n+1  mini pile faces, its colour, linked, pointed, speed window
=====================  =====  ===============================================

F is the number of distinct faces in the deck (54 classic); a deck holds at
most 255 cards, so every count is a byte.
It reads the game's own lists for speed (hands and piles of card codes), the
player's hand and the public ones only.

>>> codec = make_codec("classic", 2)
>>> len(codec.actions[0]), codec.observation_size
(129, 239)
"""

from __future__ import annotations

from collections import Counter
from itertools import combinations
from typing import Any

from engine.uno.actions import Action
from engine.uno.cards import COLOURS, MAX_SHOWDOWN, Card, Rank
from engine.uno.game import Phase
from engine.uno.rules import Variant

__all__ = ["UnoCodec", "make_codec"]

#: Phase number by the phase's value (a str: hashed faster than the member).
_PHASES = {phase.value: i for i, phase in enumerate(Phase)}
_DRAWN = _PHASES[Phase.DRAWN.value]
_PILE_UP, _DRAWN_TOGETHER = Rank.WILD_PILE_UP, Rank.WILD_DRAWN_TOGETHER


def make_codec(variant: str, players: int, house_rules: Any = None) -> UnoCodec:
    """UNO's codec for ``variant`` (classic, showdown, party) and ``players``."""
    return UnoCodec(Variant.named(variant), players)


class UnoCodec:
    """The encoding of one UNO variant for ``players`` (engine.rl.codec.Codec)."""

    def __init__(self, variant: Variant, players: int):
        self.variant, self.players = variant, players
        self.party = variant.name == "party"
        deck = Counter(variant.deck)
        self.faces: tuple[Card, ...] = tuple(sorted(deck))
        #: Face number by card code (-1: no card of the deck).
        self.face_of = [-1] * 2048
        for i, face in enumerate(self.faces):
            self.face_of[face] = i
        self.actions, self.index = self._number_actions()
        f, n = len(self.faces), players
        if len(variant.deck) > 255:
            raise ValueError(f"a deck of {len(variant.deck)} cards: the counts are bytes")
        self._f = f
        self._hand, self._discard, self._top, self._drawn = 0, f, 2 * f, 3 * f
        self._colour = 4 * f
        self._phase = self._colour + 4
        self._direction = self._phase + len(_PHASES)
        self._sizes = self._direction + 2  # then to act, catchable and scores: n each
        self._pile = self._sizes + 4 * n
        size = self._pile + (f + 4 + 2 * n + 1 if self.party else 0)
        self.observation_size = size
        high = bytearray(size)
        copies = bytes(deck[face] for face in self.faces)
        high[0:f] = high[f : 2 * f] = copies
        high[2 * f : self._sizes] = b"\x01" * (self._sizes - 2 * f)
        high[self._direction + 1] = 255
        high[self._sizes : self._pile] = bytes([len(variant.deck)] * n + [1] * 2 * n + [255] * n)
        if self.party:
            high[self._pile : self._pile + f] = copies
            high[self._pile + f : size] = b"\x01" * (size - self._pile - f)
        self.observation_high = bytes(high)
        #: Each player's observation before the round's changing facts: the scores.
        self._start: list[bytes] = [bytes(size)] * n
        self._kept: tuple[int, int] = (-1, 0)  # (shuffles, length) of the discards counted
        self._discards = bytearray(f)

    def _number_actions(self) -> tuple[list[list[Action]], list[dict[Action, int]]]:
        """Action number -> action for each seat (the seat-free ones shared)."""
        n, party = self.players, self.party
        plain: list[Action] = []  # the actions that name no player
        for face in self.faces:
            for uno in (False, True):
                if party:  # a speed play of any card (a wrong one is a penalty)
                    plain.append(Action.speed(face, uno=uno))
                if not face.is_wild or face.rank == _PILE_UP:  # names no colour
                    plain.append(Action.play(face, uno=uno))
                elif face.rank != _DRAWN_TOGETHER:
                    plain += [Action.play(face, colour, uno=uno) for colour in COLOURS]
                    if party:
                        plain.append(Action.play(face, uno=uno))  # added to a mini pile
                else:
                    plain += [Action.play(face, colour, uno=uno) for colour in COLOURS]
                    if party:
                        plain.append(Action.play(face, uno=uno))  # added to a mini pile
        plain += [Action.draw(), Action.keep(), Action.challenge(), Action.accept()]
        plain += [Action.choose_colour(colour) for colour in COLOURS]
        if party:
            plain.append(Action.take())
        links = [
            (face, colour, uno)
            for face in self.faces
            if face.rank == _DRAWN_TOGETHER
            for uno in (False, True)
            for colour in COLOURS
        ]
        pairs = list(combinations(range(n), 2))
        actions: list[list[Action]] = []
        for p in range(n):
            mine = plain[:]
            others = [(p + k) % n for k in range(1, n)]
            mine += [Action.catch(o) for o in others]
            if self.variant.showdowns:
                mine += [Action.face(o, k) for o in others for k in range(1, MAX_SHOWDOWN + 1)]
            if party:
                mine += [Action.point(o) for o in others]
                relative = sorted(pairs, key=lambda pair: sorted((s - p) % n for s in pair))
                mine += [
                    Action.play(face, colour, uno=uno, link=pair)
                    for face, colour, uno in links
                    for pair in relative
                ]
            actions.append(mine)
        return actions, [{a: i for i, a in enumerate(mine)} for mine in actions]

    # -- observations ----------------------------------------------------------------

    def start_round(self, game: Any) -> None:
        """Forget the discards counted; write the scores (they change between rounds only)."""
        self._kept = (-1, 0)
        n, at, scores, target = (
            self.players,
            self._sizes + 3 * self.players,
            game.scores,
            game.target,
        )
        start = []
        for player in range(n):
            out = bytearray(self.observation_size)
            for k in range(n):
                out[at + k] = min(255, max(0, scores[(player + k) % n] * 100 // target))
            start.append(bytes(out))
        self._start = start

    def _count_discards(self, game: Any) -> bytearray:
        """The discard pile's faces, counted on from the last call while no
        shuffle took cards back from it."""
        pile: list[int] = game._discard
        counts = self._discards
        shuffles, length = self._kept
        if shuffles != game._shuffles or len(pile) < length:
            counts[:] = bytes(len(counts))
            length = 0
        face_of = self.face_of
        for card in pile[length:]:
            counts[face_of[card]] += 1
        self._kept = (game._shuffles, len(pile))
        return counts

    def observe(self, game: Any, player: int, out: bytearray) -> None:
        # The hot path of the environment: a few writes, each a fact that changed.
        out[:] = self._start[player]
        face_of = self.face_of
        hand = game._hands[player]
        for card in hand:
            out[face_of[card]] += 1
        f = self._f
        out[f : 2 * f] = self._count_discards(game)
        out[self._top + face_of[game._discard[-1]]] = 1
        phase = _PHASES[game.phase._value_]
        out[self._phase + phase] = 1
        if phase == _DRAWN and game.current == player:
            out[self._drawn + face_of[hand[-1]]] = 1
        colour = game.colour
        if colour is not None:
            out[self._colour + colour] = 1
        at = self._direction
        out[at] = game.direction == 1
        pending = game.pending_draws
        if pending:
            out[at + 1] = min(255, pending)
        n = self.players
        at = self._sizes
        sizes = game.hand_sizes
        out[at : at + n] = bytes(sizes[player:] + sizes[:player])
        to_act = game.to_act
        if to_act is not None:
            out[at + n + (to_act - player) % n] = 1
        catchable = game.catchable
        if catchable is not None:
            out[at + 2 * n + (catchable - player) % n] = 1
        if self.party:
            self._observe_party(game, player, out)

    def _observe_party(self, game: Any, player: int, out: bytearray) -> None:
        at, n, face_of = self._pile, self.players, self.face_of
        for card in game._pile:
            out[at + face_of[card]] += 1
        at += len(self.faces)
        colour = game.pile_colour
        if colour is not None:
            out[at + colour] = 1
        at += 4
        links = game.links or ()
        pointed = game.pointing
        for k in range(n):
            seat = (player + k) % n
            out[at + k] = seat in links
            out[at + n + k] = seat in pointed
        out[at + 2 * n] = game.speed_window

    def rewards(self, game: Any) -> tuple[float, ...]:
        """+1 for the round's winner, -1 for every other player."""
        winner = game.outcome.winner
        return tuple(1.0 if p == winner else -1.0 for p in range(self.players))

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
player's hand and the public ones only. ``update`` keeps each player's
observation up to date from what changed (classic and Showdown: the game's
slots read by engine.uno.rl_kernel, compiled by ``make build``; Party!: its
properties, here); ``observe`` rebuilds it whole, the reference it is tested against.

>>> codec = make_codec("classic", 2)
>>> len(codec.actions[0]), codec.observation_size
(129, 239)
"""

from __future__ import annotations

import importlib.util
import os
from collections import Counter
from collections.abc import Callable
from itertools import combinations
from types import ModuleType
from typing import Any

from engine.uno import rl_kernel
from engine.uno.actions import Action
from engine.uno.cards import COLOUR_SHIFT, COLOURS, MAX_SHOWDOWN, WILD_COLOUR, Card, Rank
from engine.uno.game import Phase
from engine.uno.notation import PHASES
from engine.uno.rules import Variant

__all__ = ["UnoCodec", "make_codec", "KERNEL", "INTERPRETED_ENV"]

#: Set (to anything but 0) to run engine.uno.rl_kernel from its Python source
#: even where ``make build`` compiled it.
INTERPRETED_ENV = "UNO_RL_INTERPRETED"
_KERNEL_SOURCE = os.path.join(os.path.dirname(__file__), "rl_kernel.py")


def _chosen_kernel() -> ModuleType:
    """engine.uno.rl_kernel: its mypyc extension when built, current (not older
    than its source) and not refused by INTERPRETED_ENV; else its source."""
    built = rl_kernel.__file__ or ""
    if built.endswith(".py"):  # nothing built
        return rl_kernel
    refused = os.environ.get(INTERPRETED_ENV, "") not in ("", "0")
    if not refused and os.path.getmtime(built) >= os.path.getmtime(_KERNEL_SOURCE):
        return rl_kernel
    spec = importlib.util.spec_from_file_location("engine.uno._rl_kernel_source", _KERNEL_SOURCE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


#: The kernel classic's and Showdown's ``update`` runs (``_chosen_kernel``).
KERNEL = _chosen_kernel()

#: Phase number by the phase's value (a str: hashed faster than the member).
_PHASES = {phase.value: i for i, phase in enumerate(Phase)}
_DRAWN = _PHASES[Phase.DRAWN.value]
_PILE_UP, _DRAWN_TOGETHER = Rank.WILD_PILE_UP, Rank.WILD_DRAWN_TOGETHER
#: The "1 at" facts ``update`` moves: top card, phase, drawn card, colour, to act,
#: catchable, the mini pile's colour (Party! only).
_MARKS = 7
#: The phase as the game's slot holds it (engine.uno.game_state) -> its number here.
_CODE_OF_SLOT = [_PHASES[word] for word in PHASES]
_SLOT_DRAWN, _SLOT_PENALTY, _SLOT_OVER = (PHASES.index(w) for w in ("drawn", "penalty", "over"))
_SHOWDOWN_CODE = _PHASES[Phase.SHOWDOWN.value]


def make_codec(variant: str, players: int, house_rules: Any = None) -> UnoCodec:
    """UNO's codec for ``variant`` (classic, showdown, party) and ``players``."""
    return UnoCodec(Variant.named(variant), players)


class UnoCodec:
    """The encoding of one UNO variant for ``players`` (engine.rl.codec.Codec)."""

    # Slots: read on every step, and more than 30 attributes in an instance
    # dict would make each read slower (CPython's shared keys stop at 30).
    __slots__ = (
        "variant",
        "players",
        "party",
        "faces",
        "face_of",
        "actions",
        "index",
        "observation_size",
        "observation_high",
        "one_actor",
        "_f",
        "_hand",
        "_discard",
        "_top",
        "_drawn",
        "_colour",
        "_phase",
        "_direction",
        "_sizes",
        "_pile",
        "_start",
        "_kept",
        "_seen_hands",
        "_seen_piles",
        "_seen_seats",
        "_counted",
        "_marks",
        "_zero_faces",
        "_seats_of",
        "_classic",
        "update",
        "make_mask",
        "_discard_at",
        "_top_at",
        "_drawn_at",
        "_colour_at",
        "_phase_at",
    )

    #: ``player``'s kept observation brought up to date and returned (the codec's
    #: buffer, one byte longer than an observation: copy it to keep it); the
    #: environment's hot path (engine.rl.codec.Codec.update). Classic's and
    #: Showdown's is the kernel's (engine.uno.rl_kernel), Party!'s ``_update_party``.
    update: Callable[[Any, int], bytearray]
    #: engine.rl.codec.make_mask, compiled: the kernel's (every UNO variant).
    make_mask: Callable[[tuple[Any, ...], dict[Any, int], bytearray, Any], Any]

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
        #: Classic and Showdown wait for one player at a time, ``to_act`` (None
        #: while a showdown is pending); Party! has claims and everyone pointing.
        self.one_actor = not self.party
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
        # What ``update`` keeps of each player: the observation (and a spare byte,
        # where a mark that is nowhere points), the hand and mini pile counted,
        # the discards counted (shuffles, length) and where each mark's one is.
        self._kept = [bytearray(size + 1) for _ in range(n)]
        self._seen_hands: list[list[int]] = [[] for _ in range(n)]
        self._seen_piles: list[list[int]] = [[] for _ in range(n)]
        self._seen_seats: list[tuple[Any, ...] | None] = [None] * n  # links, pointing, speed
        self._counted = [[-1, 0] for _ in range(n)]
        self._marks = [[size] * _MARKS for _ in range(n)]
        self._zero_faces = bytes(f)
        #: For each player, where each seat's hand size goes (seats from the player).
        self._seats_of = [tuple((self._sizes + k, (p + k) % n) for k in range(n)) for p in range(n)]
        # Classic's and Showdown's update (engine.uno.rl_kernel): where a card, a
        # match key or a phase slot puts its one or count, and each player's
        # kept list (one lookup per update).
        self._discard_at = [-1 if i < 0 else f + i for i in self.face_of]
        self._top_at = [-1 if i < 0 else self._top + i for i in self.face_of]
        self._drawn_at = [-1 if i < 0 else self._drawn + i for i in self.face_of]
        self._colour_at = [
            size if key >> COLOUR_SHIFT == WILD_COLOUR else self._colour + (key >> COLOUR_SHIFT)
            for key in range((WILD_COLOUR + 1) << COLOUR_SHIFT)  # colour << COLOUR_SHIFT | rank
        ]
        self._phase_at = [self._phase + code for code in _CODE_OF_SLOT]
        self._classic: list[list[Any]] = [self._forget_classic(p) for p in range(n)]
        self._bind_update()

    def _bind_update(self) -> None:
        """Set ``update`` (Party!'s method, or a kernel over this codec's kept
        lists) and ``make_mask`` (the kernel's)."""
        self.make_mask = KERNEL.make_mask
        if self.party:
            self.update = self._update_party
            return
        tables = self.face_of, self._discard_at, self._top_at, self._drawn_at
        places = self._f, self.observation_size, self._phase + _SHOWDOWN_CODE, self._direction
        kept = KERNEL.ClassicKept(
            self._classic,
            (*tables, self._colour_at, self._phase_at),
            places,
            (_SLOT_DRAWN, _SLOT_PENALTY, _SLOT_OVER),
        )
        self.update = kept.update

    # A copy (deepcopy, pickle) carries the kept lists, not ``update`` and
    # ``make_mask``: the compiled kernel can be neither copied nor pickled, and
    # a shared one would write the original's lists. The copy binds its own.
    def __getstate__(self) -> dict[str, Any]:
        bound = ("update", "make_mask")
        return {name: getattr(self, name) for name in self.__slots__ if name not in bound}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)
        self._bind_update()

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
        """Write the scores (they change between rounds only) and forget what
        each player's kept observation held."""
        n, at, scores, target = (
            self.players,
            self._sizes + 3 * self.players,
            game.scores,
            game.target,
        )
        spare = self.observation_size
        start = []
        for player in range(n):
            out = bytearray(self.observation_size)
            for k in range(n):
                out[at + k] = min(255, max(0, scores[(player + k) % n] * 100 // target))
            start.append(bytes(out))
            self._kept[player][:spare] = out
            self._seen_hands[player] = []
            self._seen_piles[player] = []
            self._seen_seats[player] = None
            self._counted[player] = [-1, 0]
            self._marks[player] = [spare] * _MARKS
            self._classic[player] = self._forget_classic(player)
        self._start = start

    def _forget_classic(self, player: int) -> list[Any]:
        """Classic's kept list of ``player`` (engine.uno.rl_kernel's layout),
        nothing counted and every mark nowhere (at the spare byte)."""
        n, spare = self.players, self.observation_size
        to_act, catchable = self._sizes + n, self._sizes + 2 * n
        marks = rl_kernel.TO_ACT_AT - rl_kernel.TOP
        return [
            self._kept[player],
            [],  # the hand counted
            -1,  # the discards counted: shuffles, length
            0,
            *[spare] * marks,
            [to_act + (seat - player) % n for seat in range(n)],
            [catchable + (seat - player) % n for seat in range(n)],
            self._seats_of[player],
        ]

    def observe(self, game: Any, player: int, out: bytearray) -> None:
        """The full rebuild: every fact written afresh (``update`` keeps it up to date)."""
        out[:] = self._start[player]
        face_of = self.face_of
        hand = game._hands[player]
        for card in hand:
            out[face_of[card]] += 1
        f = self._f
        for card in game._discard:
            out[f + face_of[card]] += 1
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
            for card in game._pile:
                out[self._pile + face_of[card]] += 1
            colour = game.pile_colour
            if colour is not None:
                out[self._pile + f + colour] = 1
            self._observe_seats(game, player, out)

    def _observe_seats(self, game: Any, player: int, out: bytearray) -> None:
        at, n = self._pile + self._f + 4, self.players
        links = game.links or ()
        pointed = game.pointing
        for k in range(n):
            seat = (player + k) % n
            out[at + k] = seat in links
            out[at + n + k] = seat in pointed
        out[at + 2 * n] = game.speed_window

    def _count_hand(self, hand: list[int], seen: list[int], out: bytearray) -> list[int]:
        """Count ``hand`` into ``out`` where ``seen`` was counted; what is now
        counted. A card played (the engine removes it, the rest in order) or
        cards drawn (added at the end) are a write each; anything else a recount."""
        face_of = self.face_of
        known = len(seen)
        if len(hand) == known - 1 and (gone := sum(seen) - sum(hand)) in seen:
            seen.remove(gone)
            if seen == hand:
                out[face_of[gone]] -= 1
                return seen
        elif len(hand) > known and hand[:known] == seen:
            for card in hand[known:]:
                out[face_of[card]] += 1
            return hand[:]
        return self._recount(hand, out)

    def _recount(self, hand: list[int], out: bytearray) -> list[int]:
        """Count ``hand`` afresh into ``out``; what is now counted."""
        out[0 : self._f] = self._zero_faces
        face_of = self.face_of
        for card in hand:
            out[face_of[card]] += 1
        return hand[:]

    def _count_discards(self, game: Any, player: int, out: bytearray) -> None:
        """Count the discards added since ``player``'s last update (all of them
        after a shuffle took cards back)."""
        pile = game._discard
        counted = self._counted[player]
        length = counted[1]
        if counted[0] != game._shuffles or len(pile) < length:
            out[self._f : 2 * self._f] = self._zero_faces
            counted[0], length = game._shuffles, 0
        if len(pile) != length:
            f, face_of = self._f, self.face_of
            for card in pile[length:]:
                out[f + face_of[card]] += 1
            counted[1] = len(pile)

    def _update_party(self, game: Any, player: int) -> bytearray:
        """Party!'s kept observation, from the game's properties."""
        out = self._kept[player]
        face_of = self.face_of
        hand = game._hands[player]
        seen = self._seen_hands[player]
        if hand != seen:
            self._seen_hands[player] = self._count_hand(hand, seen, out)
        self._count_discards(game, player, out)
        marks = self._marks[player]
        # Each mark: where its one is (the spare byte past the end when nowhere).
        spare = self.observation_size
        phase = _PHASES[game.phase._value_]
        at = self._top + face_of[game._discard[-1]]
        if marks[0] != at:
            out[marks[0]], out[at], marks[0] = 0, 1, at
        at = self._phase + phase
        if marks[1] != at:
            out[marks[1]], out[at], marks[1] = 0, 1, at
        at = (
            self._drawn + face_of[hand[-1]] if phase == _DRAWN and game.current == player else spare
        )
        if marks[2] != at:
            out[marks[2]], out[at], marks[2] = 0, 1, at
        colour = game.colour
        at = spare if colour is None else self._colour + colour
        if marks[3] != at:
            out[marks[3]], out[at], marks[3] = 0, 1, at
        at = self._direction
        out[at] = game.direction == 1
        out[at + 1] = min(255, game.pending_draws)
        n = self.players
        at = self._sizes
        sizes = game.hand_sizes
        out[at : at + n] = bytes(sizes[player:] + sizes[:player])
        to_act = game.to_act
        at = spare if to_act is None else self._sizes + n + (to_act - player) % n
        if marks[4] != at:
            out[marks[4]], out[at], marks[4] = 0, 1, at
        catchable = game.catchable
        at = spare if catchable is None else self._sizes + 2 * n + (catchable - player) % n
        if marks[5] != at:
            out[marks[5]], out[at], marks[5] = 0, 1, at
        f = self._f
        pile = game._pile
        if pile != self._seen_piles[player]:
            out[self._pile : self._pile + f] = self._zero_faces
            for card in pile:
                out[self._pile + face_of[card]] += 1
            self._seen_piles[player] = pile[:]
        colour = game.pile_colour
        at = spare if colour is None else self._pile + f + colour
        if marks[6] != at:
            out[marks[6]], out[at], marks[6] = 0, 1, at
        seats = (game.links, game.pointing, game.speed_window)
        if seats != self._seen_seats[player]:
            self._observe_seats(game, player, out)
            self._seen_seats[player] = seats
        return out

    def rewards(self, game: Any) -> tuple[float, ...]:
        """+1 for the round's winner, -1 for every other player."""
        winner = game.outcome.winner
        return tuple(1.0 if p == winner else -1.0 for p in range(self.players))

"""What one UNO player may believe of the hidden cards, and worlds drawn from it.

A player sees their own hand, everyone's hand sizes and the discard pile. From
the turns between their own decisions they also learn *who could not play
what*: when those turns can be told apart (every card played since passed the
turn on, so each opponent had one turn, and its size says whether it played
from its hand, drew and played the drawn card, or drew and kept it), an
opponent that drew held nothing playable on the card it faced. ``Belief``
keeps those facts, built only from the ``PlayerView``s the player is shown,
and ``Belief.sample`` deals a world: every hidden hand and the draw pile,
consistent with everything public.

A fact covers the cards the opponent held when it was learnt; the ones that
opponent has played from its hand since cannot be told apart from the cards
drawn since, so each such play (each card played at all, when the turns cannot
be told apart) lowers the count of cards the fact still covers by one (a sound
relaxation: the true hand always satisfies what is kept). Kept cards are
ordered oldest first, so the facts nest: the oldest cards avoid every later
fact's playable cards too.

The facts assume opponents draw only when they must (the heuristic bot does;
a person may not): when a world cannot meet them all, the oldest facts are
dropped until it can. A belief that ``reads_plays`` also reads the plays as
HeuristicBot makes them: a Wild Draw Four only when its player held nothing of
the colour it covered (so a challenge of it fails; the turns are followed
through one played on another opponent, whose victim drew 4 or 6), a plain
wild while no one is near going out only when nothing coloured played
(``no_colour`` and ``no_coloured`` facts: a key above PLAYABLE's, see
``forbidden``), and a card drawn and kept as one it could not play (but a
wild, while no one is near going out): the fact of its draw then covers that
card too. A wild's named colour, when not on top, is the next card's. The
seats people play (``people``: the bot is told, engine.game.agents'
``tell_people``) are read for their draws only: a person may bluff a Wild
Draw Four or keep a wild.

>>> import random
>>> from engine.uno.game import Game
>>> from engine.uno.player_view import PlayerView
>>> game = Game.new(2, "classic", seed=7)
>>> belief = Belief(1)
>>> view = PlayerView(game, 1)
>>> belief.observe(view)
>>> hands, draw = belief.sample(view, random.Random(1))
>>> [len(h) for h in hands], len(draw) + 14 + len(view.discard_pile)
([7, 7], 108)
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Sequence

from engine.uno.actions import Action, ActionKind
from engine.uno.bots import HeuristicBot
from engine.uno.cards import COLOUR_MASK, COLOUR_SHIFT, RANK_MASK, WILD_COLOUR, Card, Rank
from engine.uno.game import Phase
from engine.uno.player_view import PlayerView
from engine.uno.playout import shuffle_as_random
from engine.uno.search_plays import SeenPlay
from engine.uno.tables import PLAYABLE, match_key

__all__ = ["Belief", "Fact", "forbidden", "no_colour", "no_coloured", "top_key"]

#: Sampling attempts before the oldest facts are dropped.
_TRIES = 4
#: The ranks after which a two-player turn passes: the numbers and the plain wild.
_TURN_PASSING_RANKS = frozenset({*(r for r in Rank if r <= Rank.NINE), Rank.WILD})
#: The action cards ``Belief._lap`` follows the turn through.
_LAP_RANKS = frozenset({Rank.SKIP, Rank.REVERSE, Rank.DRAW_TWO})
#: The cards played by others that ``Belief._lap`` follows: a Wild Draw Four too
#: (HeuristicBot's are honest, so its victim draws 4, or 6 on a challenge).
_LAPPED_RANKS = _TURN_PASSING_RANKS | _LAP_RANKS | {Rank.WILD_DRAW_FOUR}
_WILD_DRAW_FOUR_DRAWS = (4, 6)
#: The cards a Draw Two's next player draws.
_DRAW_TWO_CARDS = 2


#: Fact keys from here on are not PLAYABLE's: see ``no_coloured`` and ``no_colour``.
_NO_COLOURED = len(PLAYABLE)
_NO_COLOUR = 2 * len(PLAYABLE)
#: Hand size at which HeuristicBot may play a wild with a coloured card playable.
_NEAR_OUT = HeuristicBot.DANGER_CARDS
_FORBIDDEN: dict[int, list[bool]] = {}


def no_coloured(key: int) -> int:
    """The fact key "held no card but a wild playable on ``key``" (a match key)."""
    return _NO_COLOURED + key


def no_colour(colour: int) -> int:
    """The fact key "held no card of ``colour``"."""
    return _NO_COLOUR + colour


def forbidden(key: int) -> list[bool]:
    """By card code, the cards a fact of ``key`` says its owner did not hold:
    PLAYABLE[key] for a match key, the others as ``no_coloured`` and
    ``no_colour`` say.

    >>> from engine.uno.cards import Card, Colour
    >>> red_five = match_key(Colour.RED, Rank.FIVE)
    >>> [forbidden(k)[Card.parse("W")] for k in (red_five, no_coloured(red_five))]
    [True, False]
    >>> [forbidden(no_colour(Colour.RED))[Card.parse(c)] for c in ("R1", "B5", "W+4")]
    [True, False, False]
    """
    if key < _NO_COLOURED:
        return PLAYABLE[key]
    table = _FORBIDDEN.get(key)
    if table is None:
        size = len(PLAYABLE[0])
        colours = [code >> COLOUR_SHIFT & COLOUR_MASK for code in range(size)]
        if key < _NO_COLOUR:
            playable = PLAYABLE[key - _NO_COLOURED]
            table = [playable[c] and colours[c] != WILD_COLOUR for c in range(size)]
        else:
            table = [colours[c] == key - _NO_COLOUR for c in range(size)]
        _FORBIDDEN[key] = table
    return table


def top_key(view: PlayerView) -> int:
    """The match key of the card on top now (tables.match_key): its colour, the
    named one for a wild, and its rank."""
    colour = view.colour
    return match_key(WILD_COLOUR if colour is None else int(colour), int(view.top_card.rank))


@dataclasses.dataclass
class Fact:
    """An opponent held no card playable on ``key`` (a match key) when it had
    ``held`` cards; ``covers`` of the cards it holds now are still of those."""

    key: int
    held: int
    covers: int


class Belief:
    """One player's public knowledge of the hidden cards, fed each view they see."""

    def __init__(self, player: int, *, reads_plays: bool = False, remembers: bool = False):
        self.player = player
        self.reads_plays = reads_plays
        self.remembers = remembers
        #: The opponents' plays since this player's last decision (search_plays).
        self.plays: list[SeenPlay] = []
        #: With ``remembers``: by opponent, its plays of earlier laps, each with the
        #: cards it has played from its hand since; kept while it has drawn
        #: nothing since (so its hand then was its hand now plus those cards).
        self.older: dict[int, list[tuple[SeenPlay, list[int]]]] = {}
        self.facts: dict[int, list[Fact]] = {}
        self._round = -1
        self._after: tuple[int, int, int | None] | None = None  # pile length, top, colour
        self._passes = False  # our last decision passed the turn on plainly
        self._rank: int | None = None  # the rank of the card our last decision played
        self._direction = 1  # the direction at our last decision
        self._sizes: tuple[int, ...] = ()
        #: The seats people play: their plays are not read as HeuristicBot's
        #: (a Wild Draw Four always honest, a calm wild or a card drawn and kept
        #: only when nothing else played), since a person may bluff or keep one.
        self.people: frozenset[int] = frozenset()

    def __repr__(self) -> str:
        return f"Belief(player={self.player}, facts={self.facts})"

    # -- learning -----------------------------------------------------------------

    def observe(self, view: PlayerView) -> None:
        """Learn from what changed since this player's last decision."""
        pile = view.discard_pile
        if view.round != self._round or self._after is None or len(pile) < self._after[0]:
            self._reset(view)
            self._read_draw_four(view)
            return
        length, top, _ = self._after
        walk = self._walk(view) if pile[length - 1] == top else None
        if walk is None and self.reads_plays and pile[length - 1] == top:
            walk = self._lap(view)
        if self.remembers:
            self._remember(walk)
        self.plays = [] if walk is None else walk[2]
        if walk is None:
            # Who played what cannot be told: each play may have been a covered card.
            others_played = len(pile) - length
            for facts in self.facts.values():
                for fact in facts:
                    fact.covers -= others_played
        else:
            learnt, from_hand, _ = walk
            for p, facts in self.facts.items():
                for fact in facts:
                    fact.covers -= p in from_hand
            for p, fact in learnt:
                self.facts.setdefault(p, []).append(fact)
        for p, facts in self.facts.items():
            self.facts[p] = [f for f in facts if f.covers > 0]
        self._read_draw_four(view)
        self._sizes = view.hand_sizes

    def _remember(self, walk: tuple[object, dict[int, int], object] | None) -> None:
        """Move the last lap's plays to ``older`` and follow them through this
        lap (``walk``'s cards from each hand): an opponent that did not play a
        card from its hand (it drew, or had no turn), or a lap whose turns
        cannot be told apart, forgets them."""
        if walk is None:
            self.older = {}
            return
        for play in self.plays:
            self.older.setdefault(play.player, []).append((play, []))
        from_hand = walk[1]
        for p in list(self.older):
            if p in from_hand:
                for _, since in self.older[p]:
                    since.append(from_hand[p])
            else:
                del self.older[p]

    def draw_four_honest(self, view: PlayerView) -> bool:
        """Whether the Wild Draw Four this player faces was read as honest (the
        fact of ``_read_draw_four`` on its player's whole hand): then a
        challenge of it fails in every world."""
        pile = view.discard_pile
        if not self.reads_plays or view.phase is not Phase.PENALTY or len(pile) < 2:
            return False
        covered = pile[-2].colour
        if pile[-1].rank is not Rank.WILD_DRAW_FOUR or covered is None:
            return False
        offender = view.next_player(-1)
        facts = self.facts.get(offender, ())
        size = view.hand_sizes[offender]
        return any(f.key == no_colour(int(covered)) and f.covers >= size for f in facts)

    def _read_draw_four(self, view: PlayerView) -> None:
        """A Wild Draw Four this player faces, read as HeuristicBot's (when
        ``reads_plays``, and not a person's): its player holds nothing of the
        colour it covered."""
        pile = view.discard_pile
        if not self.reads_plays or view.phase is not Phase.PENALTY or len(pile) < 2:
            return
        covered = pile[-2].colour
        if pile[-1].rank is not Rank.WILD_DRAW_FOUR or covered is None:
            return
        offender = view.next_player(-1)
        if offender in self.people:
            return
        size = view.hand_sizes[offender]
        self.facts.setdefault(offender, []).append(Fact(no_colour(int(covered)), size, size))

    def _walk(
        self, view: PlayerView
    ) -> tuple[list[tuple[int, Fact]], dict[int, int], list[SeenPlay]] | None:
        """Each opponent's turn since our decision, when they can be told apart:
        our decision passed the turn on and every card played since did too
        (numbers, plain wilds), so each opponent had one turn in order and
        either played from its hand (one card fewer), drew and played the card
        it drew (as many), or drew and kept it (one more). Returns the facts
        learnt, the card each played from its hand (by player; none for a
        drawn card played) and those plays (on a top known); None when the
        sizes and the pile tell another story."""
        if self._after is None or not self._passes:
            return None
        length, _, colour = self._after
        pile = view.discard_pile
        played = pile[length:]
        if colour is None or any(c.showdown or c.rank not in _TURN_PASSING_RANKS for c in played):
            return None
        n, d = view.players, view.direction
        sizes = view.hand_sizes
        key: int | None = match_key(colour, pile[length - 1] & RANK_MASK)  # the top we left
        learnt: list[tuple[int, Fact]] = []
        from_hand: dict[int, int] = {}
        plays: list[SeenPlay] = []
        seen = 0
        then = list(self._sizes)  # the sizes as each opponent's turn came
        then[self.player] = sizes[self.player]
        for step in range(1, n):
            p = (self.player + step * d) % n
            change = sizes[p] - self._sizes[p]
            if change not in (-1, 0, 1):
                return None
            card = None
            if change <= 0:
                if seen == len(played):
                    return None
                card = played[seen]
                seen += 1
            after = played[seen] if seen < len(played) else None
            key = self._read_turn(
                view, p, change, card, after, key, then, d, learnt, from_hand, plays
            )
            then[p] = sizes[p]
        return (learnt, from_hand, plays) if seen == len(played) else None

    def _lap(
        self, view: PlayerView
    ) -> tuple[list[tuple[int, Fact]], dict[int, int], list[SeenPlay]] | None:
        """``_walk`` through Skips, Reverses and Draw Twos too (ours or theirs)
        and the opponents' Wild Draw Fours, when each opponent had at most one
        turn and the turn came back to us (we were not skipped, or we face the
        penalty now): a skipped player drew its penalty, if any, and had no
        turn; a Wild Draw Four's player held nothing of the colour it covered
        (HeuristicBot's are honest). Returns what ``_walk`` does; None when the
        sizes and the pile tell another story."""
        if self._after is None or not (self._passes or self._rank in _LAP_RANKS):
            return None
        length, _, colour = self._after
        pile = view.discard_pile
        played = pile[length:]
        if colour is None or any(c.showdown or c.rank not in _LAPPED_RANKS for c in played):
            return None
        n, me, sizes = view.players, self.player, view.hand_sizes
        d = self._direction
        key: int | None = match_key(colour, pile[length - 1] & RANK_MASK)  # the top we left
        then = list(self._sizes)  # the sizes as each opponent's turn came
        then[me] = sizes[me]
        skip, draws = self._effect(self._rank, n)
        if skip is None:
            d = -d
            skip = False
        learnt: list[tuple[int, Fact]] = []
        from_hand: dict[int, int] = {}
        plays: list[SeenPlay] = []
        turns: set[int] = set()
        seen, p = 0, me
        while True:
            p = (p + d) % n
            if p == me:
                facing = view.phase is Phase.PENALTY and seen == len(played)
                if skip and not facing:
                    return None  # we were skipped: the turn went round again
                break
            if p in turns:
                return None
            turns.add(p)
            if skip:
                if draws < 0:  # a Wild Draw Four's: accepted or challenged
                    draws = sizes[p] - then[p]
                    if draws not in _WILD_DRAW_FOUR_DRAWS:
                        return None
                then[p] += draws
                skip, draws = False, 0
                continue
            change = sizes[p] - self._sizes[p]
            if change not in (-1, 0, 1):
                return None
            card = None
            if change <= 0:
                if seen == len(played):
                    return None
                card = played[seen]
                seen += 1
            after = played[seen] if seen < len(played) else None
            key = self._read_turn(
                view, p, change, card, after, key, then, d, learnt, from_hand, plays
            )
            if card is not None:
                skip, draws = self._effect(int(card.rank), n)
                if skip is None:
                    d = -d
                    skip = False
            then[p] = sizes[p]
        if seen != len(played) or any(then[q] != sizes[q] for q in range(n)):
            return None
        return learnt, from_hand, plays

    def _read_turn(
        self,
        view: PlayerView,
        p: int,
        change: int,
        card: Card | None,
        after: Card | None,
        key: int | None,
        then: Sequence[int],
        d: int,
        learnt: list[tuple[int, Fact]],
        from_hand: dict[int, int],
        plays: list[SeenPlay],
    ) -> int | None:
        """What opponent ``p``'s turn says (``_walk``'s and ``_lap``'s), added to
        ``learnt``, ``from_hand`` and ``plays``: its size ``change``d by -1 (it
        played ``card`` from its hand), 0 (it drew and played ``card``) or 1 (it
        drew and kept it, ``card`` None) on a top of ``key`` (None: not known),
        ``after`` the card played next (None: ``card`` is on top). Returns the
        key of the top it left."""
        sizes = view.hand_sizes
        bot = p not in self.people  # what follows is read as HeuristicBot's
        if change >= 0 and key is not None:  # it drew: nothing it held played on key
            learnt.append((p, Fact(key, self._sizes[p], self._sizes[p])))
            if change > 0 and bot and self._keeps_unplayable(view):
                # HeuristicBot plays the card it drew when it can, but a calm wild.
                kept = no_coloured(key) if self._calm(p, then) else key
                learnt.append((p, Fact(kept, sizes[p], sizes[p])))
        if card is None:
            return key
        named = None  # a wild's colour, when the pile shows it: on top, or the next card's
        if card.colour is None:
            shown = view.colour if after is None else after.colour
            named = None if shown is None else int(shown)
        if change < 0:
            from_hand[p] = int(card)
            if key is not None:
                plays.append(SeenPlay(p, int(card), named, key, tuple(then), d))
                held = self._sizes[p] - 1
                if card.colour is None and bot and self._calm(p, then):
                    # HeuristicBot plays a wild then only when nothing coloured plays.
                    learnt.append((p, Fact(no_coloured(key), held, held)))
                covered = key >> COLOUR_SHIFT
                if card.rank is Rank.WILD_DRAW_FOUR and covered != WILD_COLOUR and bot:
                    learnt.append((p, Fact(no_colour(covered), held, held)))
        colour = int(card.colour) if card.colour is not None else named
        return None if colour is None else match_key(colour, int(card.rank))

    @staticmethod
    def _effect(rank: int | None, players: int) -> tuple[bool | None, int]:
        """What a card of ``rank`` (None: no card) does to the turn: whether it
        skips the next player (None: it reverses the direction) and the cards
        that player draws (-1: a Wild Draw Four's, 4 or 6)."""
        if rank == Rank.DRAW_TWO:
            return True, _DRAW_TWO_CARDS
        if rank == Rank.WILD_DRAW_FOUR:
            return True, -1  # 4, or 6 on a failed challenge: the sizes tell
        if rank == Rank.SKIP or (rank == Rank.REVERSE and players == 2):
            return True, 0
        if rank == Rank.REVERSE:
            return None, 0
        return False, 0

    def _keeps_unplayable(self, view: PlayerView) -> bool:
        """Whether ``reads_plays`` and a card drawn and kept was one its player
        could not play (HeuristicBot's, and one card drawn at a time)."""
        return self.reads_plays and not view.house_rules.draw_until_playable

    def _calm(self, opponent: int, sizes: Sequence[int]) -> bool:
        """Whether ``reads_plays`` and, by ``sizes``, no one but ``opponent`` is
        near going out (HeuristicBot's danger)."""
        if not self.reads_plays:
            return False
        return all(size > _NEAR_OUT for p, size in enumerate(sizes) if p != opponent)

    def decided(self, view: PlayerView, action: Action) -> None:
        """Remember what this player's own decision leaves on the table."""
        pile = view.discard_pile
        sizes = list(view.hand_sizes)
        colour = None if view.colour is None else int(view.colour)
        top = pile[-1]
        card = action.card
        kind = action.kind
        if kind is ActionKind.PLAY and card is not None:
            top = card
            colour = int(action.colour if action.colour is not None else card.colour)  # type: ignore[arg-type]
            self._passes = not card.showdown and card.rank in _TURN_PASSING_RANKS
            self._after = (len(pile) + 1, int(top), colour)
        else:
            if kind is ActionKind.CHOOSE_COLOUR and action.colour is not None:
                colour = int(action.colour)
            # A catch hands out cards and keeps the turn; a Wild Showdown's choice
            # hands out cards; naming a first wild's colour keeps the turn.
            self._passes = kind not in (
                ActionKind.CATCH,
                ActionKind.CHOOSE_SHOWDOWN,
                ActionKind.CHOOSE_COLOUR,
            )
            self._after = (len(pile), int(top), colour)
        self._sizes = tuple(sizes)
        self._rank = int(card.rank) if kind is ActionKind.PLAY and card is not None else None
        self._direction = view.direction

    def _reset(self, view: PlayerView) -> None:
        self.facts = {}
        self.plays = []
        self.older = {}
        self._round = view.round
        self._after = None
        self._passes = False
        self._rank = None
        self._sizes = view.hand_sizes

    # -- worlds -------------------------------------------------------------------

    def slot_keys(self, opponent: int, size: int) -> list[tuple[int, ...]]:
        """For each of ``opponent``'s ``size`` cards, oldest first, the match keys
        it must not be playable on (the nested facts)."""
        keys: list[list[int]] = [[] for _ in range(size)]
        reach = 0
        for fact in self.facts.get(opponent, ()):
            reach = min(max(reach, fact.covers), size)
            for slot in range(reach):
                keys[slot].append(fact.key)
        return [tuple(k) for k in keys]

    def sample(self, view: PlayerView, rng: random.Random) -> tuple[list[list[int]], list[int]]:
        """A world: every player's hand (this player's own as it is; the others
        dealt from the unseen cards) and the draw pile (next card last), which
        agrees with the sizes, the cards seen and the facts."""
        unseen = [int(c) for c, n in sorted(view.unseen_cards().items()) for _ in range(n)]
        sizes = view.hand_sizes
        opponents = [p for p in range(view.players) if p != self.player]
        while True:
            for _ in range(_TRIES):
                world = _deal(unseen, sizes, opponents, self.slot_keys, rng)
                if world is not None:
                    hands, draw = world
                    hands[self.player] = [int(c) for c in view.hand]
                    return hands, draw
            if not any(self.facts.values()):
                raise ValueError(f"no world fits sizes {sizes} and {len(unseen)} unseen cards")
            self._drop_oldest()

    def _drop_oldest(self) -> None:
        for p, facts in self.facts.items():
            self.facts[p] = facts[1:]


def _deal(
    unseen: Sequence[int],
    sizes: Sequence[int],
    opponents: Sequence[int],
    slot_keys: Callable[[int, int], list[tuple[int, ...]]],
    rng: random.Random,
) -> tuple[list[list[int]], list[int]] | None:
    """Deal the constrained slots first (most keys first), then the free ones; None
    when a slot finds no card it may hold."""
    pool = list(unseen)
    shuffle_as_random(pool, rng)  # rng.shuffle(pool), compiled
    hands: list[list[int]] = [[] for _ in sizes]
    slots = []
    for p in opponents:
        for keys in slot_keys(p, sizes[p]):
            slots.append((-len(keys), p, keys))
    slots.sort(key=lambda s: s[0])
    for _, p, keys in slots:
        if not keys:
            if not pool:
                return None
            hands[p].append(pool.pop())
            continue
        tables = [forbidden(k) for k in keys]
        for i in range(len(pool) - 1, -1, -1):
            card = pool[i]
            if not any(t[card] for t in tables):
                pool[i] = pool[-1]
                pool.pop()
                hands[p].append(card)
                break
        else:
            return None
    shuffle_as_random(pool, rng)  # the picks above chose by value: shuffle the rest again
    return hands, pool

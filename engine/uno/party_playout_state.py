"""An UNO Party! position on plain lists for the playouts, and Party!'s rules on it.

``PartyState`` copies a PartyGame (engine.uno.party) and plays its rules
(engine.uno.party_play, engine.uno.party_facts) on card codes: every player's
moves in the order ``legal_moves()`` lists them (``moves_of``; ``turn_count`` and
``nth_other`` count and index them without listing), and
what each move does (``apply``). A move is a plain tuple: its kind, then its
ints (the ``K_*`` kinds below), and ``action_of`` the game's Action it is.
engine.uno.party_playout chooses the moves.
"""

from __future__ import annotations

from engine.game.shuffle import seeded_shuffle
from engine.uno.actions import Action
from engine.uno.cards import (
    COLOUR_MASK,
    COLOUR_SHIFT,
    COLOURS,
    LAST_NUMBER_RANK,
    POINTS_BY_CODE,
    RANK_MASK,
    REAL_CARD,
    WILD_COLOUR,
    Rank,
)
from engine.uno.game import Phase
from engine.uno.party import PartyGame
from engine.uno.party_notation import NO_PART, WAITING
from engine.uno.party_rules import POINT_CAP, party_wild_draw_four_is_legal
from engine.uno.rules import HAND_SIZE, LOST_CHALLENGE_CARDS

__all__ = ["PartyState", "Move", "action_of"]

# The phases as ints.
PLAYING, DRAWN, PENALTY, CHOOSING, PILE, POINTING, OVER = range(7)
_PHASES = {
    Phase.PLAY: PLAYING,
    Phase.DRAWN: DRAWN,
    Phase.PENALTY: PENALTY,
    Phase.CHOOSE_COLOUR: CHOOSING,
    Phase.PILE: PILE,
    Phase.POINT: POINTING,
    Phase.ROUND_OVER: OVER,
}
# The moves' kinds: (K_SPEED, card, uno), (K_CATCH, target), (K_POINT, target),
# (K_PLAY, card, colour or -1, uno, link or None), (K_ADD, card, uno) a card
# added to a mini pile, (K_COLOUR, colour), and the bare kinds.
K_SPEED, K_CATCH, K_POINT, K_PLAY, K_ADD, K_DRAW, K_KEEP, K_CHALLENGE, K_ACCEPT = range(9)
K_COLOUR, K_TAKE = 9, 10
#: One move: its kind and its ints (see K_*).
Move = tuple[int, ...] | tuple[int, int, int, int, tuple[int, int] | None]
_DRAW, _KEEP, _CHALLENGE, _ACCEPT, _TAKE = (
    (K_DRAW,),
    (K_KEEP,),
    (K_CHALLENGE,),
    (K_ACCEPT,),
    (K_TAKE,),
)
_COLOURS = tuple((K_COLOUR, c) for c in range(4))

_DRAW_TWO, _REVERSE, _SKIP = int(Rank.DRAW_TWO), int(Rank.REVERSE), int(Rank.SKIP)
_WD4, _POINT_TAKEN = int(Rank.WILD_DRAW_FOUR), int(Rank.POINT_TAKEN)
_PILE_UP, _DRAWN_TOGETHER = int(Rank.WILD_PILE_UP), int(Rank.WILD_DRAWN_TOGETHER)


_CODES = [code for code, card in enumerate(REAL_CARD) if card is not None]
#: card code -> how many ways there are to play it on a turn (without UNO): 4
#: colours for a wild, 1 for a coloured card or a Wild Pile Up; 0 for a Wild
#: Drawn Together, whose ways depend on the links (``turn_count`` adds them).
_WAYS = [0] * len(REAL_CARD)
for _code in _CODES:
    if _code & RANK_MASK != _DRAWN_TOGETHER:
        _wild = _code >> COLOUR_SHIFT & COLOUR_MASK == WILD_COLOUR
        _WAYS[_code] = 4 if _wild and _code & RANK_MASK != _PILE_UP else 1
_DT_CODE = WILD_COLOUR << COLOUR_SHIFT | _DRAWN_TOGETHER
# The one way to play each such card (_WAYS 1), plain and with UNO, made once.
_ONE_WAY: list[Move] = [(K_PLAY, code, -1, 0, None) for code in range(len(REAL_CARD))]
_ONE_WAY_UNO: list[Move] = [(K_PLAY, code, -1, 1, None) for code in range(len(REAL_CARD))]
# Every card code by its colour field and by its rank: what playable_codes unites.
_BY_COLOUR: dict[int, frozenset[int]] = {}
_BY_RANK: dict[int, frozenset[int]] = {}
for _code in _CODES:
    _colour = _code >> COLOUR_SHIFT & COLOUR_MASK
    _BY_COLOUR[_colour] = _BY_COLOUR.get(_colour, frozenset()) | {_code}
    _BY_RANK[_code & RANK_MASK] = _BY_RANK.get(_code & RANK_MASK, frozenset()) | {_code}
# (colour in force, the top's rank or -1 for a wild top) -> the codes playable on it.
_PLAYABLE: dict[tuple[int, int], frozenset[int]] = {}


def playable_codes(colour: int, rank: int) -> frozenset[int]:
    """Every card code party_play.playable allows on ``colour`` and a top of ``rank``."""
    found = _PLAYABLE.get((colour, rank))
    if found is None:
        none: frozenset[int] = frozenset()
        found = _PLAYABLE[colour, rank] = (
            _BY_COLOUR[WILD_COLOUR] | _BY_COLOUR.get(colour, none) | _BY_RANK.get(rank, none)
        )
    return found


class PartyState:
    """A Party! match's position as lists and ints (PartyGame's fields, copied)."""

    __slots__ = (
        "n",
        "hands",
        "draw",
        "discard",
        "colour",
        "direction",
        "current",
        "phase",
        "pending",
        "wd4_legal",
        "catchable",
        "link",
        "pile",
        "out",
        "choices",
        "scores",
        "dealer",
        "round",
        "target",
        "seed",
        "shuffles",
        "house",
        "draw_closes_speed",
        "speed_out",
        "link_keep",
        "link_self",
        "distinct",
        "orders",
    )

    def __init__(self, game: PartyGame) -> None:
        g = game
        self.n = g._n
        self.hands = [hand[:] for hand in g._hands]
        self.draw = g._draw[:]
        self.discard = g._discard[:]
        self.colour = g._colour
        self.direction = g._direction
        self.current = g.current
        self.phase = _PHASES[g._phase]
        self.pending = g._pending
        self.wd4_legal = g._wd4_legal
        self.catchable = g._catchable
        self.link = g._link
        self.pile = g._pile[:]
        self.out = g._out
        self.choices = None if g._choices is None else g._choices[:]
        self.scores = g._scores[:]
        self.dealer = g._dealer
        self.round = g._round
        self.target = g._target
        self.seed = g._seed
        self.shuffles = g._shuffles
        house = self.house = g._house
        self.draw_closes_speed = house.draw_closes_speed
        self.speed_out = house.speed_out
        self.link_keep = house.relink == "keep"
        self.link_self = house.link_self
        #: How many different cards each hand holds (its speed plays), kept as hands change.
        self.distinct = [len(set(hand)) for hand in self.hands]
        #: Each hand's distinct cards in the order they first appear (its speed
        #: plays' order), kept through cards added at the end and taken out;
        #: None: to be read anew (``order_of``).
        self.orders: list[list[int] | None] = [None] * self.n

    # -- the round's end and the next deal (PartyFacts._end_round, PartyGame._deal) ---

    def points(self) -> int:
        winner = self.current
        return sum(
            POINTS_BY_CODE[c] for p, hand in enumerate(self.hands) if p != winner for c in hand
        )

    def match_winner(self) -> int | None:
        scores = self.scores
        best = max(range(self.n), key=scores.__getitem__)
        return best if scores[best] >= self.target else None

    def end_round(self, winner: int) -> None:
        if self.pile:  # set aside under the top discard; it scores for no one
            self.discard[-1:-1] = self.pile
            self.pile = []
        self.current = winner
        self.scores[winner] += self.points()
        self.phase = OVER
        self.catchable, self.pending, self.wd4_legal = -1, 0, None
        self.out, self.choices = None, None

    def next_round(self) -> None:
        cards = sorted([c for h in self.hands for c in h] + self.draw + self.discard + self.pile)
        n = self.n
        self.dealer = (self.dealer + 1) % n
        self.round += 1
        self.shuffle(cards)
        first = (self.dealer + 1) % n
        hands: list[list[int]] = [[] for _ in range(n)]
        for i in range(n):
            hands[(first + i) % n] = cards[-HAND_SIZE:][::-1]
            del cards[-HAND_SIZE:]
        self.hands = hands
        self.distinct = [len(set(hand)) for hand in hands]
        self.orders = [None] * n
        self.draw, self.discard = cards, [cards.pop()]
        self.direction, self.pending, self.wd4_legal, self.catchable = 1, 0, None, -1
        self.link, self.pile, self.out, self.choices = None, [], None, None
        self.current, self.phase = first, PLAYING
        top = self.discard[-1]
        if self.house.first_action == "flip":
            while not _is_number(top) and self.draw:
                top = self.draw.pop()
                self.discard.append(top)
        elif not _is_number(top) and self.draw:
            top = self.draw.pop()
            self.discard.append(top)
        self.colour = top >> COLOUR_SHIFT & COLOUR_MASK
        if self.colour == WILD_COLOUR:
            self.phase = CHOOSING

    def shuffle(self, cards: list[int]) -> None:
        seeded_shuffle(cards, seed=self.seed, count=self.shuffles)
        self.shuffles += 1

    # -- the moves, in legal_moves()'s order ------------------------------------------

    def catch_target(self) -> int:
        """Who may be caught now (PartyFacts.catchable), -1 for nobody."""
        target = self.catchable
        if target < 0 or len(self.hands[target]) != 1 or self.phase == OVER:
            return -1
        return target

    def window(self) -> bool:
        """PartyFacts.speed_window: a number card on top, in a turn's play."""
        phase = self.phase
        if not (phase == PLAYING or (phase == DRAWN and not self.draw_closes_speed)):
            return False
        top = self.discard[-1]
        return top >> COLOUR_SHIFT & COLOUR_MASK != WILD_COLOUR and top & RANK_MASK <= 9

    def turn_count(self, p: int, target: int) -> int:
        """How many moves the player to act, ``p``, has in a turn's play
        (``len(moves_of(p, ...))`` without listing them)."""
        hand = self.hands[p]
        top = self.discard[-1]
        rank = top & RANK_MASK if top >> COLOUR_SHIFT & COLOUR_MASK != WILD_COLOUR else -1
        cards = list(filter(playable_codes(self.colour, rank).__contains__, self.order_of(p)))
        ways = sum(map(_WAYS.__getitem__, cards))
        if _DT_CODE in cards:
            links = self.links(p)
            ways += 4 * max(1, len(links))
        return ways * (2 if len(hand) == 2 else 1) + (target >= 0 and target != p) + 1

    def nth_turn(self, p: int, i: int, target: int) -> Move:
        """``moves_of(p, ...)[i]`` for ``p`` to act in a turn's play, without
        listing them: each playable card's ways (then each with UNO), a catch, draw."""
        hand = self.hands[p]
        top = self.discard[-1]
        rank = top & RANK_MASK if top >> COLOUR_SHIFT & COLOUR_MASK != WILD_COLOUR else -1
        uno_too = len(hand) == 2
        for card in filter(playable_codes(self.colour, rank).__contains__, self.order_of(p)):
            ways = _WAYS[card]
            links: list[tuple[int, int]] = []
            if card == _DT_CODE:
                links = self.links(p)
                ways = 4 * max(1, len(links))
            block = 2 * ways if uno_too else ways
            if i >= block:
                i -= block
                continue
            uno, way = divmod(i, ways)
            if ways == 1:
                return _ONE_WAY_UNO[card] if uno else _ONE_WAY[card]
            if not links:
                return (K_PLAY, card, way, uno, None)
            colour, at = divmod(way, len(links))
            return (K_PLAY, card, colour, uno, links[at])
        if i == 0 and target >= 0 and target != p:
            return (K_CATCH, target)
        return _DRAW

    def nth_other(self, p: int, i: int, window: bool, target: int) -> Move:
        """``moves_of(p, window, target)[i]`` for ``p`` not the player to act,
        outside the pointing: the i-th distinct card's speed play of a hand of
        three or more, without listing the others."""
        hand = self.hands[p]
        if window and hand:
            if len(hand) > 2:
                if i < self.distinct[p]:
                    return (K_SPEED, self.order_of(p)[i], 0)
                return (K_CATCH, target)
            return self.moves_of(p, window, target)[i]
        return (K_CATCH, target)

    def moves_of(self, p: int, window: bool, target: int) -> list[Move]:
        """``p``'s moves (party_play.legal_for's, in its order)."""
        phase = self.phase
        if phase == OVER:
            return []
        catch: list[Move] = [(K_CATCH, target)] if target >= 0 and target != p else []
        hands = self.hands
        hand = hands[p]
        if phase == POINTING:
            assert self.choices is not None
            points: list[Move] = []
            if self.choices[p] == WAITING:
                points = [(K_POINT, t) for t in range(self.n) if t != p and hands[t]]
            return points + catch
        if p != self.current:
            moves: list[Move] = []
            if window and hand:
                top = self.discard[-1]
                for card in self.order_of(p):
                    right = card == top
                    if right and len(hand) == 1 and not self.speed_out:
                        continue
                    moves.append((K_SPEED, card, 0))
                    if right and len(hand) == 2:
                        moves.append((K_SPEED, card, 1))
            return moves + catch
        uno_too = len(hand) == 2
        if phase == PLAYING:
            moves = []
            top = self.discard[-1]
            # A coloured top's rank matches; a wild's matches nothing (playable()).
            rank = top & RANK_MASK if top >> COLOUR_SHIFT & COLOUR_MASK != WILD_COLOUR else -1
            playable = playable_codes(self.colour, rank).__contains__
            for card in filter(playable, self.order_of(p)):
                if _WAYS[card] == 1:  # a coloured card or a Wild Pile Up: one way
                    moves.append(_ONE_WAY[card])
                    if uno_too:
                        moves.append(_ONE_WAY_UNO[card])
                else:
                    moves += self.card_plays(p, card, uno_too)
            return [*moves, *catch, _DRAW]
        if phase == DRAWN:
            return [*self.card_plays(p, hand[-1], uno_too), _KEEP, *catch]
        if phase == PENALTY:
            return [_CHALLENGE, _ACCEPT, *catch]
        if phase == CHOOSING:
            return list(_COLOURS)
        # The mini pile: add a card of its colour or a wild, or take it.
        pile_colour = self.pile_colour()
        moves = []
        for card in self.order_of(p):
            if card >> COLOUR_SHIFT & COLOUR_MASK in (WILD_COLOUR, pile_colour):
                moves.append((K_ADD, card, 0))
                if uno_too:
                    moves.append((K_ADD, card, 1))
        if not moves or self.house.pile_refuse:
            moves.append(_TAKE)
        return moves + catch

    def playable(self, card: int) -> bool:
        colour = card >> COLOUR_SHIFT & COLOUR_MASK
        if colour == WILD_COLOUR or colour == self.colour:
            return True
        top = self.discard[-1]
        return (
            top >> COLOUR_SHIFT & COLOUR_MASK != WILD_COLOUR and top & RANK_MASK == card & RANK_MASK
        )

    def card_plays(self, p: int, card: int, uno_too: bool) -> list[Move]:
        """party_play.card_plays: each way to play ``card``, then each with UNO."""
        rank = card & RANK_MASK
        moves: list[Move] = []
        for uno in (0, 1) if uno_too else (0,):
            if rank == _PILE_UP:
                moves.append((K_PLAY, card, -1, uno, None))
            elif rank == _DRAWN_TOGETHER:
                links = self.links(p)
                for colour in range(4):
                    if not links:
                        moves.append((K_PLAY, card, colour, uno, None))
                    moves += [(K_PLAY, card, colour, uno, link) for link in links]
            elif card >> COLOUR_SHIFT & COLOUR_MASK == WILD_COLOUR:
                moves += [(K_PLAY, card, colour, uno, None) for colour in range(4)]
            else:
                moves.append((K_PLAY, card, -1, uno, None))
        return moves

    def links(self, p: int) -> list[tuple[int, int]]:
        if self.link is not None and self.link_keep:
            return []  # the first link stays: the card names its colour only
        n = self.n
        every = self.link_self
        return [(a, b) for a in range(n) for b in range(a + 1, n) if every or p not in (a, b)]

    def pile_colour(self) -> int | None:
        for card in self.pile:
            colour = card >> COLOUR_SHIFT & COLOUR_MASK
            if colour != WILD_COLOUR:
                return colour
        return None

    # -- what a move does (party_play.apply_action) -----------------------------------

    def apply(self, p: int, move: Move) -> None:
        kind = move[0]
        if self.catchable >= 0 and kind != K_CATCH and kind != K_POINT:
            self.catchable = -1  # any other decision closes the UNO window
        if kind == K_SPEED:
            self.speed(p, move[1], move[2])
        elif kind == K_PLAY:
            link = move[4]
            assert not isinstance(link, int)
            self.play(p, move[1], move[2], move[3], link)
        elif kind == K_DRAW:
            self.draw_instead(p)
        elif kind == K_KEEP:
            self.current, self.phase = self.next(p), PLAYING
        elif kind == K_CATCH:
            self.draw_cards(move[1], self.house.uno_penalty)
            self.catchable = -1
        elif kind == K_POINT:
            assert self.choices is not None
            self.choices[p] = move[1]
            if WAITING not in self.choices:
                self.resolve_pointing()
        elif kind == K_ADD:
            self.add_to_pile(p, move[1], move[2])
        elif kind == K_TAKE:
            self.take(p)
        elif kind == K_ACCEPT:
            self.accept(p)
        elif kind == K_CHALLENGE:
            self.challenge(p)
        else:
            self.colour, self.phase = move[1], PLAYING

    def remove(self, p: int, hand: list[int], card: int) -> None:
        hand.remove(card)
        order = self.orders[p]
        if card not in hand:
            self.distinct[p] -= 1
            if order is not None:
                order.remove(card)
        elif order is not None:
            # Another one now comes first: after the distinct cards before it.
            order.remove(card)
            order.insert(len(set(hand[: hand.index(card)])), card)

    def order_of(self, p: int) -> list[int]:
        """``p``'s distinct cards in the order they first appear in the hand."""
        order = self.orders[p]
        if order is None:
            order = self.orders[p] = list(dict.fromkeys(self.hands[p]))
        return order

    def next(self, player: int, steps: int = 1) -> int:
        return (player + steps * self.direction) % self.n

    def draw_cards(self, player: int, count: int, linked: bool = True) -> int:
        hand = self.hands[player]
        draw = self.draw
        at = len(hand) - 1 if self.phase == DRAWN and player == self.current else -1
        drawn = 0
        for _ in range(count):
            if not draw and not self.reshuffle():
                break
            card = draw.pop()
            new = card not in hand
            if new:
                self.distinct[player] += 1
            if at < 0:
                hand.append(card)
                order = self.orders[player]
                if new and order is not None:
                    order.append(card)
            else:
                hand.insert(at, card)  # under the card just drawn
                self.orders[player] = None
                at += 1
            drawn += 1
        link = self.link
        if linked and drawn and link is not None and player in link:
            other = link[0] + link[1] - player
            if self.hands[other]:  # a player who has gone out draws nothing more
                self.draw_cards(other, drawn, linked=False)
        return drawn

    def reshuffle(self) -> bool:
        discard = self.discard
        if len(discard) < 2:
            return False
        rest = discard[:-1]
        del discard[:-1]
        self.shuffle(rest)
        self.draw.extend(rest)
        return True

    def play(self, p: int, card: int, colour: int, uno: int, link: tuple[int, int] | None) -> None:
        hand = self.hands[p]
        rank = card & RANK_MASK
        colour_before = self.colour
        self.remove(p, hand, card)
        self.discard.append(card)
        if len(hand) == 1 and not uno:
            self.catchable = p
        out = not hand
        self.phase = PLAYING
        if rank <= LAST_NUMBER_RANK:
            self.colour = card >> COLOUR_SHIFT & COLOUR_MASK
            self.current = (p + self.direction) % self.n
            if out:
                self.end_round(p)
            return
        self.colour = card >> COLOUR_SHIFT & COLOUR_MASK if colour < 0 else colour
        if rank == _PILE_UP:
            self.colour = colour_before
            if self.play_pile_up(p, out):
                return
        elif rank == _DRAWN_TOGETHER and link is not None:
            self.link = link
        elif rank == _POINT_TAKEN:
            self.open_pointing(p)
            return
        elif rank == _WD4:
            self.wd4_legal = party_wild_draw_four_is_legal(
                hand, colour_before, self.house.wd4_all_wilds
            )
            self.pending = 4
            self.current, self.phase = self.next(p), PENALTY
            return
        steps = 1
        if rank == _REVERSE:
            if self.n == 2:
                steps = 2
            else:
                self.direction = -self.direction
        elif rank == _SKIP:
            steps = 2
        elif rank == _DRAW_TWO:
            self.draw_cards(self.next(p), 2)
            steps = 2
        self.current = self.next(p, steps)
        if out:
            self.end_round(p)

    def speed(self, p: int, card: int, uno: int) -> None:
        hand = self.hands[p]
        if card != self.discard[-1]:  # wrong: the card stays, the player draws one
            self.draw_cards(p, 1)
            return
        self.remove(p, hand, card)
        self.discard.append(card)
        if len(hand) == 1 and not uno:
            self.catchable = p
        self.current, self.phase = self.next(p), PLAYING
        if not hand:
            self.end_round(p)

    def draw_instead(self, p: int) -> None:
        limit = self.house.DRAW_UNTIL_MAX if self.house.draw_until_playable else 1
        hand = self.hands[p]
        drawn = 0
        found = False
        while drawn < limit:
            if not self.draw_cards(p, 1, linked=False):
                break
            drawn += 1
            if self.playable(hand[-1]):
                found = True
                break
        link = self.link
        if drawn and link is not None and p in link:
            self.draw_cards(link[0] + link[1] - p, drawn, linked=False)
        if found:
            self.phase = DRAWN
        else:
            self.current = self.next(p)

    def accept(self, p: int) -> None:
        offender = self.next(p, -1)
        self.draw_cards(p, self.pending)
        self.pending, self.wd4_legal = 0, None
        self.current, self.phase = self.next(p), PLAYING
        if not self.hands[offender]:
            self.end_round(offender)

    def challenge(self, p: int) -> None:
        offender = self.next(p, -1)
        legal, self.wd4_legal = self.wd4_legal, None
        pending, self.pending = self.pending, 0
        self.phase = PLAYING
        if not legal:
            self.draw_cards(offender, pending)  # the challenger then plays their turn
            return
        self.draw_cards(p, pending + LOST_CHALLENGE_CARDS)
        self.current = self.next(p)
        if not self.hands[offender]:
            self.end_round(offender)

    # -- Point Taken ------------------------------------------------------------------

    def open_pointing(self, p: int) -> None:
        holding = sum(1 for hand in self.hands if hand)
        pointer_points = self.house.pointer_points
        choices: list[int | str] = [
            WAITING if (q != p or pointer_points) and holding - (1 if hand else 0) > 0 else NO_PART
            for q, hand in enumerate(self.hands)
        ]
        self.choices = choices
        self.current, self.phase = p, POINTING
        if WAITING not in choices:
            self.resolve_pointing()

    def resolve_pointing(self) -> None:
        choices = self.choices
        assert choices is not None
        n = self.n
        own = [min(sum(1 for c in choices if c == q), POINT_CAP) for q in range(n)]
        extra = [0] * n
        if self.link is not None:
            a, b = self.link
            extra[a], extra[b] = own[b], own[a]
            if self.house.cap_linked:
                extra[a] = min(extra[a], POINT_CAP - own[a])
                extra[b] = min(extra[b], POINT_CAP - own[b])
        pointer = self.current
        self.choices, self.phase = None, PLAYING
        for q in range(n):
            if self.hands[q] or q != pointer:
                self.draw_cards(q, own[q] + extra[q], linked=False)
        self.current = self.next(pointer)
        if not self.hands[pointer]:
            self.end_round(pointer)

    # -- Wild Pile Up -----------------------------------------------------------------

    def play_pile_up(self, p: int, out: bool) -> bool:
        if out and self.house.pile_out == "at_once":
            self.end_round(p)
            return True
        if not self.start_pile():
            return False
        if out:
            self.out = p
        nxt = self.next_in_pile(p)
        if nxt is None:
            self.end_round(p)
        else:
            self.current, self.phase = nxt, PILE
        return True

    def start_pile(self) -> bool:
        flipped: list[int] = []
        while self.draw or self.reshuffle():
            card = self.draw.pop()
            colour = card >> COLOUR_SHIFT & COLOUR_MASK
            if colour != WILD_COLOUR:
                if self.house.pile_wilds:
                    self.pile = [*flipped, card]
                else:
                    self.discard[-1:-1] = flipped
                    self.pile = [card]
                self.colour = colour
                return True
            flipped.append(card)
        self.discard[-1:-1] = flipped
        return False

    def next_in_pile(self, p: int) -> int | None:
        for steps in range(1, self.n + 1):
            q = self.next(p, steps)
            if self.hands[q] and q != p:
                return q
        return None

    def add_to_pile(self, p: int, card: int, uno: int) -> None:
        hand = self.hands[p]
        self.remove(p, hand, card)
        self.pile.append(card)
        if len(hand) == 1 and not uno:
            self.catchable = p
        if not hand:
            if self.house.pile_out == "at_once":
                self.end_round(p)
                return
            if self.out is None:
                self.out = p
        nxt = self.next_in_pile(p)
        if nxt is None:  # nobody left to take it
            assert self.out is not None
            self.end_round(self.out)
        else:
            self.current = nxt

    def take(self, p: int) -> None:
        pile, self.pile = self.pile, []
        self.hands[p] += pile
        self.distinct[p] = len(set(self.hands[p]))
        self.orders[p] = None
        link = self.link
        if self.house.pile_is_draw and link is not None and p in link:
            other = link[0] + link[1] - p
            if self.hands[other]:
                self.draw_cards(other, len(pile), linked=False)
        self.current, self.phase = self.next(p), PLAYING
        if self.out is not None:
            winner, self.out = self.out, None
            self.end_round(winner)


# -- the moves as the game's Actions (a playout's log) ----------------------------------

_PLAIN = {K_DRAW: Action.draw(), K_KEEP: Action.keep(), K_TAKE: Action.take()}
_PLAIN[K_CHALLENGE], _PLAIN[K_ACCEPT] = Action.challenge(), Action.accept()


def action_of(move: Move) -> Action:
    """The Action a move is (for a playout's log)."""
    kind = move[0]
    if kind == K_SPEED:
        return Action.speed(REAL_CARD[move[1]], uno=bool(move[2]))
    if kind == K_PLAY:
        colour = move[2]
        link = move[4]
        assert not isinstance(colour, tuple) and not isinstance(link, int)
        return Action.play(
            REAL_CARD[move[1]],
            None if colour < 0 else COLOURS[colour],
            uno=bool(move[3]),
            link=link,
        )
    if kind == K_ADD:
        return Action.play(REAL_CARD[move[1]], uno=bool(move[2]))
    if kind == K_CATCH:
        return Action.catch(move[1])
    if kind == K_POINT:
        return Action.point(move[1])
    if kind == K_COLOUR:
        return Action.choose_colour(COLOURS[move[1]])
    return _PLAIN[kind]


def _is_number(card: int) -> bool:
    return card >> COLOUR_SHIFT & COLOUR_MASK != WILD_COLOUR and card & RANK_MASK <= 9

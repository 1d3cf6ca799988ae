"""The search bot's own later decisions, searched as it plays out (``Plan.depth``).

The flat search (engine.uno.search_bot) tries each candidate once per world
and plays the rest of the round out with every player as HeuristicBot, itself
included. With a ``depth``, each candidate keeps a tree of the bot's next
``depth`` turns to play, keyed by the plays it chose at the turns before
(open loop: a turn's node is shared by every world in which the bot came to
it by the same choices, whatever it holds there). At such a turn it chooses
by UCB1 among the plays it holds in this world (information-set MCTS's
"subset-armed" bandit: each play counts the visits in which it was on
offer), the heuristic's play first; after the last searched turn and for
every other player the playout is the heuristic's (engine.uno.playout's
``PlayerTurns``). So the value of a candidate is that of playing it and then
playing the next turns as well as the playouts have found so far, rather
than as the heuristic would.

>>> import random
>>> from engine.uno.game import Game
>>> game = Game.new(4, "classic", seed=7)
>>> tree = Node()
>>> values = [play_out_searching(game, random.Random(i), 0, tree, 2, 400) for i in range(20)]
>>> set(values) <= {0.0, 1.0}, sum(s.visits for s in tree.stats.values()) <= 20
(True, True)
"""

from __future__ import annotations

import math
import random

from engine.uno.cards import COLOUR_MASK, COLOUR_SHIFT, WILD_COLOUR
from engine.uno.game import Game
from engine.uno.playout import PlayerTurns
from engine.uno.playout_codes import CARD_BITS, COLOUR_SHIFT_PLAY, UNO_BIT
from engine.uno.playout_heuristic import best_colour

__all__ = ["Node", "Arm", "play_out_searching", "turn_candidates", "choose", "EXPLORE"]

#: UCB1's exploration constant (values are 1 for a round won, else 0).
EXPLORE = 0.5


class Arm:
    """One play at a node: its summed ``value``, its ``visits`` and the visits
    in which it was ``offered`` (held and legal)."""

    __slots__ = ("value", "visits", "offered")

    def __init__(self) -> None:
        self.value = 0.0
        self.visits = 0
        self.offered = 0


class Node:
    """A turn of the bot's, reached by the same choices at the turns before:
    its plays' ``stats`` and the ``children`` its choices lead to."""

    __slots__ = ("stats", "children")

    def __init__(self) -> None:
        self.stats: dict[int, Arm] = {}
        self.children: dict[int, Node] = {}


def turn_candidates(plays: list[int], hand: list[int]) -> list[int]:
    """The plays worth searching at a turn, as the flat search's candidates:
    UNO always called, a wild with the colour the heuristic would name.

    >>> from engine.uno.cards import Card
    >>> from engine.uno.playout_codes import PLAYS, PLAYS_UNO
    >>> hand = [int(Card.parse(c)) for c in ("W", "B1", "B2")]
    >>> [str(Card(c & CARD_BITS)) for c in turn_candidates(list(PLAYS[hand[0]]), hand)]
    ['W']
    >>> two = [int(Card.parse(c)) for c in ("R5", "B1")]
    >>> len(turn_candidates(list(PLAYS_UNO[two[0]]), two))
    1
    """
    if len(hand) == 2:
        plays = [a for a in plays if a & UNO_BIT]
    out = []
    named: dict[int, int] = {}  # by wild card: the colour the heuristic names
    for play in plays:
        card = play & CARD_BITS
        if card >> COLOUR_SHIFT & COLOUR_MASK == WILD_COLOUR:
            if card not in named:
                rest = list(hand)
                rest.remove(card)
                named[card] = best_colour(rest)
            if play >> COLOUR_SHIFT_PLAY & COLOUR_MASK != named[card]:
                continue
        out.append(play)
    return out


def choose(node: Node, plays: list[int], heuristic: int) -> int:
    """UCB1 among ``plays`` (each counted as offered): the ``heuristic``'s
    play until it has been tried, then any play not yet tried, then the most
    promising, ``EXPLORE`` weighing how seldom a play was tried against how
    often it was on offer.

    >>> node = Node()
    >>> choose(node, [1, 2], 2), node.stats[2].offered
    (2, 1)
    >>> node.stats[2].visits = 1
    >>> choose(node, [1, 2], 2)
    1
    """
    stats = node.stats
    for play in plays:
        arm = stats.get(play)
        if arm is None:
            arm = stats[play] = Arm()
        arm.offered += 1
    if stats[heuristic].visits == 0:
        return heuristic
    best, best_score = heuristic, -math.inf
    for play in plays:
        arm = stats[play]
        if arm.visits == 0:
            return play
        score = arm.value / arm.visits + EXPLORE * math.sqrt(math.log(arm.offered) / arm.visits)
        if score > best_score:
            best, best_score = play, score
    return best


def play_out_searching(
    game: Game, rng: random.Random, me: int, root: Node, depth: int, limit: int
) -> float:
    """``game`` (unchanged) played out by the heuristic but for ``me``'s next
    ``depth`` turns, chosen in the tree under ``root``; the tree learns the
    value (1 if ``me`` won, else 0; 0 too for a playout stopped after
    ``limit`` decisions), which is returned."""
    turns = PlayerTurns(game, me, rng, limit)
    path: list[Arm] = []
    node = root
    plays = turns.next_turn(stop=depth > 0)
    while plays is not None:
        options = turn_candidates(plays, turns.hand)
        if len(options) == 1:
            choice = options[0]
        else:
            choice = choose(node, options, turns.heuristic(plays))
            path.append(node.stats[choice])
            child = node.children.get(choice)
            if child is None:
                child = node.children[choice] = Node()
            node = child
        plays = turns.next_turn(choice, stop=len(path) < depth)
    value = 1.0 if turns.winner == me else 0.0
    for arm in path:
        arm.value += value
        arm.visits += 1
    return value

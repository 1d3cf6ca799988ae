"""UNO Party!'s decisions for the bots of :mod:`engine.uno.bots`.

The bots' classes stay in bots.py; this module holds what they do in a Party!
game, each a function of a ``PlayerView`` (so of what the player may see):

- ``heuristic_act``: the heuristic bot's own decisions (its turn, the pile, the
  pointing, a Wild Draw Four's challenge);
- ``heuristic_react``: its out-of-turn claims (a catch, then a right speed play);

The heuristic bot in Party! plays as in classic (see ``HeuristicBot``), and:

- claims every right speed play (calling UNO with it when it leaves one card)
  and every catch, out of turn; never a wrong speed play;
- plays a Wild Draw Four only when it is legal in Party! (no card of the colour
  in force and no Wild in hand; with ``wd4_all_wilds`` no Wild Pile Up or Wild
  Drawn Together either), and challenges one as classic, counting the unseen
  Wilds with the covered colour;
- keeps Wild Pile Up and Wild Drawn Together like a Wild (played when nothing
  else matches or an opponent is about to go out), Point Taken like Draw Two
  (played when an opponent is about to go out, else kept);
- links (Wild Drawn Together) the two opponents with the fewest cards (ties:
  the higher score, then the lower seat), so what one of the leaders draws the
  other draws too; itself only when there are no two opponents;
- points at the opponent closest to going out (fewest cards, then highest
  score, then lowest seat), never at its own link partner unless nobody else
  can be pointed at;
- adds to a mini pile the card it least needs: a number card of the pile's
  colour (highest first), then an action card of it, then a wild (Wild, Wild
  Drawn Together, Wild Pile Up, Wild Draw Four, in that order); takes the pile
  only when it cannot add.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Protocol

from engine.uno.actions import Action, ActionKind
from engine.uno.cards import Card, Colour, Rank
from engine.uno.game import Phase
from engine.uno.player_view import PlayerView


class HeuristicBot(Protocol):
    """What Party!'s heuristic asks of engine.uno.bots.HeuristicBot (which
    imports this module: the protocol keeps the two apart)."""

    challenge_threshold: float

    def best_colour(self, cards: Iterable[Card]) -> Colour: ...
    def _danger(self, view: PlayerView) -> bool: ...
    def _play_score(self, view: PlayerView, action: Action, danger: bool) -> float: ...


__all__ = ["heuristic_act", "heuristic_react", "wild_draw_four_is_honest", "played_card"]

_PLAY, _CATCH, _SPEED = ActionKind.PLAY, ActionKind.CATCH, ActionKind.SPEED_PLAY
_PARTY_WILDS = (Rank.WILD_PILE_UP, Rank.WILD_DRAWN_TOGETHER)
#: The order in which wilds go onto a mini pile (the first is needed least).
_PILE_WILDS = (Rank.WILD, Rank.WILD_DRAWN_TOGETHER, Rank.WILD_PILE_UP, Rank.WILD_DRAW_FOUR)
_ATTACKS = (Rank.DRAW_TWO, Rank.SKIP, Rank.REVERSE, Rank.POINT_TAKEN)


# -- out of turn --------------------------------------------------------------------------


def heuristic_react(view: PlayerView) -> Action | None:
    """A catch if one is open (it closes at the next decision), else a right
    speed play (with UNO when it leaves one card), else None."""
    legal = view.legal_actions()
    for action in legal:
        if action.kind is _CATCH:
            return action
    top = view.top_card
    right = [a for a in legal if a.kind is _SPEED and a.card == top]
    if not right:
        return None
    return max(right, key=lambda a: a.uno)


# -- the heuristic's own decisions -----------------------------------------------------


def heuristic_act(bot: HeuristicBot, view: PlayerView, legal: Sequence[Action]) -> Action:
    phase = view.phase
    if phase is Phase.POINT:
        return choose_point(view, legal)
    for action in legal:
        if action.kind is _CATCH:
            return action
    if phase is Phase.CHOOSE_COLOUR:
        return Action.choose_colour(bot.best_colour(view.hand))
    if phase is Phase.PILE:
        return choose_pile(view, legal)
    if phase is Phase.PENALTY:
        chance = offence_chance(view)
        if chance is not None and chance > bot.challenge_threshold:
            return Action.challenge()
        return Action.accept()
    return choose_play(bot, view, legal)


def choose_point(view: PlayerView, legal: Sequence[Action]) -> Action:
    """Point at the opponent nearest to going out, not at the own link partner."""
    targets = [a.player for a in legal if a.kind is ActionKind.POINT and a.player is not None]
    if not targets:
        raise ValueError(f"player {view.player} has nobody to point at")
    links = view.links
    if links is not None and view.player in links:
        partner = links[0] + links[1] - view.player
        targets = [t for t in targets if t != partner] or targets
    sizes, scores = view.hand_sizes, view.scores
    return Action.point(min(targets, key=lambda t: (sizes[t], -scores[t], t)))


def choose_pile(view: PlayerView, legal: Sequence[Action]) -> Action:
    """Add the card least needed to the mini pile; take it only when nothing fits."""
    adds = [a for a in legal if a.kind is _PLAY]
    if not adds:
        return Action.take()
    if any(a.uno for a in adds):
        adds = [a for a in adds if a.uno]  # always call UNO

    def need(action: Action) -> tuple[int, int]:
        card = played_card(action)
        if card.is_wild:
            return (2, _PILE_WILDS.index(card.rank) if card.rank in _PILE_WILDS else 0)
        if card.rank in _ATTACKS:
            return (1, -card.points)
        return (0, -card.points)

    return min(adds, key=need)


def choose_play(bot: HeuristicBot, view: PlayerView, legal: Sequence[Action]) -> Action:
    """A turn (play or draw) or the drawn card (play or keep), as in classic."""
    plays = [a for a in legal if a.kind is _PLAY]
    if any(a.uno for a in plays):
        plays = [a for a in plays if a.uno]
    if not wild_draw_four_is_honest(view):
        plays = [a for a in plays if played_card(a).rank is not Rank.WILD_DRAW_FOUR]
    danger = bot._danger(view)
    if view.drawn_card is not None and plays and played_card(plays[0]).is_wild and not danger:
        plays = []  # a drawn wild is kept for later
    if not plays:
        return next(a for a in legal if a.kind is not _PLAY and a.kind is not _CATCH)
    best = max(plays, key=lambda a: _score(bot, view, a, danger))
    card = played_card(best)
    if not card.is_wild or card.rank is Rank.WILD_PILE_UP:
        return best
    rest = list(view.hand)
    rest.remove(card)
    named = bot.best_colour(rest)
    ways = [a for a in plays if a.card == card and a.colour is named]
    if card.rank is Rank.WILD_DRAWN_TOGETHER and any(a.link is not None for a in ways):
        wanted = choose_link(view, [a.link for a in ways if a.link is not None])
        return next(a for a in ways if a.link == wanted)
    return ways[0]


def choose_link(view: PlayerView, options: Sequence[tuple[int, int]]) -> tuple[int, int]:
    """The two opponents with the fewest cards (ties: higher score, lower seat);
    with one opponent, that opponent and this player."""
    return link_by_sizes(view.player, view.hand_sizes, view.scores, options)


def link_by_sizes(
    player: int,
    sizes: Sequence[int],
    scores: Sequence[int],
    options: Sequence[tuple[int, int]],
) -> tuple[int, int]:
    """``choose_link`` from each seat's hand size and score (the playouts keep
    those, not a view)."""
    opponents = (p for p in range(len(sizes)) if p != player)
    ranked = sorted(opponents, key=lambda p: (sizes[p], -scores[p], p))
    wanted = [_pair(ranked[0], ranked[1])] if len(ranked) >= 2 else []
    wanted += [_pair(player, p) for p in ranked]
    for pair in wanted:
        if pair in options:
            return pair
    return options[0]


def _pair(a: int, b: int) -> tuple[int, int]:
    """Two players as a link names them: the lower first."""
    return (a, b) if a < b else (b, a)


def _score(bot: HeuristicBot, view: PlayerView, action: Action, danger: bool) -> float:
    card = played_card(action)
    if card.rank is Rank.POINT_TAKEN:
        held = sum(1 for c in view.hand if c.colour is card.colour)
        return 10 * held + card.points / 10 + (150 if danger else -20)
    return bot._play_score(view, action, danger)


def wild_draw_four_is_honest(view: PlayerView) -> bool:
    """Whether a Wild Draw Four would be legal now: no card of the colour in
    force and no Wild in hand (nor a Wild Pile Up or Drawn Together under
    ``wd4_all_wilds``)."""
    colour = view.colour
    all_wilds = getattr(view.house_rules, "wd4_all_wilds", False)
    for card in view.hand:
        if colour is not None and card.colour is colour:
            return False
        if card.rank is Rank.WILD or (all_wilds and card.rank in _PARTY_WILDS):
            return False
    return True


def offence_chance(view: PlayerView) -> float | None:
    """The chance that the player of the Wild Draw Four on top still holds a
    card that made it illegal (the covered colour or a Wild), from what this
    player can see; None when the covered colour cannot be seen."""
    pile = view.discard_pile
    if len(pile) < 2 or pile[-2].colour is None:
        return None
    covered = pile[-2].colour
    all_wilds = getattr(view.house_rules, "wd4_all_wilds", False)
    offender = view.next_player(-1)
    unseen = view.unseen_cards()
    total = sum(unseen.values())
    bad = sum(
        n
        for card, n in unseen.items()
        if card.colour is covered
        or card.rank is Rank.WILD
        or (all_wilds and card.rank in _PARTY_WILDS)
    )
    held = min(view.hand_sizes[offender], total)
    return 1 - math.comb(total - bad, held) / math.comb(total, held)


def played_card(action: Action) -> Card:
    """The card of a play (ValueError for an action that plays none)."""
    card = action.card
    if card is None:
        raise ValueError(f"not a play: {action}")
    return card

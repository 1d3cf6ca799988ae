"""A person's decisions in 10 Point Pitch at the shared screen, and R7's auto-play.

:class:`PitchPerson` is an agent like the bots: at their turn the screen is
passed to them (their hand is private, as in UNO), they see the table and
their hand, what the moment asks (a bid, the trump, the stock, a burn, a
trick), a numbered menu of their legal actions, and they answer with its
number or the action typed: ``bid 5`` or ``5`` at a bid (a number there is
the bid itself: 0 passes, 10 is the Moon), ``moon``, ``pass``, ``hearts`` or
``h``, ``keep``, ``give``, ``play AH``, ``AH``, ``ace``, ``10h``, ``hj``.

:class:`AutoPlay` wraps every seat's agent: when only one player still holds
trumps and leads (R7), the rest of the hand is forced and plays itself with a
line saying so; a person's only legal action (a last trump, the dealer stuck
with 4) is taken for them with a line too, without passing the screen.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from engine.game.errors import NotationError
from engine.pitch.actions import MOON, Action, Kind
from engine.pitch.cards import SUIT_NAMES, SUITS, is_trump, off_jack, parse_card, point_value
from engine.pitch.game import Phase, PitchGame
from engine.pitch.terminal.screen import PitchScreen, card_key, card_words
from engine.pitch.words import bid_name, card_name
from firmware_host.people.words import capital, plural

__all__ = ["PitchPerson", "AutoPlay", "Entry", "menu_of", "choose"]

_RANK_WORDS = {
    "ace": "A",
    "king": "K",
    "queen": "Q",
    "jack": "J",
    "ten": "T",
    "10": "T",
    "nine": "9",
    "eight": "8",
    "seven": "7",
    "six": "6",
    "five": "5",
    "four": "4",
    "three": "3",
    "two": "2",
    "deuce": "2",
}
_JOKER_WORDS = {"high joker": "HJ", "high": "HJ", "low joker": "LJ", "low": "LJ"}
_SUIT_WORDS = {
    **{name: suit for suit, name in SUIT_NAMES.items()},
    **{name[:-1]: suit for suit, name in SUIT_NAMES.items()},  # "heart"
    **{suit.lower(): suit for suit in SUITS},
}


@dataclasses.dataclass(frozen=True)
class Entry:
    """One line of the menu: its number, its label (what may be typed), the action, its words."""

    key: int
    label: str
    action: Action
    words: str


def menu_of(game: PitchGame, player: int, names: Sequence[str]) -> list[Entry]:
    """The menu of ``player``'s legal actions. At a bid each bid is numbered by
    its value (0 pass, 10 the Moon), so a number typed is the bid; elsewhere
    the entries are numbered from 1."""
    view = game.view(player)
    legal = list(view.legal)
    if view.phase is Phase.BID:
        return _bid_menu(legal)
    trump = view.trump
    entries = []
    for i, action in enumerate(_ordered(legal, trump), 1):
        kind = action.kind
        if kind is Kind.TRUMP:
            suit = str(action.value)
            entries.append(Entry(i, SUIT_NAMES[suit], action, _trump_words(view.hand, suit)))
        elif kind is Kind.KEEP:
            words = f"take the rest of the stock ({plural(view.stock_size, 'card')}) yourself"
            entries.append(Entry(i, "keep", action, words))
        elif kind is Kind.GIVE:
            partner = names[(player + 2) % 4]
            entries.append(Entry(i, "give", action, f"give it unseen to {partner}, your partner"))
        elif kind in (Kind.PLAY, Kind.BURN):
            verb = "play" if kind is Kind.PLAY else "burn"
            entries.append(
                Entry(i, action.card, action, f"{verb} the {card_words(action.card, trump)}")
            )
        else:
            entries.append(Entry(i, str(action), action, str(action)))
    return entries


def _ordered(legal: list[Action], trump: str | None) -> list[Action]:
    """Cards high to low; the rest as the game lists them."""
    cards = [a for a in legal if a.kind in (Kind.PLAY, Kind.BURN)]
    others = [a for a in legal if a.kind not in (Kind.PLAY, Kind.BURN)]
    return sorted(cards, key=lambda a: card_key(a.card, trump)) + others


def _bid_menu(legal: list[Action]) -> list[Entry]:
    entries = []
    used: set[int] = set()
    bids = [a for a in legal if a.kind is Kind.BID]
    plain = [a for a in bids if bid_name(_bid(a)).isdigit()]
    for action in [a for a in legal if a.kind is Kind.PASS] + plain:
        key = 0 if action.kind is Kind.PASS else int(bid_name(_bid(action)))
        used.add(key)
        words = "pass (you bid once only)" if key == 0 else f"bid {key}: your team takes {key}+"
        entries.append(Entry(key, "pass" if key == 0 else f"bid {key}", action, words))
    rest = [a for a in legal if a not in plain and a.kind is not Kind.PASS]
    for action in rest:
        key = next(k for k in range(10, 100) if k not in used)
        used.add(key)
        if action.kind is Kind.BID:
            words = "Shoot the Moon: take all 10 points (made: win the match; failed: lose it)"
            entries.append(Entry(key, "moon", action, words))
        else:
            entries.append(Entry(key, str(action), action, "ask for a redeal (a bad hand)"))
    return entries


def _bid(action: Action) -> int:
    value = action.value
    assert isinstance(value, int)
    return value


def _trump_words(hand: Sequence[str], suit: str) -> str:
    trumps = sorted((c for c in hand if is_trump(c, suit)), key=lambda c: card_key(c, suit))
    if not trumps:
        return "you would keep no trump"
    points = sum(point_value(c, suit) for c in trumps)
    return (
        f"you would keep {plural(len(trumps), 'trump')}: {' '.join(trumps)} "
        f"({plural(points, 'point')})"
    )


def choose(answer: str, menu: Sequence[Entry], game: PitchGame, player: int) -> Action | str:
    """The action ``answer`` names, or (a str) why it names none, in words."""
    typed = " ".join(answer.split()).casefold()
    legal = [e.action for e in menu]
    phase = game.phase
    if not typed:
        return f"Type a number from the menu, or the action as the menu writes it. {_how(phase)}"
    if typed.isdigit():
        for entry in menu:
            if entry.key == int(typed):
                return entry.action
        if phase is Phase.BID:
            return _bid_refusal(game, player, int(typed))
        return f"There is no choice {typed}: type a number from 1 to {len(menu)}."
    for entry in menu:
        if typed == entry.label.casefold():
            return entry.action
    action = _typed_action(typed, phase, game, player)
    if isinstance(action, str):
        return action
    if action in legal:
        return action
    return _refusal(action, game, player)


def _how(phase: Phase) -> str:
    return {
        Phase.BID: "At a bid: a number from the menu (0 passes), moon, or pass.",
        Phase.TRUMP: "Name a suit: clubs, diamonds, hearts or spades (or c, d, h, s).",
        Phase.STOCK: "keep or give.",
        Phase.BURN: "Type a trump of your hand to burn, e.g. 5H.",
    }.get(phase, "Type a trump of your hand, e.g. AH, or its rank (ace) when you hold one.")


def _typed_action(typed: str, phase: Phase, game: PitchGame, player: int) -> Action | str:
    """What ``typed`` means at this moment of the hand (a bid, a suit, a card), or why nothing."""
    words = typed.split()
    if phase is Phase.BID:
        if typed in ("moon", "shoot the moon", "bid moon", "the moon"):
            return Action.bid(MOON)
        if typed in ("pass", "p", "no bid"):
            return Action.pass_()
        if len(words) == 2 and words[0] == "bid" and words[1].isdigit():
            number = int(words[1])
            return (
                _bid_refusal(game, player, number)
                if number < 4 or number > 9
                else (Action.bid(number))
            )
    if phase is Phase.TRUMP:
        name = words[-1] if words[0] in ("trump", "name") and len(words) == 2 else typed
        if name in _SUIT_WORDS:
            return Action.trump(_SUIT_WORDS[name])
    if phase is Phase.STOCK:
        if typed in ("k", "take", "keep it", "keep the stock"):
            return Action.keep()
        if typed in ("g", "give it", "pass it", "give the stock"):
            return Action.give()
    if phase in (Phase.PLAY, Phase.BURN):
        card, problem = _typed_card(words, game, player)
        if card is None:
            return problem or _not_understood(typed, phase)
        return Action.play(card) if phase is Phase.PLAY else Action.burn(card)
    try:
        return Action.parse(typed)
    except NotationError:
        return _not_understood(typed, phase)


def _not_understood(typed: str, phase: Phase) -> str:
    return f"{typed!r} is not a choice now. {_how(phase)} ? explains the game and its actions."


def _typed_card(words: list[str], game: PitchGame, player: int) -> tuple[str | None, str]:
    """The card typed (``AH``, ``play ah``, ``10h``, ``ace``, ``ace of hearts``,
    ``hj``, ``high joker``, ``off-jack``), or None and why not ("" when it names
    no card at all)."""
    if words and words[0] in ("play", "burn"):
        words = words[1:]
    text = " ".join(words)
    trump = game.trump
    if text in _JOKER_WORDS:
        return _JOKER_WORDS[text], ""
    if text in ("off-jack", "offjack", "off jack") and trump is not None:
        return off_jack(trump), ""
    if len(words) == 3 and words[1] == "of" and words[0] in _RANK_WORDS:
        suit = _SUIT_WORDS.get(words[2])
        if suit is not None:
            return _RANK_WORDS[words[0]] + suit, ""
    if text in _RANK_WORDS:
        rank = _RANK_WORDS[text]
        held = [c for c in game.hand(player) if c[0] == rank and trump and is_trump(c, trump)]
        if len(held) == 1:
            return held[0], ""
        if held:
            return None, f"You hold {' and '.join(held)}: type the one you mean."
        return None, f"You hold no trump {text}."
    try:
        return parse_card(text), ""
    except NotationError:
        return None, ""


def _refusal(action: Action, game: PitchGame, player: int) -> str:
    """Why ``action``, which is not legal now, is refused (naming only the player's own cards)."""
    kind, phase = action.kind, game.phase
    if kind in (Kind.PLAY, Kind.BURN) and phase in (Phase.PLAY, Phase.BURN):
        card = action.card
        trump = game.trump
        if card not in game.hand(player):
            return f"You hold no {card} ({card_name(card)})."
        if trump is not None and not is_trump(card, trump):
            return (
                f"{card} is dead: {SUIT_NAMES[trump]} are trump and only trumps are played "
                "(or burned)."
            )
        return f"{card} cannot be {'played' if phase is Phase.PLAY else 'burned'} now."
    if kind is Kind.BID and phase is Phase.BID:
        return _bid_refusal(game, player, _bid(action))
    return f"Not now: {_how(phase)}"


def _bid_refusal(game: PitchGame, player: int, number: int) -> str:
    high = game.high_bid
    if player == game.dealer and high is None:
        return "The others all passed: you are the dealer and stuck: you must bid 4."
    if number not in range(4, 11):
        return "Bids go from 4 to 9, and 10 is Shoot the Moon; 0 passes."
    if high is not None:
        return f"The high bid is {bid_name(high)}: bid more than it, or pass (0)."
    return f"{number} is not a bid now: choose from the menu."


class PitchPerson:
    """An agent for a person at the shared screen (see the module docstring)."""

    def __init__(self, screen: PitchScreen, name: str):
        self.screen = screen
        self.name = name

    def __repr__(self) -> str:
        return f"PitchPerson({self.name!r})"

    def act(self, game: PitchGame, player: int) -> Action:
        screen = self.screen
        screen.seat(player)
        screen.status(player)
        screen.print_fn(situation(game, player, screen.names))
        menu = menu_of(game, player, screen.names)
        width = max(len(e.label) for e in menu)
        for entry in menu:
            screen.print_fn(f"  {entry.key:>2}. {entry.label:<{max(width, 6)}}  {entry.words}")
        prompt = (
            "Your bid (a number from the menu, moon or pass; ? for help): "
            if game.phase is Phase.BID
            else "Your choice (number or action; ? for help): "
        )
        while True:
            chosen = choose(screen.ask(prompt), menu, game, player)
            if isinstance(chosen, Action):
                return chosen
            screen.print_fn(chosen)


def situation(game: PitchGame, player: int, names: Sequence[str]) -> str:
    """What the moment asks of ``player``, in words."""
    view = game.view(player)
    phase = view.phase
    if phase is Phase.BID:
        return _bid_situation(view, player, names)
    if phase is Phase.TRUMP:
        return (
            f"You pitch at {bid_name(view.contract)}: name the trump suit. Then everyone "
            "keeps only their trumps and draws back to 6 cards."
        )
    if phase is Phase.STOCK:
        partner = names[(player + 2) % 4]
        them, their = ("it", "its") if view.stock_size == 1 else ("them", "their")
        return (
            f"The rest of the stock: {plural(view.stock_size, 'card')}, face down. Decide "
            f"before seeing {them}: keep {them} ({their} trumps join your hand), or give "
            f"{them} unseen to {partner}, your partner (the trumps join {partner}'s hand)."
        )
    if phase is Phase.BURN:
        held = sum(1 for c in view.hand if view.trump and is_trump(c, view.trump))
        face = "face up" if view.rules.burn_face == "up" else "face down"
        return (
            f"You hold {held} trumps: burn them down to 6, one at a time ({held - 6} to go). "
            f"A burned card is out of the hand ({face}) and its points go to nobody."
        )
    if not view.trick:
        return "Your lead: play any trump; the highest trump wins the trick."
    leader, led = view.trick[0]
    best = max(view.trick, key=lambda sc: _rank(sc[1], view.trump))
    played = {seat for seat, _ in view.trick}
    after = [names[s] for s in _clockwise_from(player) if s not in played and not view.out[s]]
    last = f" After you: {', '.join(after)}." if after else " You play last."
    if best[0] == leader and len(view.trick) == 1:
        return f"{names[leader]} led {led}. Play any trump; the highest wins the trick.{last}"
    winning = "your partner" if best[0] == (player + 2) % 4 else names[best[0]]
    return (
        f"{names[leader]} led {led}; {winning} is winning with {best[1]}. Play any trump; "
        f"the highest wins the trick.{last}"
    )


def _clockwise_from(player: int) -> list[int]:
    """The other seats, clockwise from ``player``'s left."""
    return [(player + i) % 4 for i in (1, 2, 3)]


def _rank(card: str, trump: str | None) -> int:
    return -card_key(card, trump)[1]


def _bid_situation(view: Any, player: int, names: Sequence[str]) -> str:
    if player == view.dealer and view.high_bid is None:
        return "The others all passed: you are the dealer and stuck with the contract."
    dealer = " You are the dealer: you bid last." if player == view.dealer else ""
    if view.high_bid is None:
        return f"Your bid: nobody has bid yet. Bid 4 or more, or pass; you bid once.{dealer}"
    high = next(s for s, b in reversed(view.bids) if b is not None)
    who = "your partner" if high == (player + 2) % 4 else names[high]
    return (
        f"Your bid: the high bid is {bid_name(view.high_bid)} ({who}). Bid more, or pass; "
        f"you bid once.{dealer}"
    )


class AutoPlay:
    """An agent that plays what is forced itself (see the module docstring) and
    leaves the rest to ``agent``; ``person`` whether ``agent`` is a person's."""

    def __init__(self, agent: Any, screen: PitchScreen, *, person: bool):
        self.agent = agent
        self.screen = screen
        self.person = person

    def __repr__(self) -> str:
        return repr(self.agent)

    def __getattr__(self, name: str) -> Any:  # the agent's name, reaction_ms...
        if name == "agent":  # not set yet (a copy being built)
            raise AttributeError(name)
        return getattr(self.agent, name)

    def act(self, game: PitchGame, player: int) -> Action:
        legal = game.legal_actions(player)
        screen = self.screen
        you = player == screen.at_screen
        who = "you" if you else screen.names[player]
        if game.phase is Phase.PLAY:
            holders = [s for s in range(4) if game.trumps_in_hand(s)]
            if holders == [player] and not game.trick:
                screen.tell_forced(player)
                return legal[0]
        if self.person and game.forced:
            action = legal[0]
            if action.kind is Kind.BID:
                are = "are" if you else "is"
                screen.print_fn(f"The others all passed: {who}, the dealer, {are} stuck with 4.")
                return action
            if action.kind is Kind.PLAY:
                has = "have" if you else "has"
                screen.print_fn(f"{capital(who)} {has} one trump left: it is played for {who}.")
                return action
        chosen: Action = self.agent.act(game, player)
        return chosen

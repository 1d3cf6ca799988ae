"""A terminal game: people sharing one screen, with bots, through the match driver.

People are agents like the bots: ``Person.act`` shows the table and the
person's hand, lists their legal actions as a numbered menu, and reads a
choice. The screen is shared, so before a person's hand is shown the screen is
cleared and the game waits for them ("Pass to Ann, press Enter"); with only
one person at the table it never needs to. Input and output are the injected
``input_fn(prompt) -> str`` and ``print_fn(text)``, so a test can play a whole
match with scripted input.

>>> lines = []
>>> status = play_game(["bot", "random"], seed=3, target=50, input_fn=None,
...                    print_fn=lines.append)
>>> status, lines[0]
(0, 'Match: bot0, random1; showdown to 50 points.')
>>> lines[-1].endswith("points after 1 round.") or lines[-1].endswith("rounds.")
True
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence

from engine.apps.driver import Match, MatchEvent, describe
from engine.core.actions import Action, ActionKind
from engine.core.cards import COLOURS, Card, Colour, Rank
from engine.core.errors import NotationError
from engine.core.game import Game
from engine.players.bots import Agent, HeuristicBot, PlayerView, RandomBot
from engine.units.ports import ManualUnit, SimulatedUnit, UnitPort
from engine.units.remote import PauseOnProblem, RemoteUnit, UnitProblem, is_unit_url
from firmware_host.protocol.words import noun, plural

__all__ = [
    "play_game",
    "parse_players",
    "Person",
    "SharedScreen",
    "card_name",
    "action_text",
    "UNITS",
    "BOT_KINDS",
]

#: What a --players entry may say instead of a person's name.
BOT_KINDS = ("bot", "random")
#: The unit ports a terminal game can name; a unit's URL or device path also
#: works (``socket://HOST:PORT``, ``/dev/ttyUSB0``: see ``engine.units.remote.is_unit_url``).
UNITS = ("sim", "manual")

_COLOUR_WORDS = ("red", "yellow", "green", "blue")
_RANK_WORDS = {
    Rank.DRAW_TWO: "Draw Two",
    Rank.REVERSE: "Reverse",
    Rank.SKIP: "Skip",
    Rank.WILD: "Wild",
    Rank.WILD_DRAW_FOUR: "Wild Draw Four",
    Rank.WILD_SHOWDOWN: "Wild Showdown",
}
_WORDS = ("draw", "keep", "challenge", "accept", "catch", "colour", "face", "loser")


def card_name(card: Card) -> str:
    """``card_name(Card.parse("B+2"))`` -> ``'blue Draw Two'``.

    >>> card_name(Card.parse("R7!2")), card_name(Card.parse("W+4"))
    ('red 7 (showdown 2)', 'Wild Draw Four')
    """
    rank = _RANK_WORDS.get(card.rank, str(card.number))
    colour = card.colour  # None for a wild
    name = rank if colour is None else f"{_COLOUR_WORDS[colour]} {rank}"
    return f"{name} (showdown {card.showdown})" if card.showdown else name


def action_text(action: Action, game: Game, names: Sequence[str]) -> str:
    """What ``action`` does, in words, for the menu.

    >>> g = Game.from_notation("classic R5,W,G1/G3,Y9 G7 R1 R + 0 play - - 0,0 1 1 500 - 1:0")
    >>> [action_text(a, g, ["Ann", "Bob"]) for a in g.legal_actions()][:2]
    ['play red 5', 'play Wild, naming red']
    """
    # An action's fields depend on its kind (a play has its card...); one lacking them
    # is shown as its text.
    kind = action.kind
    if kind is ActionKind.PLAY and action.card is not None:
        text = f"play {card_name(action.card)}"
        if action.colour is not None:
            text += f", naming {_COLOUR_WORDS[action.colour]}"
        return text + (" and call UNO" if action.uno else "")
    if kind is ActionKind.DRAW:
        return "draw a card"
    if kind is ActionKind.KEEP:
        return "keep the card (your turn ends)"
    if kind is ActionKind.ACCEPT:
        return f"draw {game.pending_draws} cards (your turn ends)"
    if kind is ActionKind.CHALLENGE:
        return (
            f"challenge the Wild Draw Four: if it was legal you draw "
            f"{game.pending_draws + 2} instead of {game.pending_draws}"
        )
    if kind is ActionKind.CATCH and action.player is not None:
        who = names[action.player]
        return f"catch {who}, who did not call UNO ({who} draws {game.house_rules.uno_penalty})"
    if kind is ActionKind.CHOOSE_COLOUR and action.colour is not None:
        return f"name {_COLOUR_WORDS[action.colour]}"
    if (
        kind is ActionKind.CHOOSE_SHOWDOWN
        and action.player is not None
        and action.count is not None
    ):
        return f"face {names[action.player]} for {plural(action.count, 'card')}"
    return str(action)


def parse_players(text: str) -> list[str]:
    """The --players list: names of people, ``bot`` or ``random``; raises ValueError.

    >>> parse_players("Ann, Bob,bot,BOT")
    ['Ann', 'Bob', 'bot', 'bot']
    """
    entries = [part.strip() for part in text.split(",")]
    entries = [e.lower() if e.lower() in BOT_KINDS else e for e in entries]
    if any(not e for e in entries):
        raise ValueError(
            f"empty name in {text!r}: write names separated by commas, e.g. Ann,Bob,bot,random"
        )
    if not 2 <= len(entries) <= 10:
        raise ValueError(f"{plural(len(entries), 'player')} in {text!r}: a game takes 2-10")
    people = [e.casefold() for e in entries if e not in BOT_KINDS]
    doubled = sorted({p for p in people if people.count(p) > 1})
    if doubled:
        raise ValueError(f"two players are called {doubled[0]!r}: names must differ")
    return entries


class SharedScreen:
    """The screen the people share: who sits at it, and what they have seen of
    their hand. (The *table* is the people at the unit:
    :class:`engine.units.remote.Table`.)"""

    def __init__(
        self,
        game: Game,
        names: Sequence[str],
        people: Sequence[int],
        input_fn: Callable[[str], str] | None,
        print_fn: Callable[[str], None],
        clear_fn: Callable[[], None] | None = None,
    ):
        self.game = game
        self.names = list(names)
        self.people = list(people)
        self.input_fn = input_fn
        self.print_fn = print_fn
        self.clear_fn = clear_fn
        # With one person at the table there is nobody to hide the hand from.
        self.at_screen = self.people[0] if len(self.people) == 1 else None
        self._known: Counter[Card] = Counter()

    def ask(self, prompt: str) -> str:
        if self.input_fn is None:  # input_fn=None is for bots only: nobody to ask
            raise TypeError("this screen has no input_fn to ask with")
        return self.input_fn(prompt).strip()

    def seat(self, player: int) -> None:
        """Make sure ``player`` is the one at the screen, hiding the last hand first."""
        if self.at_screen == player:
            return
        if self.clear_fn is not None:
            self.clear_fn()
        self.print_fn("")
        self.ask(f"Pass to {self.names[player]}, press Enter ")
        self.at_screen = player
        self._known = Counter(self.game.hand(player))

    def show_new_cards(self) -> None:
        """Tell the person at the screen which cards joined their hand since they last looked."""
        player = self.at_screen
        if player is None:
            return
        hand = Counter(self.game.hand(player))
        new = hand - self._known
        self._known = hand
        if new:
            cards = sorted(new.elements())
            self.print_fn(
                f"  ({self.names[player]}, your new {noun(len(cards), 'card')}: "
                f"{' '.join(map(str, cards))})"
            )

    def on_event(self, event: MatchEvent) -> None:
        """The driver's log: print the event, then what it changed in the seated hand."""
        self.print_fn(describe(event, self.names))
        kind = event.kind
        if kind == "round_start":
            if len(self.people) > 1:
                self.at_screen = None  # new hands: the next person is called to the screen
            seated = self.at_screen
            self._known = Counter() if seated is None else Counter(self.game.hand(seated))
        elif kind == "round_end":
            self._show_hands()
            if self.people and not self.game.match_over:
                self.ask(f"Press Enter to deal round {self.game.round + 1} ")
        elif kind not in ("match_start", "match_end"):
            self.show_new_cards()

    def _show_hands(self) -> None:
        game = self.game
        for p in range(game.players):
            hand = game.hand(p)
            if hand:
                points = sum(card.points for card in hand)
                self.print_fn(
                    f"  {self.names[p]} held {' '.join(map(str, hand))} ({points} points)"
                )

    def status(self, player: int) -> None:
        game = self.game
        colour = "" if game.colour is None else f" · colour {_COLOUR_WORDS[game.colour]}"
        way = "clockwise" if game.direction == 1 else "anticlockwise"
        self.print_fn("")
        self.print_fn(
            f"Round {game.round} · top card {game.top_card} "
            f"({card_name(game.top_card)}){colour} · {way}"
        )
        sizes = ", ".join(f"{n} {s}" for n, s in zip(self.names, game.hand_sizes, strict=True))
        scores = ", ".join(f"{n} {s}" for n, s in zip(self.names, game.scores, strict=True))
        self.print_fn(f"Cards in hand: {sizes} · Scores: {scores}")
        hand = sorted(game.hand(player), key=_card_order)
        self.print_fn(f"{self.names[player]}, your hand: {' '.join(map(str, hand))}")
        self._known = Counter(game.hand(player))


class Person:
    """An agent for a person at the shared screen."""

    def __init__(self, screen: SharedScreen, name: str):
        self.screen = screen
        self.name = name

    def __repr__(self) -> str:
        return f"Person({self.name!r})"

    def act(self, game: Game, player: int) -> Action:
        screen = self.screen
        screen.seat(player)
        screen.status(player)
        screen.print_fn(self._situation(game, player))
        legal = game.legal_actions()
        menu = _menu(legal)
        for i, (label, actions) in enumerate(menu, 1):
            words = (
                action_text(actions[0], game, screen.names)
                if len(actions) == 1
                else _group_text(actions[0], screen.names)
            )
            screen.print_fn(f"  {i:>2}. {label:<10} {words}")
        while True:
            answer = screen.ask("Your choice (number or action): ")
            chosen, problem = _choose(answer, menu, legal)
            if chosen is None:
                screen.print_fn(problem)
                continue
            if len(chosen) == 1:
                return chosen[0]
            return self._follow_up(chosen)

    def _situation(self, game: Game, player: int) -> str:
        view = PlayerView(game, player)
        phase = game.phase.value
        names = self.screen.names
        drawn = view.drawn_card  # set in the "drawn" phase
        if phase == "drawn" and drawn is not None:
            return f"You drew {drawn} ({card_name(drawn)}): play it or keep it."
        if phase == "penalty":
            offender = names[view.next_player(-1)]
            return f"{offender} played {game.top_card} at you: {game.pending_draws} cards to draw."
        if phase == "colour":
            return "The first card is a wild: name the colour."
        if phase == "face":
            return "Your Wild Showdown: choose whom to face, then how many cards."
        return "Your turn."

    def _follow_up(self, actions: list[Action]) -> Action:
        """Ask the colour of a wild play, or the card count of a Wild Showdown."""
        screen = self.screen
        if actions[0].kind is ActionKind.PLAY:
            choices = {str(a.colour): a for a in actions}
            screen.print_fn(
                "Name a colour: "
                + ", ".join(f"{i}. {_COLOUR_WORDS[c]}" for i, c in enumerate(COLOURS, 1))
            )
            while True:
                answer = screen.ask("Colour (number, letter or name): ")
                colour = _parse_colour(answer)
                if colour is not None and str(colour) in choices:
                    return choices[str(colour)]
                screen.print_fn(
                    f"{answer!r} is not a colour: type 1-4, R, Y, G, B or a colour's name."
                )
        counts = {a.count: a for a in actions if a.count is not None}
        low, high = min(counts), max(counts)
        while True:
            answer = screen.ask(f"How many cards ({low}-{high})? ")
            if answer.isdigit() and int(answer) in counts:
                return counts[int(answer)]
            screen.print_fn(f"{answer!r} is not a card count: type a number from {low} to {high}.")


def _menu(legal) -> list[tuple[str, list[Action]]]:
    """Menu entries: (label, actions). A wild's colours and a Wild Showdown's
    counts are grouped into one entry, asked for afterwards."""
    entries: dict[str, list[Action]] = {}
    plays = sorted(
        (a for a in legal if a.kind is ActionKind.PLAY), key=lambda a: (_card_order(a.card), a.uno)
    )
    for action in plays + [a for a in legal if a.kind is not ActionKind.PLAY]:
        if action.kind is ActionKind.PLAY and action.colour is not None:
            label = str(action.card) + (" uno" if action.uno else "")
        elif action.kind is ActionKind.CHOOSE_SHOWDOWN:
            label = f"face {action.player}"
        else:
            label = str(action)
        entries.setdefault(label, []).append(action)
    return list(entries.items())


def _card_order(card: Card) -> tuple:
    """Hands and menus list cards by colour, then rank, wilds last."""
    return (card.is_wild, card.colour or 0, card.rank, card.showdown)


def _group_text(action: Action, names) -> str:
    if action.kind is ActionKind.PLAY and action.card is not None:
        return f"play {card_name(action.card)} and name a colour" + (
            ", calling UNO" if action.uno else ""
        )
    return f"face {names[action.player]} in a showdown (then choose the cards)"


def _choose(answer: str, menu, legal) -> tuple[list[Action] | None, str]:
    """The menu entry or legal action typed as ``answer``, or (None, why not)."""
    if answer.isdigit():
        if 1 <= int(answer) <= len(menu):
            return menu[int(answer) - 1][1], ""
        return None, f"There is no choice {answer}: type a number from 1 to {len(menu)}."
    if not answer:
        return None, f"Type a number from 1 to {len(menu)}, or an action as the menu writes it."
    text = _normalise(answer)
    for label, actions in menu:
        if text == label:
            return actions, ""
    try:
        action = Action.parse(text)
    except NotationError:
        return None, (
            f"{answer!r} is not a choice: type a number from 1 to {len(menu)} "
            "or an action as the menu writes it (e.g. R5, draw)."
        )
    if action in legal:
        return [action], ""
    return None, f"{text} is not legal now: choose from the menu."


def _normalise(text: str) -> str:
    """Action text in the engine's case: ``r5 UNO`` -> ``R5 uno``, ``Colour g`` -> ``colour G``."""
    words = text.split()
    if not words:
        return ""
    first = words[0].lower()
    if first in _WORDS:
        words[0] = first
        if first == "colour":
            words[1:] = [w.upper() for w in words[1:]]
        else:
            words[1:] = [w.lower() for w in words[1:]]
    else:
        words[0] = words[0].upper()
        words[1:] = [w.lower() for w in words[1:]]
    return " ".join(words)


def _parse_colour(text: str) -> Colour | None:
    text = text.strip().lower()
    if text in ("1", "2", "3", "4"):
        return COLOURS[int(text) - 1]
    for colour, word in zip(COLOURS, _COLOUR_WORDS, strict=True):
        if text in (word, word[0]):
            return colour
    return None


def play_game(
    players: Sequence[str],
    *,
    variant: str = "showdown",
    unit: str = "sim",
    seed: int | None = None,
    target: int = 500,
    input_fn: Callable[[str], str] | None = input,
    print_fn: Callable[[str], None] = print,
    clear_fn: Callable[[], None] | None = None,
    unit_options: dict | None = None,
) -> int:
    """Play a match at the terminal; return the exit status.

    ``players`` as ``parse_players`` returns them. 0 when the match ends or the
    input ends (EOF), 130 when interrupted (Ctrl-C); either way the game stops
    with a message and no traceback.

    ``unit`` may be a unit's URL or serial device: the showdowns are fought on
    that unit (``engine.units.remote.RemoteUnit``, with ``unit_options``), which tells
    the table what to load and to press the timer button; a problem with the
    unit pauses the game and asks to retry or to name who takes the cards.
    Exit status 1 if the unit cannot be used at the start.
    """
    if unit not in UNITS and not is_unit_url(unit):
        raise ValueError(f"unit must be one of {', '.join(UNITS)} or a unit's URL, not {unit!r}")
    rng = random.Random(seed)
    names = [f"{p}{seat}" if p in BOT_KINDS else p for seat, p in enumerate(players)]
    people = [seat for seat, p in enumerate(players) if p not in BOT_KINDS]
    game = Game.new(len(players), variant, rng=rng, target=target)
    screen = SharedScreen(game, names, people, input_fn, print_fn, clear_fn)
    agents: list[Agent] = []
    for seat, p in enumerate(players):
        if p == "bot":
            agents.append(HeuristicBot(names[seat]))
        elif p == "random":
            agents.append(RandomBot(random.Random(rng.getrandbits(64)), names[seat]))
        else:
            agents.append(Person(screen, p))
    remote = None
    port: UnitPort
    if is_unit_url(unit):
        remote = RemoteUnit(unit, say=print_fn, **(unit_options or {}))
        port = PauseOnProblem(remote, screen.ask, print_fn)
    elif unit == "manual":
        port = ManualUnit(screen.ask, print_fn)
    else:
        port = SimulatedUnit(random.Random(rng.getrandbits(64)))
    match = Match(game, agents, port, names=names, log=screen.on_event)
    try:
        if remote is not None:
            try:
                remote.open()
            except UnitProblem as problem:
                print_fn(f"error: {problem}. {problem.what_to_do}")
                return 1
        match.run()
    except EOFError:
        print_fn("")
        print_fn("Input ended: the game is abandoned.")
        return 0
    except KeyboardInterrupt:
        print_fn("")
        print_fn("Interrupted: the game is abandoned.")
        return 130
    finally:
        if remote is not None:
            remote.close()
    return 0

"""A person at UNO's shared screen: ``Person.act`` seats the person
(:class:`engine.uno.terminal.screen.UnoScreen`: their hand shown to them alone, a
recap of what happened since their last turn), shows the table and their hand, lists
their legal actions as a numbered menu, and reads a choice, by its number or typed as
the menu writes it (``R5 uno``, ``draw``, ``catch Bob``).

UNO Party!: the person also points (Point Taken), adds to a mini pile or takes it,
names a Wild Drawn Together's colour and its two linked players, and is asked out of
turn (``Person.react``) whenever they hold the card identical to the top discard while
the speed window is open, or can catch someone without UNO: a keyboard cannot race, so
the game stops and asks before anyone's claim is applied.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, cast

from engine.game.errors import NotationError
from engine.uno.actions import Action, ActionKind
from engine.uno.bots import PlayerView
from engine.uno.cards import COLOURS, Card, Colour, Rank
from engine.uno.game import Game, Phase
from engine.uno.labels import action_text, card_order
from engine.uno.terminal.screen import UnoScreen
from engine.uno.words import card_name
from firmware_host.people.words import plural

__all__ = ["Person"]

_COLOUR_WORDS = ("red", "yellow", "green", "blue")
_WORDS = (
    "draw",
    "keep",
    "challenge",
    "accept",
    "catch",
    "colour",
    "face",
    "loser",
    "speed",
    "point",
    "take",
)


class Person:
    """An agent for a person at the shared screen.

    UNO Party!: ``act`` also takes the person's pointing choice and their turn at
    a mini pile; ``react`` offers what they may do out of turn (a speed play of
    the identical card, a catch) and returns None when they let it pass. An
    offer let pass is not made again until the turn moves on.
    """

    def __init__(self, screen: UnoScreen, name: str):
        self.screen = screen
        self.name = name
        self._passed: tuple[Any, ...] | None = None  # the last offer let pass

    def __repr__(self) -> str:
        return f"Person({self.name!r})"

    def act(self, game: Game, player: int) -> Action:
        screen = self.screen
        screen.seat(player)
        screen.status(player)
        if game.phase is Phase.POINT:
            return self._point(game, player)
        screen.print_fn(self._situation(game, player))
        legal = game.legal_actions()
        menu = _menu(legal, screen.names)
        self._show_menu(game, menu)
        while True:
            answer = screen.ask("Your choice (number or action; ? for help): ")
            chosen, problem = _choose(answer, menu, legal)
            if chosen is None:
                screen.print_fn(problem)
                continue
            if len(chosen) == 1:
                return chosen[0]
            return self._follow_up(chosen)

    def _show_menu(self, game: Game, menu: list[tuple[str, list[Action]]]) -> None:
        width = max(len(label) for label, _ in menu)
        for i, (label, actions) in enumerate(menu, 1):
            words = (
                action_text(actions[0], game, self.screen.names)
                if len(actions) == 1
                else _group_text(actions[0], self.screen.names)
            )
            self.screen.print_fn(f"  {i:>2}. {label:<{max(width, 9)}}  {words}")

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
        if phase == "pile":
            return _pile_situation(game)
        return "Your turn."

    # -- UNO Party! ----------------------------------------------------------------

    def _point(self, game: Any, player: int) -> Action:
        """Point Taken: whom ``player`` points at (the others' choices unseen)."""
        screen = self.screen
        names = screen.names
        pointer = game.pointer
        whose = "your" if pointer == player else f"{names[pointer]}'s"
        screen.print_fn(
            f"Point at someone ({whose} Point Taken): everyone points at once; your choice is "
            "hidden until all are in. Each player then draws 1 card per player pointing at "
            "them (at most 5)."
        )
        legal = tuple(a for a in game.legal_actions(player) if a.kind is ActionKind.POINT)
        menu = _menu(legal, names)
        self._show_menu(game, menu)
        while True:
            answer = screen.ask("Point at (number or name): ")
            chosen, problem = _choose(answer, menu, legal)
            if chosen is not None:
                return chosen[0]
            target = None if answer.isdigit() else _player_named(answer, names)
            if target is not None and Action.point(target) in legal:
                return Action.point(target)
            if target == player:
                problem = "You cannot point at yourself: choose another player."
            elif target is not None:
                problem = f"{names[target]} has no cards left: choose another player."
            elif answer and not answer.isdigit():
                problem = (
                    f"{answer!r} is not a player here: type a number from 1 to {len(menu)} "
                    "or a name from the menu."
                )
            screen.print_fn(problem)

    def react(self, game: Any, player: int) -> Action | None:
        """UNO Party!: offer the person a speed play or a catch, out of turn.

        Offered only when they hold the card identical to the top discard while
        the speed window is open, or someone else can be caught; any other card
        of theirs typed here is a wrong speed play (asked to confirm). Enter lets
        the chance pass."""
        if game.phase is Phase.POINT or game.round_over:
            return None
        legal = game.legal_actions(player)
        top = game.top_card
        offers = [
            a
            for a in legal
            if (a.kind is ActionKind.SPEED_PLAY and a.card == top) or a.kind is ActionKind.CATCH
        ]
        if not offers:
            return None
        key = (game.round, game.turns, str(top), tuple(map(str, offers)))
        if key == self._passed:
            return None
        menu = self._offer(game, player, offers)
        screen = self.screen
        while True:
            answer = screen.ask("Out of turn (number or action; Enter: pass): ")
            if not answer:
                self._passed = key
                return None
            chosen, problem = _choose(answer, menu, legal)
            if chosen is None:
                chosen, problem = self._speed_typed(answer, game, legal, problem)
            if chosen is None:
                screen.print_fn(problem)
                continue
            action = chosen[0]
            if action.kind is ActionKind.SPEED_PLAY and action.card != top:
                sure = screen.ask(
                    f"{action.card} is not {top}: a wrong speed play; you keep it and draw 1. "
                    "Type y to do it, Enter not to: "
                )
                if sure.casefold() not in ("y", "yes"):
                    screen.print_fn("No speed play made.")
                    continue
            return action

    def _offer(
        self, game: Any, player: int, offers: list[Action]
    ) -> list[tuple[str, list[Action]]]:
        """The person is told of their chance out of turn (a speed play, a catch);
        the menu of it."""
        screen = self.screen
        names = screen.names
        top = game.top_card
        screen.seat(player)
        screen.print_fn("")
        speed = [a for a in offers if a.kind is ActionKind.SPEED_PLAY]
        if speed:
            to_act = "" if game.to_act is None else f" before {names[game.to_act]} plays"
            screen.print_fn(
                f"Speed play! The top card is {top} and you hold {top}: you may play it now, "
                f"out of turn{to_act}."
            )
        for catch in (a for a in offers if a.kind is ActionKind.CATCH):
            who = names[cast(int, catch.player)]
            screen.print_fn(f"{who} has one card and did not call UNO: you may catch {who}.")
        screen.print_fn(screen.hand_line(player))
        menu = _menu(offers, names)
        self._show_menu(game, menu)
        wrong = (
            " Another card of yours is a wrong speed play: it comes back and you draw 1."
            if speed or game.speed_window
            else ""
        )
        screen.print_fn(f"Enter lets the chance pass.{wrong}")
        return menu

    @staticmethod
    def _speed_typed(
        answer: str, game: Any, legal: Sequence[Action], problem: str
    ) -> tuple[list[Action] | None, str]:
        """A card typed at the out-of-turn prompt (``R2``, ``R2 uno``) as its speed play."""
        words = answer.split()
        if words and words[0].casefold() == "speed":
            words = words[1:]
        if not 1 <= len(words) <= 2 or words[1:] not in ([], ["uno"], ["UNO"]):
            return None, problem
        try:
            action = Action.speed(Card.parse(words[0].upper()), uno=len(words) == 2)
        except NotationError:
            return None, problem
        if action in legal:
            return [action], ""
        if not game.speed_window:
            return None, "The speed window is closed now: Enter lets the chance pass."
        return None, f"You hold no {words[0].upper()}: type a card of your hand, or Enter to pass."

    def _follow_up(self, actions: list[Action]) -> Action:
        """Ask the colour of a wild play (and a Wild Drawn Together's link), or
        the card count of a Wild Showdown."""
        screen = self.screen
        if actions[0].kind is ActionKind.PLAY:
            choices: dict[str, list[Action]] = {}
            for a in actions:
                choices.setdefault(str(a.colour), []).append(a)
            screen.print_fn(
                "Name a colour: "
                + ", ".join(f"{i}. {_COLOUR_WORDS[c]}" for i, c in enumerate(COLOURS, 1))
            )
            while True:
                answer = screen.ask("Colour (number, letter or name): ")
                colour = _parse_colour(answer)
                if colour is not None and str(colour) in choices:
                    break
                screen.print_fn(
                    f"{answer!r} is not a colour: type 1-4, R, Y, G, B or a colour's name."
                )
            same = choices[str(colour)]
            if len(same) == 1:
                return same[0]
            return self._link(same)
        counts = {a.count: a for a in actions if a.count is not None}
        low, high = min(counts), max(counts)
        while True:
            answer = screen.ask(f"How many cards ({low}-{high})? ")
            if answer.isdigit() and int(answer) in counts:
                return counts[int(answer)]
            screen.print_fn(f"{answer!r} is not a card count: type a number from {low} to {high}.")

    def _link(self, actions: list[Action]) -> Action:
        """A Wild Drawn Together's two linked players."""
        screen = self.screen
        names = screen.names
        links = {a.link: a for a in actions if a.link is not None}
        game = screen.game
        screen.print_fn(
            "Link two players: from now on, when one of them draws, the other draws as many."
        )
        screen.print_fn(
            "  "
            + ", ".join(
                f"{i}. {name} ({plural(size, 'card')})"
                for i, (name, size) in enumerate(zip(names, game.hand_sizes, strict=True), 1)
            )
        )
        while True:
            answer = screen.ask("Link whom (two numbers or names, e.g. 2 5): ")
            words = answer.replace("+", " ").replace(",", " ").split()
            seats = [_player_named(w, names) for w in words]
            if len(seats) != 2 or None in seats:
                screen.print_fn(
                    f"{answer!r} is not two players: type two of the numbers 1-{len(names)} "
                    "or two names."
                )
                continue
            a, b = sorted(cast("list[int]", seats))
            if a == b:
                screen.print_fn("A link joins two different players: name two.")
                continue
            if (a, b) not in links:
                screen.print_fn(
                    f"{names[a]} and {names[b]} cannot be linked here: name two others."
                )
                continue
            return links[a, b]


def _pile_situation(game: Any) -> str:
    pile = game.pile
    colour = _COLOUR_WORDS[cast(Colour, game.pile_colour)]
    cards = f"{' '.join(map(str, pile))} ({plural(len(pile), 'card')})"
    if Action.take() in game.legal_actions() and len(game.legal_actions()) == 1:
        return (
            f"Wild Pile Up: the mini pile is {colour}: {cards}. You hold no {colour} card and "
            "no wild: you take the pile."
        )
    return (
        f"Wild Pile Up: the mini pile is {colour}: {cards}. Add a {colour} card or a wild "
        "(no effects), or take the whole pile if you cannot."
    )


def _player_named(text: str, names: Sequence[str]) -> int | None:
    """The seat typed as its menu number (1-n) or its name; None if neither."""
    text = text.strip()
    if text.isdigit():
        seat = int(text) - 1
        return seat if 0 <= seat < len(names) else None
    folded = [n.casefold() for n in names]
    return folded.index(text.casefold()) if text.casefold() in folded else None


def _menu(legal: Sequence[Action], names: Sequence[str]) -> list[tuple[str, list[Action]]]:
    """Menu entries: (label, actions). A wild's colours and a Wild Showdown's
    counts are grouped into one entry, asked for afterwards. Players are named
    (``catch Bob``, ``face Bob``), never numbered."""
    entries: dict[str, list[Action]] = {}
    plays = sorted(
        (a for a in legal if a.kind is ActionKind.PLAY),
        key=lambda a: (card_order(cast(Card, a.card)), a.uno),
    )
    for action in plays + [a for a in legal if a.kind is not ActionKind.PLAY]:
        whom = "" if action.player is None else names[action.player]
        if action.kind is ActionKind.PLAY and action.colour is not None:
            label = str(action.card) + (" uno" if action.uno else "")
        elif action.kind is ActionKind.CHOOSE_SHOWDOWN:
            label = f"face {whom}"
        elif action.kind is ActionKind.CATCH:
            label = f"catch {whom}"
        elif action.kind is ActionKind.POINT:
            label = f"point {whom}"
        else:
            label = str(action)
        entries.setdefault(label, []).append(action)
    return list(entries.items())


def _group_text(action: Action, names: Sequence[str]) -> str:
    if action.card is not None and action.card.rank is Rank.WILD_DRAWN_TOGETHER:
        uno = ", calling UNO" if action.uno else ""
        if action.link is None:
            return f"play Wild Drawn Together and name a colour (the link stays){uno}"
        return f"play Wild Drawn Together: name a colour, then link two players{uno}"
    if action.kind is ActionKind.PLAY and action.card is not None:
        return f"play {card_name(action.card)} and name a colour" + (
            ", calling UNO" if action.uno else ""
        )
    return f"face {names[cast(int, action.player)]} in a showdown (then choose the cards)"


def _choose(
    answer: str, menu: list[tuple[str, list[Action]]], legal: Sequence[Action]
) -> tuple[list[Action] | None, str]:
    """The menu entry or legal action typed as ``answer``, or (None, why not)."""
    if answer.isdigit():
        if 1 <= int(answer) <= len(menu):
            return menu[int(answer) - 1][1], ""
        return None, f"There is no choice {answer}: type a number from 1 to {len(menu)}."
    if not answer:
        return None, f"Type a number from 1 to {len(menu)}, or an action as the menu writes it."
    typed = " ".join(answer.split()).casefold()
    for label, actions in menu:
        if typed == label.casefold():
            return actions, ""
    text = _normalise(answer)
    try:
        action = Action.parse(text)
    except NotationError:
        # A word's first letters are enough ("d" for draw); a card's never are
        # ("r" would be any red card).
        begun = [
            (label, actions)
            for label, actions in menu
            if label[0].islower() and label.casefold().startswith(typed)
        ]
        if len(begun) == 1:
            return begun[0][1], ""
        if begun:
            labels = ", ".join(label for label, _ in begun)
            return None, (
                f"{answer!r} begins more than one choice ({labels}): type more of it, or its "
                "number."
            )
        return None, (
            f"{answer!r} is not a choice: type a number from 1 to {len(menu)} "
            "or an action as the menu writes it (e.g. R5, draw); ? explains them."
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
        elif first == "speed":
            words[1:] = [w.upper() if i == 0 else w.lower() for i, w in enumerate(words[1:])]
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

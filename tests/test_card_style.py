"""UNO's cards at the terminal (engine.uno.card_style): in colour with a symbol and
words on a colour terminal, the bare code otherwise (a pipe, a log, NO_COLOR)."""

from __future__ import annotations

from engine.uno.card_style import SYMBOLS, styled, use_colour
from engine.uno.cards import TEXT, Card


def test_every_card_on_a_colour_terminal_has_its_colour_a_symbol_its_code_and_words():
    sgr = {"R": "31", "Y": "33", "G": "32", "B": "34"}
    for text in filter(None, TEXT):
        card = Card.parse(text)
        shown = styled(card, True)
        letter = None if card.colour is None else str(card.colour)
        assert shown.startswith(f"\x1b[1;{sgr.get(letter, '35')}m{SYMBOLS[letter]}{text} ")
        assert shown.endswith("\x1b[0m")
    assert styled(Card.parse("R7!2"), True) == "\x1b[1;31m●R7!2 red 7 (showdown 2)\x1b[0m"
    assert styled(Card.parse("GP"), True) == "\x1b[1;32m■GP green Point Taken\x1b[0m"
    assert styled(Card.parse("WP"), True) == "\x1b[1;35m★WP Wild Pile Up\x1b[0m"


def test_off_a_terminal_or_with_no_color_a_card_is_its_code_alone():
    assert [styled(Card.parse(t), False) for t in ("R7", "W+4", "B5!3")] == ["R7", "W+4", "B5!3"]
    assert use_colour(True, {}) is True
    assert use_colour(False, {}) is False
    assert use_colour(True, {"NO_COLOR": "1"}) is False
    assert use_colour(True, {"NO_COLOR": ""}) is True  # no-color.org: set and not empty


def test_the_shared_screen_shows_the_hand_in_colour_only_when_asked():
    import random

    from engine.uno import new_game
    from engine.uno.terminal.screen import UnoScreen

    game = new_game(2, "showdown", rng=random.Random(1), target=50)
    plain = UnoScreen(game, ["Ann", "Bob"], [0, 1], None, print, colour=False)
    coloured = UnoScreen(game, ["Ann", "Bob"], [0, 1], None, print, colour=True)
    codes = plain.hand_line(0).split(": ", 1)[1].split()
    assert codes == [str(c) for c in sorted(game.hand(0), key=plain.card_key)]
    cards = coloured.hand_line(0).split(": ", 1)[1].split(", ")
    assert [c.split()[0][len("\x1b[1;31m") + 1 :] for c in cards] == codes
    assert all("\x1b[" in c for c in cards)

"""Pitch positions for the tests: a deal written card by card, read through the notation.

``deal_game({0: "AH KH"}, stock="2H")`` deals seat 0 the ace and king of
hearts, the stock's top card the 2 of hearts, and fills every hand (to 9) and
the stock (to 18) with the other cards in DECK order (clubs 2 up first).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from engine.pitch import DECK, PitchGame, parse_card


def cards(text: str) -> list[str]:
    return [parse_card(c) for c in text.split()]


def deal_text(hands: Mapping[int, str], stock: str = "", fill: Sequence[str] | None = None) -> str:
    """The notation's DEAL field for these hands and stock top, the rest filled."""
    given = {seat: cards(text) for seat, text in hands.items()}
    top = cards(stock)
    used = [c for h in given.values() for c in h] + top
    if len(set(used)) != len(used):
        raise ValueError(f"a card is dealt twice: {used}")
    rest = [c for c in (fill or DECK) if c not in used]
    rest += [c for c in DECK if c not in used and c not in rest]
    full = []
    for seat in range(4):
        hand = given.get(seat, [])
        while len(hand) < 9:
            hand.append(rest.pop(0))
        full.append(hand)
    stock_cards = top + rest
    assert len(stock_cards) == 18, len(stock_cards)
    return "/".join(",".join(group) for group in (*full, stock_cards))


def deal_game(
    hands: Mapping[int, str],
    stock: str = "",
    *,
    dealer: int = 3,
    rules: str = "-",
    scores: tuple[int, int] = (0, 0),
    target: int = 52,
    actions: Iterable[str] = (),
    fill: Sequence[str] | None = None,
) -> PitchGame:
    """A game dealt as given (seed 1), then ``actions`` applied (their text)."""
    line = (
        f"pitch {rules} {target} 1 {dealer} {scores[0]},{scores[1]} 1:0 "
        f"{deal_text(hands, stock, fill)} -"
    )
    game = PitchGame.from_notation(line)
    for text in actions:
        game.apply(text)
    return game


def play_out(game: PitchGame, choose=lambda legal: legal[0]) -> PitchGame:
    """Play the hand to its end, each seat taking ``choose(legal)``."""
    while not game.round_over:
        game.apply(choose(game.legal_actions()))
    return game

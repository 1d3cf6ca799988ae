"""benchmarks/belief_calibration.py: the tool that compares the search bot's
worlds with the real hands (docs/performance.md, "The search bot")."""

import math

from benchmarks.belief_calibration import KINDS, MAX_SIZE, calibrate, kind
from engine.uno.cards import Card


def _real_hands(belief, view, game, rng):
    return [[int(c) for c in game.hand(p)] for p in range(game.players)]


def test_each_card_has_its_kind():
    cards = {"R5": "number", "G0": "number", "BS": "action", "YR": "action", "R+2": "action"}
    cards |= {"W": "wild", "W+4": "wild+4"}
    assert {c: kind(int(Card.parse(c))) for c in cards} == cards
    assert set(cards.values()) == set(KINDS)


def test_worlds_that_are_the_real_hands_count_the_same_and_no_colour_error():
    tally = calibrate(3, players=4, seed=7, worlds=2, sampler=_real_hands)
    rows = tally.rows()
    assert rows and tally.hands > 0
    assert all(math.isclose(real, mean) for _, _, real, mean in rows)
    assert tally.colour_error == 0.0


def test_the_beliefs_worlds_hold_as_many_cards_as_the_real_hands_at_each_size():
    tally = calibrate(3, players=4, seed=7, worlds=4)
    for size in range(1, MAX_SIZE + 1):
        real = sum(r for s, _, r, _ in tally.rows() if s == size)
        worlds = sum(m for s, _, _, m in tally.rows() if s == size)
        assert math.isclose(real, worlds), size
    # they are not the real hands: the colours differ somewhere
    assert tally.colour_error > 0

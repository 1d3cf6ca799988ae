"""The rule table (engine/uno/rules.py) and the card code's named fields (cards.py).

The behaviour of each rule is pinned in test_engine_rules.py; these tests pin
where it is written: what each card does is one table in rules.py, and the
game's logic reads the card code through named masks, never bare numbers.
"""

import ast
from pathlib import Path

import pytest

from engine import Card, Colour, Game, Rank
from engine.uno import cards, rules
from engine.uno.rules import (
    CARD_EFFECTS,
    FIRST_CARD_COVERED,
    FIRST_CARD_EFFECTS,
    FIRST_CARD_RETURNED,
    FIRST_CARD_RULES,
    STACKED_DRAW_TWO,
    TWO_PLAYER_REVERSE,
    Effect,
    card_effects,
    first_card_effect,
)

CORE = Path(cards.__file__).parent


# -- what each card does --------------------------------------------------------------


def test_the_rule_table_says_what_each_card_does():
    assert {rank.name: repr(effect) for rank, effect in CARD_EFFECTS.items()} == {
        **{rank.name: "Effect()" for rank in Rank if rank <= Rank.NINE},
        "DRAW_TWO": "Effect(turns=2, draws=2)",
        "REVERSE": "Effect(reverses=True)",
        "SKIP": "Effect(turns=2)",
        "WILD": "Effect(names_colour=True)",
        "WILD_DRAW_FOUR": "Effect(penalty=4, names_colour=True, challengeable=True, "
        "then='penalty')",
        "WILD_SHOWDOWN": "Effect(turns=0, names_colour=True, then='face')",
        "POINT_TAKEN": "Effect()",
        "WILD_PILE_UP": "Effect()",
        "WILD_DRAWN_TOGETHER": "Effect(names_colour=True)",
    }


def test_two_players_make_a_reverse_a_skip_and_stacking_makes_a_draw_two_wait():
    assert CARD_EFFECTS[Rank.SKIP] == TWO_PLAYER_REVERSE
    assert repr(STACKED_DRAW_TWO) == (
        "Effect(penalty=2, then='penalty', last_card=Effect(turns=2, draws=2))"
    )
    for two_players in (False, True):
        for stacking in (False, True):
            effects = card_effects(two_players=two_players, stacking=stacking)
            assert list(effects) == list(Rank)
            changed = {rank for rank in Rank if effects[rank] != CARD_EFFECTS[rank]}
            assert changed == ({Rank.REVERSE} if two_players else set()) | (
                {Rank.DRAW_TWO} if stacking else set()
            )


def test_a_card_turned_first_acts_as_if_the_dealer_played_it_but_a_reverse_lets_the_dealer_start():
    coloured = [rank for rank in Rank if rank not in cards.WILD_RANKS]
    assert sorted(FIRST_CARD_EFFECTS) == coloured
    assert first_card_effect(Rank.DRAW_TWO, False) == CARD_EFFECTS[Rank.DRAW_TWO]
    assert first_card_effect(Rank.SKIP, False) == CARD_EFFECTS[Rank.SKIP]
    assert first_card_effect(Rank.REVERSE, False) == Effect(turns=0, reverses=True)
    assert first_card_effect(Rank.REVERSE, True) == TWO_PLAYER_REVERSE
    assert first_card_effect(Rank.SEVEN, True) == Effect()


def test_each_first_card_rule_names_what_goes_back_and_what_is_covered():
    assert set(FIRST_CARD_RETURNED) == set(FIRST_CARD_COVERED) == set(FIRST_CARD_RULES)
    assert {"return": {13, 14, 15}, "choose": {14}, "flip": set()} == FIRST_CARD_RETURNED
    assert {
        "return": set(),
        "choose": set(),
        "flip": {10, 11, 12, 13, 14, 15},
    } == FIRST_CARD_COVERED


@pytest.mark.parametrize(
    "fields",
    [
        {"then": "penalty"},  # a penalty phase with nothing to answer for
        {"penalty": 2},  # a penalty without its phase
        {"draws": 2, "penalty": 2, "then": "penalty"},
        {"turns": 3},
        {"then": "drawn"},
    ],
)
def test_an_inconsistent_effect_is_refused(fields):
    with pytest.raises(ValueError, match="inconsistent card effect"):
        Effect(**fields)


def test_the_wild_draw_four_rules():
    hand = [Card.parse("G3"), Card.parse("B7")]
    assert rules.wild_draw_four_is_legal(hand, Colour.RED)
    assert not rules.wild_draw_four_is_legal(hand, Colour.GREEN)
    assert rules.may_challenge(Rank.WILD_DRAW_FOUR, 4)
    assert not rules.may_challenge(Rank.WILD_DRAW_FOUR, 8)  # stacked on
    assert not rules.may_challenge(Rank.DRAW_TWO, 4)
    assert rules.stacks_on(Card.parse("Y+2"), Rank.DRAW_TWO)
    assert not rules.stacks_on(Card.parse("W+4"), Rank.DRAW_TWO)


def test_a_game_plays_by_the_table_for_its_player_count_and_house_rules():
    # The same Reverse: with three players play turns round, with two it skips.
    three = Game.from_notation(
        "classic R1,RR,B2/G3,G4/Y5,Y6 B1,B2 R7 R + 0 play - - 0,0,0 2 1 500 - 1:0"
    )
    three.apply("RR")
    assert (three.current, three.direction) == (2, -1)
    two = Game.from_notation("classic R1,RR,B2/G3,G4 B1,B2 R7 R + 0 play - - 0,0 1 1 500 - 1:0")
    two.apply("RR")
    assert (two.current, two.direction) == (0, 1)


# -- the card code's named fields -----------------------------------------------------


def test_the_code_fields_are_the_named_masks_and_shifts():
    assert cards.RANK_MASK == (1 << cards.COLOUR_SHIFT) - 1
    assert cards.COLOUR_MASK == (1 << (cards.SHOWDOWN_SHIFT - cards.COLOUR_SHIFT)) - 1
    assert cards.FACE_MASK == (1 << cards.SHOWDOWN_SHIFT) - 1
    assert cards.SHOWDOWN_MASK == cards.MAX_SHOWDOWN << cards.SHOWDOWN_SHIFT
    assert cards.CODE_MASK == cards.CARD_COUNT - 1 == cards.SHOWDOWN_MASK | cards.FACE_MASK
    assert max(Rank) <= cards.RANK_MASK and cards.WILD_COLOUR <= cards.COLOUR_MASK
    for card in filter(None, cards.CARD):
        colour = cards.WILD_COLOUR if card.colour is None else card.colour
        assert card == (
            card.showdown << cards.SHOWDOWN_SHIFT | colour << cards.COLOUR_SHIFT | card.rank
        )
        assert (card & cards.NUMBER_TEST_MASK <= cards.LAST_NUMBER_RANK) == (
            card.number is not None and not card.showdown
        )
        # Party's Point Taken is the one coloured rank after the wilds (rank 16).
        assert (card & cards.RANK_MASK >= cards.FIRST_WILD_RANK) == (
            card.is_wild or card.rank is Rank.POINT_TAKEN
        )
        assert type(card & cards.CODE_MASK) is int and card & cards.CODE_MASK == card


def bare_bit_literals(source):
    """Int literals above 1 used with << >> & | ^ inside a function or class."""
    found = []
    for scope in ast.walk(ast.parse(source)):
        if isinstance(scope, (ast.FunctionDef, ast.ClassDef, ast.Lambda)):
            for node in ast.walk(scope):
                if isinstance(node, ast.BinOp) and isinstance(
                    node.op, (ast.LShift, ast.RShift, ast.BitAnd, ast.BitOr, ast.BitXor)
                ):
                    found += [
                        f"line {node.lineno}: {ast.unparse(node)}"
                        for side in (node.left, node.right)
                        if isinstance(side, ast.Constant)
                        and type(side.value) is int
                        and side.value > 1
                    ]
    return sorted(set(found))


@pytest.mark.parametrize("module", sorted(path.name for path in CORE.glob("*.py")))
def test_the_rules_core_logic_names_its_masks_and_shifts(module):
    # Like python-chess's BB_* constants: literals only where a constant is defined.
    assert bare_bit_literals((CORE / module).read_text(encoding="utf-8")) == []


def test_the_bare_literal_check_finds_one():
    assert bare_bit_literals("def f(card):\n    return card & 31\n") == ["line 2: card & 31"]

"""Decks, the deal and the first card of a round."""

from collections import Counter

import pytest

from engine import Action, DeckError, Game, HouseRules, Phase, Rank, StateError, Variant
from engine.uno.rules import classic_deck, load_showdown_deck


def shuffles(game):
    """How many shuffles the game has made (the count in its rng field)."""
    return int(game.notation().rsplit(":", 1)[1])


def first_deal(variant, players, predicate, house_rules=None):
    """The first seed's game whose deal satisfies ``predicate``."""
    for seed in range(3000):
        game = Game.new(players, variant, seed=seed, house_rules=house_rules)
        if predicate(game):
            return game
    raise AssertionError("no such deal in 3000 seeds")


def test_classic_deck_has_108_cards():
    deck = Counter(map(str, classic_deck()))
    assert len(classic_deck()) == 108
    assert (deck["R0"], deck["R1"], deck["B9"], deck["G+2"], deck["YR"], deck["BS"]) == (
        1,
        2,
        2,
        2,
        2,
        2,
    )
    assert (deck["W"], deck["W+4"], deck["WS"]) == (4, 4, 0)


def test_showdown_deck_has_112_cards_and_20_symbols_numbered_1_to_3():
    deck = load_showdown_deck()
    assert len(deck) == 112
    symbols = [card for card in deck if card.showdown]
    assert len(symbols) == 20
    assert Counter(card.showdown for card in symbols) == {1: 8, 2: 8, 3: 4}
    assert all(card.number is not None for card in symbols)
    assert Counter(card.colour for card in symbols) == {c: 5 for c in {s.colour for s in symbols}}
    assert sum(1 for card in deck if card.rank == Rank.WILD_SHOWDOWN) == 4
    # Each symbol card replaces one plain copy: still two R2 in all.
    assert sum(1 for card in deck if card.colour is not None and str(card)[:2] == "R2") == 2


def test_a_user_deck_file_replaces_the_symbol_list(tmp_path):
    path = tmp_path / "deck.toml"
    path.write_text('wild_showdown = 2\nsymbols = ["R+2!3", "B0!1"]\n')
    deck = Variant.showdown(deck_file=path).deck
    assert len(deck) == 110
    assert sorted(str(card) for card in deck if card.showdown) == ["B0!1", "R+2!3"]
    assert "B0" not in map(str, deck)


@pytest.mark.parametrize(
    "text, message",
    [
        ('symbols = ["R5"]', "symbols[0]: 'R5' has no Showdown number"),
        ('symbols = ["R0!1", "R0!2"]', "symbols[1]: 'R0!2': the deck has no plain R0 left"),
        ('symbols = ["X5!1"]', "symbols[0]: invalid card 'X5!1'"),
        ('symbols = "R5!1"', "symbols: must be a list"),
        ("wild_showdown = -1", "wild_showdown: must be a whole number 0-20, not -1"),
        ("colours = 4", "unknown key 'colours'"),
        ("symbols = [", "not valid TOML"),
    ],
)
def test_a_bad_deck_file_names_the_file_and_the_entry(tmp_path, text, message):
    path = tmp_path / "deck.toml"
    path.write_text(text + "\n")
    with pytest.raises(DeckError) as info:
        load_showdown_deck(path)
    assert str(info.value).startswith(f"{path}: ")
    assert message in str(info.value)
    assert isinstance(info.value, ValueError)


def test_a_missing_deck_file_is_a_deck_error(tmp_path):
    with pytest.raises(DeckError, match="cannot read"):
        load_showdown_deck(tmp_path / "missing.toml")


def test_the_player_left_of_the_dealer_starts_clockwise():
    game = first_deal("classic", 4, lambda g: g.top_card.number is not None)
    assert (game.dealer, game.current, game.direction) == (0, 1, 1)
    assert game.hand_sizes == (7, 7, 7, 7)
    assert len(game.draw_pile) == 108 - 28 - 1


def test_dealer_choice_is_honoured():
    game = Game.new(3, "classic", seed=1, dealer=2)
    assert game.dealer == 2 and game.current in (0, 1, 2)


# -- the first card ------------------------------------------------------------------------


def test_classic_first_wild_goes_back_and_a_new_card_is_turned():
    for seed in range(300):
        assert not Game.new(2, "classic", seed=seed).top_card.is_wild
    game = first_deal("classic", 2, lambda g: shuffles(g) > 1)
    assert not game.top_card.is_wild
    assert Counter(c for hand in game.hands for c in hand) + Counter(game.draw_pile) + Counter(
        game.discard_pile
    ) == Counter(classic_deck())
    assert len(game.discard_pile) == 1


def test_first_draw_two_the_first_player_draws_two_and_is_skipped():
    game = first_deal("classic", 3, lambda g: g.top_card.rank == Rank.DRAW_TWO)
    assert game.hand_sizes == (7, 9, 7)
    assert (game.current, game.phase) == (2, Phase.PLAY)


def test_first_skip_the_first_player_is_skipped():
    game = first_deal("classic", 3, lambda g: g.top_card.rank == Rank.SKIP)
    assert (game.current, game.hand_sizes) == (2, (7, 7, 7))


def test_first_reverse_the_dealer_plays_first_counterclockwise():
    game = first_deal("classic", 3, lambda g: g.top_card.rank == Rank.REVERSE)
    assert (game.current, game.direction) == (0, -1)


def test_first_reverse_with_two_players_skips_the_first_player():
    game = first_deal("classic", 2, lambda g: g.top_card.rank == Rank.REVERSE)
    assert (game.current, game.direction) == (0, 1)


def test_showdown_first_wild_the_first_player_names_the_colour():
    game = first_deal("showdown", 2, lambda g: g.top_card.rank == Rank.WILD)
    assert (game.phase, game.to_act, game.colour) == (Phase.CHOOSE_COLOUR, 1, None)
    assert [str(a) for a in game.legal_actions()] == [
        "colour R",
        "colour Y",
        "colour G",
        "colour B",
    ]
    game.apply(Action.parse("colour G"))
    assert (game.phase, game.to_act, str(game.colour)) == (Phase.PLAY, 1, "G")


def test_showdown_first_wild_showdown_is_treated_like_a_wild():
    game = first_deal("showdown", 2, lambda g: g.top_card.rank == Rank.WILD_SHOWDOWN)
    assert (game.phase, game.pending_showdown) == (Phase.CHOOSE_COLOUR, None)
    game.apply("colour B")
    assert (game.phase, game.to_act) == (Phase.PLAY, 1)


def test_showdown_first_wild_draw_four_goes_back():
    for seed in range(300):
        assert Game.new(2, "showdown", seed=seed).top_card.rank != Rank.WILD_DRAW_FOUR


def test_a_first_symbol_card_never_starts_a_showdown():
    game = first_deal("showdown", 2, lambda g: g.top_card.showdown > 0)
    assert (game.pending_showdown, game.phase, game.to_act) == (None, Phase.PLAY, 1)


def test_house_rule_first_card_choose_in_classic():
    game = first_deal(
        "classic",
        2,
        lambda g: g.top_card.rank == Rank.WILD,
        house_rules=HouseRules(first_card="choose"),
    )
    assert game.phase == Phase.CHOOSE_COLOUR


def test_house_rule_first_card_return_in_showdown():
    for seed in range(300):
        game = Game.new(2, "showdown", seed=seed, house_rules=HouseRules(first_card="return"))
        assert not game.top_card.is_wild


def test_house_rule_first_card_flip_covers_action_cards():
    flipped = 0
    for seed in range(300):
        game = Game.new(2, "classic", seed=seed, house_rules=HouseRules(first_card="flip"))
        assert game.top_card.number is not None
        assert all(card.number is None for card in game.discard_pile[:-1])
        assert (game.current, game.hand_sizes, shuffles(game)) == (1, (7, 7), 1)
        flipped += len(game.discard_pile) > 1
    assert flipped > 0


def test_next_round_needs_enough_cards_for_the_hands():
    notation = "classic /G3,Y9/B2 B4,R7 R1,R5 R + 0 over - - 14,0,0 2 1 500 - 1:0"
    game = Game.from_notation(notation)
    with pytest.raises(StateError, match="7 cards cannot deal 3 hands of 7"):
        game.next_round()
    assert game.notation() == notation


def test_next_round_gathers_every_card_and_passes_the_deal_left():
    game = Game.new(3, "showdown", seed=5, dealer=2)
    while not game.round_over:
        game.apply(game.legal_actions()[0])
    game.next_round()
    assert (game.round, game.dealer) == (2, 0)
    assert game.hand_sizes == (7, 7, 7)
    assert sorted([*game.draw_pile, *game.discard_pile, *(c for h in game.hands for c in h)]) == (
        sorted(load_showdown_deck())
    )

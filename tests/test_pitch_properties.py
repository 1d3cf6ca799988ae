"""10 Point Pitch property tests: random games, random legal actions, random house rules.

At every step: the 54 cards are there once each; only legal actions are applied, and an
illegal one raises and changes nothing; only trumps are played; no card hidden from the
public is in its view, in the notation without reveal or in the game's repr, and none
hidden from a seat is in its view, none but the one it named in the error its illegal
action gets, and none in the events narrated; the revealed notation reads back. After every hand: the points taken and the points burned make 10.
Hands end within a bounded number of actions and games end."""

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.game.errors import IllegalActionError
from engine.pitch import FAMILY, words
from engine.pitch.actions import MOON, PLAIN_TEN, Action, Kind
from engine.pitch.game import Phase, PitchGame
from engine.pitch.rules import RULE_CHOICES, PitchRules
from tests.pitch_helpers import (
    FULL_DECK,
    HOUSE,
    SUITS,
    card_tokens,
    ref_is_trump,
    ref_points,
    strings_in,
)

#: Every house rule at random, each any of its choices (engine/pitch/rules.RULE_CHOICES).
house_rules = st.builds(
    PitchRules, **{name: st.sampled_from(choices) for name, choices in RULE_CHOICES.items()}
)
seeds = st.integers(0, 2**32 - 1)
targets = st.sampled_from([52, 52, 21, 11])

#: Every action there is, each tried where it is not legal.
ALL_ACTIONS = [
    *(Action.bid(bid) for bid in (4, 5, 6, 7, 8, 9, PLAIN_TEN, MOON)),
    Action.pass_(),
    *(Action.trump(suit) for suit in SUITS),
    Action.keep(),
    Action.give(),
    *(Action.burn(card) for card in sorted(FULL_DECK)),
    *(Action.play(card) for card in sorted(FULL_DECK)),
    Action.redeal(),
]
#: At most this many actions in a hand: 4 bids, a trump, the stock, 10 burns, 16 plays.
MOST_ACTIONS_A_HAND = 4 + 1 + 1 + 10 + 16
MOST_REDEALS_A_HAND = 50


def choose(game, seat, rng):
    """A legal action at random, passing more often than bidding so that not every hand
    is a Moon."""
    actions = game.legal_actions(seat)
    if Action.pass_() in actions and rng.random() < 0.6:
        return Action.pass_()
    redeal = Action.redeal()
    if redeal in actions and len(actions) > 1 and rng.random() < 0.7:
        actions = [a for a in actions if a != redeal]
    return rng.choice(actions)


class Watch:
    """What each seat may know, worked out from the outside as the game goes."""

    def __init__(self, game):
        self.game = game
        self.held: list[set[str]] = [set() for _ in range(4)]  # each seat's cards this hand
        self.told: list[set[str]] = [set() for _ in range(4)]  # the stock it kept or got
        self.update()

    def new_hand(self):
        self.held = [set() for _ in range(4)]
        self.told = [set() for _ in range(4)]
        self.update()

    def update(self):
        for seat in range(4):
            self.held[seat] |= set(self.game.hand(seat))

    def stock(self):
        """The stock's cards: none has been in a hand yet (discards were)."""
        return FULL_DECK - set().union(*self.held)

    def before_stock_decision(self, action, seat):
        if action.kind in (Kind.KEEP, Kind.GIVE):
            receiver = seat if action.kind is Kind.KEEP else (seat + 2) % 4
            self.told[receiver] |= self.stock()

    def public(self):
        game = self.game
        shown = {card for _, card in game.trick}
        shown |= {card for trick in game.tricks for _, card in trick.cards}
        if not face_down(game):
            shown |= {card for _, card in game.burned}
        return shown

    def known_to(self, seat):
        return self.held[seat] | self.told[seat] | self.public()


def face_down(game):
    (field,) = HOUSE["burn_face_down"]
    return getattr(game.rules, field) == HOUSE["burn_face_down"][field]


def cards_named(text):
    """The cards ``text`` names: as codes, or in words ("ace of hearts")."""
    lower = text.lower()
    return card_tokens(text) | {card for card in FULL_DECK if words.card_name(card) in lower}


def view_cards(game, seat):
    return set().union(*map(card_tokens, strings_in(game.view(seat))))


def check_counts(game):
    """54 cards, each once: check_invariants, then the revealed notation counted here."""
    game.check_invariants()
    places = [card for seat in range(4) for card in game.hand(seat)]
    places += [card for _, card in game.trick]
    places += [card for trick in game.tricks for _, card in trick.cards]
    places += [card for _, card in game.burned]
    assert len(places) == len(set(places)), game.notation(reveal=True)
    revealed = game.notation(reveal=True)
    assert card_tokens(revealed) == FULL_DECK, revealed


def check_hidden(game, watch):
    public = watch.public()
    assert view_cards(game, None) <= public
    assert card_tokens(game.notation()) <= public, game.notation()
    assert card_tokens(repr(game)) <= public, repr(game)
    for seat in range(4):
        own = set(game.hand(seat))
        seen = view_cards(game, seat)
        assert own <= seen, (seat, own - seen)  # the walk finds the cards in a view
        assert seen <= watch.known_to(seat), (seat, seen - watch.known_to(seat))


def check_round_trip(game):
    revealed = game.notation(reveal=True)
    again = PitchGame.from_notation(revealed)
    assert again.notation(reveal=True) == revealed
    assert again.legal_actions() == game.legal_actions()


def probe_illegal(game, watch, seat, rng):
    """An action at random that is not legal raises, in words that name no card hidden
    from the seat that tried it, and leaves the game as it was."""
    for _ in range(3):
        actor = seat if rng.random() < 0.8 else rng.randrange(4)
        action = rng.choice(ALL_ACTIONS)
        if action in game.legal_actions(actor):
            continue
        before = game.notation(reveal=True)
        assert not game.is_legal(action, actor)
        try:
            game.apply(action, actor)
        except IllegalActionError as error:
            # Not even the actor's own cards: an error may be shown or logged at the table.
            named = {action.value} if action.kind in (Kind.BURN, Kind.PLAY) else set()
            leaked = cards_named(str(error)) - watch.public() - named
            assert not leaked, (str(error), leaked)
        else:
            raise AssertionError(f"{action} by seat {actor} was applied: {before}")
        assert game.notation(reveal=True) == before


def step(game, watch, rng, checks=True):
    """One action: the seat to act chooses at random; everything checked around it."""
    (seat,) = game.waiting_for
    if checks:
        probe_illegal(game, watch, seat, rng)
    action = choose(game, seat, rng)
    assert game.is_legal(action, seat)
    if action.kind is Kind.PLAY:
        assert ref_is_trump(action.value, game.trump), action
        assert action.value in game.hand(seat)
    watch.before_stock_decision(action, seat)
    before = FAMILY.narration.before(game, seat, action)
    game.apply(action, seat)
    if action.kind is Kind.REDEAL:
        watch.new_hand()
    watch.update()
    check_counts(game)
    if checks:
        check_hidden(game, watch)
        check_narration(FAMILY.narration.after(game, seat, action, before), game, watch)
        check_round_trip(game)
    return action


def check_narration(events, game, watch):
    """The events told to the table name no hidden card, nor a hidden refill count. (The
    trump event's off_jack names which card that is, not where it is.)"""
    told = [{key: value for key, value in data.items() if key != "off_jack"} for _, data in events]
    assert set().union(*map(card_tokens, strings_in(told))) <= watch.public(), events
    if game.rules.refill_counts == "hidden":
        for kind, data in events:
            if kind == "refill":
                assert data["counts"] == [None] * 4, events


def play_hand(game, watch, rng, checks=True):
    """The hand to its end; the number of actions, redeals aside."""
    if checks:
        check_narration([("round_start", FAMILY.narration.round_start(game))], game, watch)
    actions = redeals = 0
    while not game.round_over:
        if step(game, watch, rng, checks).kind is Kind.REDEAL:
            redeals += 1
            assert redeals <= MOST_REDEALS_A_HAND
        else:
            actions += 1
            assert actions <= MOST_ACTIONS_A_HAND, game.notation(reveal=True)
    burned = sum(ref_points(card, game.trump) for _, card in game.burned)
    assert sum(game.taken) + burned == 10, game.notation(reveal=True)
    if checks:
        check_narration([("round_end", FAMILY.narration.round_end(game))], game, watch)
    assert game.outcome is not None and game.phase is Phase.OVER
    return actions


@settings(max_examples=25)
@given(seed=seeds, house=house_rules, rng=st.randoms(use_true_random=False))
def test_a_hand_at_random_keeps_every_rule_at_every_step(seed, house, rng):
    game = PitchGame.new(4, seed=seed, house_rules=house)
    watch = Watch(game)
    check_counts(game)
    check_hidden(game, watch)
    check_round_trip(game)
    play_hand(game, watch, rng)
    check_round_trip(game)


@settings(max_examples=25)
@given(seed=seeds, house=house_rules, target=targets, rng=st.randoms(use_true_random=False))
def test_a_game_at_random_ends_and_every_hand_is_worth_10(seed, house, target, rng):
    game = PitchGame.new(4, seed=seed, house_rules=house, target=target)
    watch = Watch(game)
    hands = 0
    while True:
        play_hand(game, watch, rng, checks=hands == 1)  # the second hand checked in full
        hands += 1
        assert game.team_scores[0] == game.scores[0] == game.scores[2]
        if game.match_winner is not None:
            break
        assert max(game.team_scores) < target
        assert hands < 200, game.notation(reveal=True)
        game.next_round()
        watch.new_hand()
    assert game.match_winner in (0, 1)
    assert game.waiting_for == ()

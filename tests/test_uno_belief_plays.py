"""The search bot's belief reading the opponents' plays as HeuristicBot's
(engine.uno.belief, ``reads_plays``): a Wild Draw Four only when its player
held nothing of the colour it covered, a plain wild while no one is near going
out only when nothing coloured played."""

import random
from collections import Counter

from engine.uno.actions import Action
from engine.uno.belief import Belief, Fact, forbidden, no_colour, no_coloured
from engine.uno.bots import HeuristicBot
from engine.uno.cards import Card, Colour, Rank
from engine.uno.game import Game
from engine.uno.player_view import PlayerView
from engine.uno.search_bot import SearchBot
from engine.uno.search_plays import SeenPlay, heuristic_would
from engine.uno.tables import match_key

#: Player 3 holds no red: HeuristicBot plays its Wild Draw Four on R5 (honestly).
DRAW_FOUR = (
    "classic R1,B1,B2/G3,Y9,G6,G7/G4,Y4,Y6,Y7/G8,W+4,Y6,G7 R2,R3,R4,R6,R7,R8,B3,B4,B5 R5 R + 3 play"
    " - - 0,0,0,0 1 1 500 - 1:0"
)


def facing_draw_four(reads_plays: bool) -> tuple[Game, Belief]:
    game = Game.from_notation(DRAW_FOUR)
    action = HeuristicBot().act(game, 3)
    assert str(action) == "W+4=G"
    game.apply(action)
    belief = Belief(0, reads_plays=reads_plays)
    belief.observe(PlayerView(game, 0))
    return game, belief


def test_a_wild_draw_four_read_as_the_heuristics_holds_nothing_of_the_colour():
    game, belief = facing_draw_four(reads_plays=True)
    assert belief.facts == {3: [Fact(no_colour(Colour.RED), 3, 3)]}
    red = forbidden(no_colour(Colour.RED))
    for seed in range(20):
        hands, _ = belief.sample(PlayerView(game, 0), random.Random(seed))
        assert not any(red[c] for c in hands[3])


def test_a_wild_draw_four_is_not_read_unless_asked():
    _, belief = facing_draw_four(reads_plays=False)
    assert belief.facts == {}


def after_a_wild(small: bool, reads_plays: bool = True) -> Belief:
    """Player 0 plays R5; player 1 (nothing red, no 5) plays its wild; the
    others play on; player 0 observes. ``small``: player 2 holds 2 cards."""
    third = "B6,G9" if small else "B6,B7,G9,Y8"
    game = Game.from_notation(
        f"classic R5,R1,B1,B2,Y1/G3,Y9,W,G6/{third}/B8,Y5,G5,G8 R2,R3,R4,R6,R7,R8,B3,B4,B5 R9 R +"
        " 0 play - - 0,0,0,0 1 1 500 - 1:0"
    )
    belief = Belief(0, reads_plays=reads_plays)
    belief.observe(PlayerView(game, 0))
    belief.decided(PlayerView(game, 0), Action.parse("R5"))
    game.apply("R5")
    heuristic = HeuristicBot()
    plays = []
    while game.to_act != 0:
        action = heuristic.act(game, game.to_act)
        plays.append(str(action))
        game.apply(action)
    assert plays[0].startswith("W=")
    belief.observe(PlayerView(game, 0))
    return belief


def test_a_plain_wild_with_no_one_near_out_says_nothing_coloured_played():
    belief = after_a_wild(small=False)
    red_five = match_key(Colour.RED, Rank.FIVE)
    assert belief.facts == {1: [Fact(no_coloured(red_five), 3, 3)]}
    assert not forbidden(no_coloured(red_five))[Card.parse("W")]


def test_a_plain_wild_near_someone_going_out_says_nothing():
    assert after_a_wild(small=True).facts == {}


def test_a_plain_wild_is_not_read_unless_asked():
    assert after_a_wild(small=False, reads_plays=False).facts == {}


def facts_hold(belief: Belief, opponent: int, hand: list[int]) -> bool:
    """Whether ``hand`` can be laid out in the facts' nested slots: for every
    fact, enough cards avoid it and every later fact."""
    facts = belief.facts.get(opponent, [])
    reach = 0
    for j, fact in enumerate(facts):
        reach = min(max(reach, fact.covers), len(hand))
        tables = [forbidden(f.key) for f in facts[j:]]
        if sum(1 for c in hand if not any(t[c] for t in tables)) < reach:
            return False
    return True


def test_the_real_hands_agree_with_every_play_seen_and_every_fact():
    """HeuristicBot opponents: every play the belief records is one the
    heuristic would make with the hand it really held (so a world is only ever
    set back for what the real one is not), and every fact, read through the
    action cards too, holds of the real hands."""
    seen = 0
    for seed in range(12):
        game = Game.new(4, "classic", seed=seed)
        belief = Belief(0, reads_plays=True)
        heuristic = HeuristicBot()
        rng = random.Random(seed)
        while not game.round_over:
            player = game.to_act
            if player is None:
                game.apply(rng.choice(game.legal_actions()))
                continue
            if player == 0:
                view = PlayerView(game, 0)
                belief.observe(view)
                for play in belief.plays:
                    assert heuristic_would(play, game.hand(play.player)), (play, game.notation())
                    seen += 1
                for p in belief.facts:
                    assert facts_hold(belief, p, game.hand(p)), (belief, game.notation())
                action = heuristic.act(game, 0)
                belief.decided(view, action)
            else:
                action = heuristic.act(game, player)
            game.apply(action)
    assert seen > 150


def test_a_hand_that_would_have_played_otherwise_disagrees():
    # On R9, holding B9 with two more blues, HeuristicBot plays B9 (blue held most), not R1;
    # with R0 beside R1 and no blue 9, R1 (more points).
    r9 = match_key(Colour.RED, Rank.NINE)
    play = SeenPlay(1, int(Card.parse("R1")), None, r9, (5, 6, 5, 5), 1)
    assert not heuristic_would(play, [int(Card.parse(c)) for c in ("R2", "B9", "B8", "B7", "G1")])
    assert heuristic_would(play, [int(Card.parse(c)) for c in ("R0", "B1", "B8", "B7", "G1")])


def test_worlds_that_disagree_with_the_plays_seen_weigh_less():
    game = Game.new(4, "classic", seed=1)
    belief = Belief(0, reads_plays=True)
    heuristic = HeuristicBot()
    while True:  # to player 0's first decision after a wild whose colour it saw
        view = PlayerView(game, 0)
        if game.to_act == 0:
            belief.observe(view)
            if any(play.named is not None for play in belief.plays):
                break
            action = heuristic.act(game, 0)
            belief.decided(view, action)
        else:
            action = heuristic.act(game, game.to_act)
        game.apply(action)
    assert len(belief.plays) == 3  # two wilds, their colours seen, and the card between
    rng = random.Random(5)
    worlds = [belief.sample(view, rng)[0] for _ in range(40)]
    weights = Counter(SearchBot.weight(belief, hands, 0.5) for hands in worlds)
    assert weights == {1.0: 2, 0.5: 12, 0.25: 19, 0.125: 7}
    assert {SearchBot.weight(belief, hands, 1.0) for hands in worlds} == {1.0}
    assert SearchBot.weight(belief, game._hands, 0.5) == 1.0  # the real hands


def test_the_turn_is_followed_through_a_skip_when_reading_plays():
    """Player 0 plays R5; player 1 skips player 2 with RS; player 3 holds
    nothing red, no skip, no wild: it draws and keeps. Read through the Skip,
    player 3 held nothing playable on RS; without ``reads_plays`` nothing is
    learnt (the turns of the plain walk stop at an action card)."""

    def facts(reads_plays: bool) -> dict:
        game = Game.from_notation(
            "classic R5,R1,B1,B2,Y1/RS,G3,Y9,G6,G7/B6,B7,G9,Y8/B8,Y5,G5,G8 G2,R3,R4,R6 R9 R + 0"
            " play - - 0,0,0,0 1 1 500 - 1:0"
        )
        belief = Belief(0, reads_plays=reads_plays)
        belief.observe(PlayerView(game, 0))
        belief.decided(PlayerView(game, 0), Action.parse("R5"))
        game.apply("R5")
        heuristic = HeuristicBot()
        seen = []
        while game.to_act != 0:
            action = heuristic.act(game, game.to_act)
            seen.append(str(action))
            game.apply(action)
        assert seen == ["RS", "draw"]  # G2 drawn: it does not play on RS
        belief.observe(PlayerView(game, 0))
        return belief.facts

    rs = match_key(Colour.RED, Rank.SKIP)
    assert facts(True) == {3: [Fact(rs, 4, 4), Fact(no_coloured(rs), 5, 5)]}  # G2 kept too
    assert facts(False) == {}


def draw_four_at_player_0() -> Game:
    """Player 3 has just played its (honest) Wild Draw Four at player 0, who holds
    four cards: HeuristicBot's odds say challenge."""
    game = Game.from_notation(
        "classic R1,B1,B2,G1/G3,Y9,G6,G7/G4,Y4,Y6,Y7/G8,W+4,Y6,G7,B9"
        " R2,R3,R4,R6,R7,R8,B3,B4,B5,R9,RS,B6,Y1,Y2,Y3,Y5,G2,G5,B7,B8 R5 R + 3 play - -"
        " 0,0,0,0 1 1 500 - 1:0"
    )
    game.apply(HeuristicBot().act(game, 3))
    assert str(game.top_card) == "W+4"
    return game


def test_a_wild_draw_four_read_as_honest_is_not_challenged():
    game = draw_four_at_player_0()
    assert str(HeuristicBot().act(game, 0)) == "challenge"
    assert str(SearchBot(random.Random(1), reads_plays=False).act(game, 0)) == "challenge"
    assert str(SearchBot(random.Random(1), reads_plays=True).act(game, 0)) == "accept"


#: Player 1 holds nothing playable on R1 and draws G9, which it cannot play either.
DRAWS_AND_KEEPS = (
    "classic R1,B7,B8,B9/G3,G4,Y6,Y7/R3,B1,B2,B3/R4,Y1,Y2,Y3 G9,Y8,B4,B5,B6,G1,G2 R5 R + 0 play"
    " - - 0,0,0,0 1 1 500 - 1:0"
)


def one_lap(
    notation: str, reads_plays: bool, people: frozenset[int] = frozenset()
) -> tuple[Game, Belief, list[str]]:
    """Player 0's belief after one lap of HeuristicBots from ``notation`` (the
    seats ``people`` told to it as people's): the game then, the belief and the
    actions seen (player 0's own first)."""
    game = Game.from_notation(notation)
    belief = Belief(0, reads_plays=reads_plays)
    belief.people = people
    heuristic = HeuristicBot()
    view = PlayerView(game, 0)
    belief.observe(view)
    action = heuristic.act(game, 0)
    belief.decided(view, action)
    game.apply(action)
    seen = [str(action)]
    while game.to_act != 0:
        action = heuristic.act(game, game.to_act)
        seen.append(str(action))
        game.apply(action)
    belief.observe(PlayerView(game, 0))
    return game, belief, seen


def after_a_draw_kept(reads_plays: bool) -> Belief:
    game, belief, played = one_lap(DRAWS_AND_KEEPS, reads_plays)
    assert played == ["R1", "draw", "B1", "Y1"]
    assert game.hand_sizes[1] == 5
    return belief


def test_a_card_drawn_and_kept_is_read_as_one_it_could_not_play():
    # No one near going out: the kept card was no coloured card playable on R1 (a wild may be).
    r1 = match_key(Colour.RED, Rank.ONE)
    belief = after_a_draw_kept(reads_plays=True)
    assert belief.facts[1] == [Fact(r1, 4, 4), Fact(no_coloured(r1), 5, 5)]
    assert belief.slot_keys(1, 5) == [(r1, no_coloured(r1))] * 4 + [(no_coloured(r1),)]


def test_a_card_drawn_and_kept_is_not_read_unless_asked():
    belief = after_a_draw_kept(reads_plays=False)
    assert belief.facts[1] == [Fact(match_key(Colour.RED, Rank.ONE), 4, 4)]


#: Player 1 holds no red: on R5 it plays its Wild Draw Four (naming green), player 2
#: challenges and draws six, player 3 plays G8.
OTHERS_DRAW_FOUR = (
    "classic R5,B1,B2,Y1/G3,G4,G6,W+4/B6,B7,Y8,Y9/G8,Y5,B8,B9 G2,R3,R4,R6,R7,R8,Y2,Y3,Y4 R9 R"
    " + 0 play - - 0,0,0,0 1 1 500 - 1:0"
)


def test_an_opponents_wild_draw_four_is_read_through_and_held_no_colour_it_covered():
    """Read through the Wild Draw Four (its victim drew six and had no turn):
    player 1 held no red (and, no one near going out, nothing coloured
    playable on R5); the colour it named is the next card's, so player 3's
    G8 is read too. Without ``reads_plays`` nothing is learnt."""

    def read(reads_plays: bool) -> Belief:
        game, belief, seen = one_lap(OTHERS_DRAW_FOUR, reads_plays)
        assert seen == ["R5", "W+4=G", "challenge", "G8"]
        assert game.hand_sizes == (3, 3, 10, 3)
        return belief

    belief = read(reads_plays=True)
    r5 = match_key(Colour.RED, Rank.FIVE)
    assert belief.facts == {1: [Fact(no_coloured(r5), 3, 3), Fact(no_colour(Colour.RED), 3, 3)]}
    wd4, g8 = (int(Card.parse(c)) for c in ("W+4", "G8"))
    green_wd4 = match_key(Colour.GREEN, Rank.WILD_DRAW_FOUR)
    assert belief.plays == [
        SeenPlay(1, wd4, int(Colour.GREEN), r5, (3, 4, 4, 4), 1),
        SeenPlay(3, g8, None, green_wd4, (3, 3, 10, 4), 1),
    ]
    assert read(reads_plays=False).facts == {}


def test_a_persons_wild_draw_four_is_weighed_not_read_as_honest():
    game = draw_four_at_player_0()
    bot = SearchBot(random.Random(1), reads_plays=True)
    bot.people_at(frozenset({3}))  # a person played it: it may be a bluff
    assert str(bot.act(game, 0)) == "challenge"
    belief = bot._beliefs[0]
    assert not belief.draw_four_honest(PlayerView(game, 0))
    assert all(f.key != no_colour(int(Colour.RED)) for f in belief.facts.get(3, ()))


def test_a_persons_plays_are_read_for_draws_only():
    # Player 1 draws on R1 and keeps the card (G9): that it held nothing playable is
    # read for anyone; that the card it kept was unplayable too, for a bot alone.
    as_a_bot = one_lap(DRAWS_AND_KEEPS, True)[1].facts
    as_a_person = one_lap(DRAWS_AND_KEEPS, True, people=frozenset({1}))[1].facts
    assert len(as_a_bot[1]) == 2
    assert len(as_a_person[1]) == 1 and as_a_person[1][0] in as_a_bot[1]


def test_a_persons_plays_weigh_nothing_in_a_world():
    r9 = SeenPlay(1, int(Card.parse("R9")), None, match_key(Colour.RED, Rank.FIVE), (5,) * 4, 1)
    belief = Belief(0, reads_plays=True)
    belief.plays = [r9]
    not_heuristic = [[], [int(Card.parse(c)) for c in ("B5", "B1", "B2")], [], []]
    assert SearchBot.weight(belief, not_heuristic, 0.25) == 0.25
    belief.people = frozenset({1})
    assert SearchBot.weight(belief, not_heuristic, 0.25) == 1.0

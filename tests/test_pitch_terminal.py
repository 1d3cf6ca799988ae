"""``showdown play --variant pitch``: scripted people and bots at one screen: whole matches
with hands kept private (the scrollback between private screens, and every line checked
against the cards hidden when it was printed), the replay, the commands; the command line."""

import argparse
import random
import re

import pytest

from engine.apps import play_cmd
from engine.apps.play import play_game, run_at_terminal
from engine.pitch.cards import DECK
from engine.pitch.game import Phase, PitchGame
from engine.pitch.terminal import play_terminal, set_up
from engine.pitch.words import card_name
from firmware_host.people.console import UsageError
from firmware_host.people.words import plural

CARD = re.compile(r"\b(?:[2-9TJQKA][CDHS]|HJ|LJ)\b")
# What names cards without saying who holds one: the trump's off-jack and jokers.
GENERIC = re.compile(
    r"\(the off-jack: [a-z ]+\)|the off-jack \w\w \(after \w\w\) and the jokers HJ, LJ "
    r"\(after \w\w\)"
)


class Script:
    """Scripted input and a transcript (prompts included, ``<private>``/``<public>``
    where the screen switches), as tests/terminal_script.py's for UNO.

    ``answers`` are (prompt prefix, reply) pairs, used in order for the prompts
    that start with the prefix; a reply that is an exception class is raised.
    Other prompts get: pass at a bid, the first entry of a menu, Enter.
    With ``watch`` (a screen), every line printed is checked for hidden cards:
    a card code or name held by a seat not at the screen, or in the stock."""

    def __init__(self, *answers):
        self.answers = list(answers)
        self.lines = []
        self.leaks = []
        self.screen = None
        self._helping = False

    def print(self, text=""):
        self.lines.append(text)
        if self.screen is not None and not self._helping:
            self.leaks += hidden_cards_in(text, self.screen)

    def control(self, what):
        self.lines.append(f"<{what}>")

    def input(self, prompt):
        self.lines.append(prompt)
        reply = self._reply(prompt)
        self._helping = reply in ("?", "help")
        return reply

    def _reply(self, prompt):
        for i, (prefix, reply) in enumerate(self.answers):
            if prompt.startswith(prefix):
                del self.answers[i]
                if isinstance(reply, type) and issubclass(reply, BaseException):
                    raise reply
                return reply
        if prompt.startswith("Your bid"):
            return "pass"
        if prompt.startswith("Your choice"):
            return "1"
        return ""


def hidden_cards_in(line, screen):
    """The hidden cards ``line`` shows: every card but those played or burned face up, and
    those the seat at the screen has seen (its deal, its draws, a stock it received)."""
    view = screen.game.view(screen.at_screen)
    known = {*view.hand, *view.dealt, *view.drawn, *view.stock_seen, *view.played}
    hidden = set(DECK) - known - {c for _, c in view.burned if c}
    text = GENERIC.sub("", line)
    shown = set(CARD.findall(text)) | {c for c in DECK if card_name(c) in text}
    return [(line, card) for card in sorted(shown & hidden)]


def play(players, script, *, seed=1, target=52, watch=True):
    match, screen = set_up(
        players.split(","),
        seed=seed,
        target=target,
        input_fn=script.input,
        print_fn=script.print,
        control_fn=script.control,
    )
    if watch:
        script.screen = screen
    return run_at_terminal(match, None, screen, script.print)


def assert_hands_hidden(lines):
    """A person's hand (and new cards) show only on the private screen, after the
    screen was passed to them; the private screen is wiped before anyone else's turn."""
    seated, private = None, False
    for line in lines:
        passed = re.match(r"Pass the screen to (\w+); \1, press Enter", line)
        if passed:
            assert not private, line
            seated = passed.group(1)
        elif line == "<private>":
            private = True
        elif line == "<public>":
            private, seated = False, None
        shown = re.match(r"(\w+), your hand:", line)
        if shown:
            assert private and shown.group(1) == seated, (line, seated)
        if re.match(r" +\(your new cards?:", line):
            assert private, line


# -- whole matches -------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_two_people_and_two_bots_play_a_match_to_the_end_with_their_hands_hidden(seed):
    script = Script()
    assert play("Ann,random,Bob,random", script, seed=seed) == 0
    lines = script.lines
    assert lines[0] == "Match: 10 Point Pitch to 52, Ann and Bob against random1 and random3."
    assert lines[1] == (
        f"Seed {seed}. To play this game again: showdown play --players "
        f"Ann,random,Bob,random --seed {seed} --variant pitch"
    )
    assert script.leaks == []
    assert_hands_hidden(lines)
    assert "Pass the screen to Ann; Ann, press Enter " in lines
    assert "Pass the screen to Bob; Bob, press Enter " in lines
    assert "Final scores:" in lines
    assert re.fullmatch(
        r"(Ann and Bob|random1 and random3) win the match, -?\d+ to -?\d+\.", lines[-1]
    )


def test_each_hand_shows_the_bidding_trump_refill_tricks_and_points_against_the_contract():
    script = Script(("Your bid", "5"))
    assert play("Ann,random,Bob,random", script, seed=4) == 0
    text = "\n".join(script.lines)
    assert re.search(r"^Bids: .*", text, re.M)
    assert re.search(r"^Trump: \w+ · also trumps: the off-jack \w\w \(after J\w\)", text, re.M)
    assert re.search(r"^Drew back to 6: Ann \d, random1 \d, Bob \d, random3 \d · ", text, re.M)
    assert re.search(
        r"^Trick \d: .* · points taken: Ann and Bob \d+, random1 and random3 \d+$", text, re.M
    )
    assert re.search(r"takes the trick \(\d+ points?\): \w+ \w\w", text)
    assert re.search(r" led \w\w(;|\.) .*(After you: \w+|You play last\.)$", text, re.M)
    verdicts = re.findall(
        r"^  (?:.+ bid \d and took (?:only )?\d+: (?:made|set), [+-]\d+; .+ [+-]\d+\."
        r"|Shoot the Moon .+)$",
        text,
        re.M,
    )
    scores = re.findall(
        r"^  Scores: Ann and Bob -?\d+, random1 and random3 -?\d+ \(first to 52 "
        r"wins\)$",
        text,
        re.M,
    )
    assert len(verdicts) == len(scores) >= 1


def test_a_person_alone_never_passes_the_screen_and_sees_only_their_hand():
    script = Script()
    assert play("You,random,random,random", script, seed=5) == 0
    assert script.leaks == []
    assert not [line for line in script.lines if line.startswith(("Pass the screen", "<"))]
    assert [line for line in script.lines if line.startswith("Your hand: ")]


def test_the_same_seed_and_answers_replay_the_same_game():
    first, second = Script(), Script()
    play("Ann,random,Bob,random", first, seed=9)
    play("Ann,random,Bob,random", second, seed=9)
    assert first.lines == second.lines


def test_bots_alone_play_without_any_input():
    lines = []
    status = play_game(
        ["bot", "random", "strong", "random"],
        variant="pitch",
        seed=3,
        input_fn=None,
        print_fn=lines.append,
    )
    assert status == 0 and lines[-1].endswith(tuple(f"to {n}." for n in range(-60, 200)))


# -- a person's decisions --------------------------------------------------------------------


def seated(game, *answers, names=("Ann", "bot1", "Bob", "bot3")):
    """A person at seat 0 of ``game``, alone at the screen, with scripted answers."""
    from engine.pitch.terminal.person import PitchPerson
    from engine.pitch.terminal.screen import PitchScreen

    script = Script(*answers)
    screen = PitchScreen(game, list(names), [0], script.input, script.print)
    return script, PitchPerson(screen, names[0])


def dealt(hands, actions="-", dealer=3):
    """A hand dealt as ``hands`` (four lists of cards); the rest of the deck is the stock."""
    used = [c for hand in hands for c in hand.split()]
    stock = [c for c in DECK if c not in used]
    deal = "/".join(",".join(h.split()) for h in hands) + "/" + ",".join(stock)
    return PitchGame.from_notation(f"pitch - 52 1 {dealer} 0,0 1:0 {deal} {actions}")


HANDS = (
    "AH KH QH JH TH 9H 8H 7H 6H",
    "AS KS QS JS TS 9S 8S 7S 6S",
    "AD KD QD JD TD 9D 8D 7D 6D",
    "AC KC QC JC TC 9C 8C 7C 6C",
)


def test_a_bid_is_numbered_by_its_value_and_a_number_typed_is_the_bid():
    game = dealt(HANDS, dealer=2, actions="6")  # bot3 bid 6; Ann bids next
    script, person = seated(game, ("Your bid", "5"), ("Your bid", "7"))
    assert str(person.act(game, 0)) == "bid 7"
    lines = script.lines
    assert "Bids: bot3 6 · high bid 6 (bot3)" in lines
    assert "Ann, your hand: AH KH QH JH TH 9H 8H 7H 6H" in lines
    assert "Your bid: the high bid is 6 (bot3). Bid more, or pass; you bid once." in lines
    menu = [line for line in lines if re.match(r" +\d+\. ", line)]
    assert menu == [
        "   0. pass    pass (you bid once only)",
        "   7. bid 7   bid 7: your team takes 7+",
        "   8. bid 8   bid 8: your team takes 8+",
        "   9. bid 9   bid 9: your team takes 9+",
        "  10. moon    Shoot the Moon: take all 10 points (made: win the match; failed: lose it)",
    ]
    assert "The high bid is 6: bid more than it, or pass (0)." in lines


@pytest.mark.parametrize(
    "typed, chosen",
    [("moon", "bid moon"), ("10", "bid moon"), ("Bid 8", "bid 8"), ("0", "pass"), ("PASS", "pass")],
)
def test_a_bid_may_be_typed(typed, chosen):
    game = dealt(HANDS, dealer=2, actions="6")
    _, person = seated(game, ("Your bid", typed))
    assert str(person.act(game, 0)) == chosen


def test_the_dealer_stuck_with_4_is_told_and_bids_without_being_asked():
    from engine.pitch.terminal.person import AutoPlay

    game = dealt(HANDS, dealer=0, actions="p,p,p")
    script, person = seated(game, ("", AssertionError))
    auto = AutoPlay(person, person.screen, person=True)
    assert str(auto.act(game, 0)) == "bid 4"
    assert script.lines == ["The others all passed: you, the dealer, are stuck with 4."]


def test_naming_trump_shows_the_trumps_each_suit_would_keep():
    game = dealt(HANDS, actions="5,p,p,p")
    script, person = seated(game, ("Your choice", "purple"), ("Your choice", "trump h"))
    assert str(person.act(game, 0)) == "trump H"
    lines = script.lines
    assert (
        "You pitch at 5: name the trump suit. Then everyone keeps only their trumps and "
        "draws back to 6 cards." in lines
    )
    assert "   1. clubs     you would keep no trump" in lines
    assert "   2. diamonds  you would keep 1 trump: JH (1 point)" in lines
    assert "   3. hearts    you would keep 9 trumps: AH KH QH JH TH 9H 8H 7H 6H (3 points)" in lines
    assert (
        "'purple' is not a choice now. Name a suit: clubs, diamonds, hearts or spades "
        "(or c, d, h, s). ? explains the game and its actions." in lines
    )


@pytest.mark.parametrize("typed", ["h", "Hearts", "heart", "3", "trump H"])
def test_a_suit_may_be_typed(typed):
    game = dealt(HANDS, actions="5,p,p,p")
    _, person = seated(game, ("Your choice", typed))
    assert str(person.act(game, 0)) == "trump H"


def test_the_stock_is_kept_or_given_before_it_is_seen():
    game = dealt(HANDS, actions="5,p,p,p,=S")  # Ann holds no spade: she draws 6
    assert game.phase is Phase.STOCK
    script, person = seated(game, ("Your choice", "give"))
    assert str(person.act(game, 0)) == "give"
    lines = script.lines
    size = plural(game.stock_size, "card")
    assert size == "1 card"  # the refill left one: "it"
    assert (
        "The rest of the stock: 1 card, face down. Decide before seeing it: keep it (its "
        "trumps join your hand), or give it unseen to Bob, your partner (the trumps join "
        "Bob's hand)." in lines
    )
    assert f"   1. keep    take the rest of the stock ({size}) yourself" in lines
    assert "   2. give    give it unseen to Bob, your partner" in lines


def test_a_burn_is_asked_card_by_card_until_six_trumps_are_left():
    game = dealt(HANDS, actions="5,p,p,p,=H,k")
    assert game.phase is Phase.BURN and game.waiting_for == (0,)
    held = game.trumps_in_hand(0)
    script, person = seated(game, ("Your choice", "burn 6h"))
    assert str(person.act(game, 0)) == "burn 6H"
    assert (
        f"You hold {held} trumps: burn them down to 6, one at a time ({held - 6} to go). A "
        "burned card is out of the hand (face up) and its points go to nobody." in script.lines
    )
    assert "   1. AH      burn the ace of hearts, 1 point" in script.lines
    game.apply("burn 6H")
    script, person = seated(game, ("Your choice", "KS"), ("Your choice", "7h"))
    assert str(person.act(game, 0)) == "burn 7H"


@pytest.mark.parametrize(
    "typed, chosen",
    [
        ("AH", "play AH"),
        ("play ah", "play AH"),
        ("ace", "play AH"),
        ("10h", "play TH"),
        ("ten of hearts", "play TH"),
        ("1", "play AH"),
    ],
)
def test_a_card_may_be_typed_as_its_code_its_rank_or_its_name(typed, chosen):
    game = dealt(HANDS, actions="5,p,p,p,=H,k,xKH,x9H,x8H")
    while game.phase is Phase.BURN:
        game.apply(game.legal_actions()[-1])
    assert game.phase is Phase.PLAY and game.waiting_for == (0,)
    script, person = seated(game, ("Your choice", typed))
    assert str(person.act(game, 0)) == chosen
    assert "Your lead: play any trump; the highest trump wins the trick." in script.lines


def test_a_card_that_cannot_be_played_is_refused_with_the_reason():
    # Ann keeps five hearts and draws one card, the stock's first: 2C, dead.
    hands = (
        "AH KH QH JH TH KS QS KC QC",
        "AS JS TS 9S 8S 7S 6S 5S 4S",
        HANDS[2],
        "AC JC TC 9C 8C 7C 6C 5C 4C",
    )
    game = dealt(hands, actions="5,p,p,p,=H")  # the refill empties the stock
    while game.phase is Phase.BURN:
        game.apply(game.legal_actions()[-1])
    assert game.phase is Phase.PLAY and "2C" in game.hand(0)
    answers = [("Your choice", "2c"), ("Your choice", "QS"), ("Your choice", "nine")]
    script, person = seated(game, *answers, ("Your choice", "AH"))
    assert str(person.act(game, 0)) == "play AH"
    lines = script.lines
    assert "Ann, your hand: AH KH QH JH TH · dead (never played): 2C" in lines
    assert "2C is dead: hearts are trump and only trumps are played (or burned)." in lines
    assert "You hold no QS (queen of spades)." in lines
    assert "You hold no trump nine." in lines


def test_a_rank_that_names_two_trumps_is_asked_again():
    hands = (
        "AH JH JD TH KS QS KC QC 9C",
        "AS JS TS 9S 8S 7S 6S 5S 4S",
        "AD KD QD TD 9D 8D 7D 6D 5D",
        "AC JC TC 8C 7C 6C 5C 4C 3C",
    )
    game = dealt(hands, actions="5,p,p,p,=H")
    while game.phase is not Phase.PLAY:
        game.apply(game.legal_actions()[-1])
    assert game.waiting_for == (0,)
    script, person = seated(game, ("Your choice", "jack"), ("Your choice", "off-jack"))
    assert str(person.act(game, 0)) == "play JD"
    assert "You hold JH and JD: type the one you mean." in script.lines


def only_one_holds_trumps(seed):
    """A random hand played on until one seat alone holds trumps, to lead: (game, seat), or None."""
    rng = random.Random(seed)
    game = PitchGame.new(seed=seed)
    while not game.round_over:
        if game.phase is Phase.PLAY and not game.trick:
            holders = [s for s in range(4) if game.trumps_in_hand(s)]
            if len(holders) == 1 and game.trumps_in_hand(holders[0]) > 1:
                return game, holders[0]
        game.apply(rng.choice(game.legal_actions()))
    return None


def test_when_one_player_alone_holds_trumps_the_rest_plays_itself_with_a_line():
    from engine.pitch.terminal.person import AutoPlay

    game, seat = next(found for s in range(200) if (found := only_one_holds_trumps(s)))
    names = ["Ann", "bot1", "Bob", "bot3"]
    script, person = seated(game, ("", AssertionError), names=names)
    auto = AutoPlay(person, person.screen, person=True)
    while game.phase is Phase.PLAY:
        game.apply(auto.act(game, seat), seat)
    said = [line for line in script.lines if line.startswith("Only ")]
    holder = "you" if seat == 0 else names[seat]
    verb = "hold" if seat == 0 else "holds"
    assert said == [
        f"Only {holder} still {verb} trumps: the rest of the hand is forced and plays itself."
    ]


# -- the commands at a prompt ----------------------------------------------------------------


def test_help_explains_the_commands_and_the_rules_then_asks_again(monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")
    script = Script(("Your bid", "?"), ("Your bid", EOFError))
    assert play("Ann,random,Bob,random", script, seed=1) == 0
    text = re.sub(r"\s+", " ", "\n".join(script.lines))  # unfolded
    assert "Commands at any prompt: ? or help (this), scores, hand" in text
    assert "the off-jack (the jack of the other suit of the same colour" in text
    assert "Shoot the Moon" in text and "the 3 of" in text
    bids = [line for line in script.lines if line.startswith("Your bid (")]
    assert len(bids) == 2  # asked again after the help


def test_scores_show_the_teams_by_their_names_and_the_replay():
    script = Script(("Your bid", "scores"), ("Your bid", EOFError))
    assert play("Ann,random,Bob,random", script, seed=1) == 0
    at = script.lines.index("Hand 1; 52 points win the match.")
    assert script.lines[at + 1] == "  Ann and Bob 0, random1 and random3 0 (first to 52 wins)"
    assert script.lines[at + 2].startswith("Seed 1. To play this game again: ")


def test_hand_shows_the_seated_hand_and_none_at_the_gate():
    script = Script(("Pass the screen", "hand"), ("Your bid", "hand"), ("Your bid", EOFError))
    play("Ann,random,Bob,random", script, seed=1)
    lines = script.lines
    assert (
        "No hand is shown now: each player sees their own once the screen is passed to "
        "them." in lines
    )
    hands = [line for line in lines if re.match(r"\w+, your hand: ", line)]
    assert len(hands) == 2 and hands[0] == hands[1]


def test_quit_asks_to_confirm_then_ends_with_the_scores_and_status_0():
    script = Script(
        ("Your bid", "quit"), ("Quit the game?", ""), ("Your bid", "quit"), ("Quit the game?", "y")
    )
    assert play("Ann,random,Bob,random", script, seed=1) == 0
    lines = script.lines
    assert "The game goes on." in lines
    at = lines.index("The game is stopped: the table quit. The scores so far:")
    assert lines[at + 2] == "  Ann and Bob 0, random1 and random3 0 (first to 52 wins)"
    assert lines[-2:] != ["<private>"]


def test_ctrl_c_ends_the_game_cleanly_with_status_130():
    script = Script(("Your bid", KeyboardInterrupt))
    assert play("Ann,random,Bob,random", script, seed=1) == 130
    assert "Interrupted: the game is abandoned." in script.lines


# -- the command line ----------------------------------------------------------------------


def parse(*argv):
    parser = argparse.ArgumentParser(prog="showdown play")
    play_cmd.add_arguments(parser)
    return parser.parse_args(argv)


def run_command(monkeypatch, *argv):
    seen = {}
    monkeypatch.setattr(
        play_cmd, "play_game", lambda players, **kw: seen.update(kw, players=players) or 0
    )
    assert play_cmd.command(parse(*argv)) == 0
    return seen


def test_pitch_is_a_variant_of_the_command_with_its_own_default_target(monkeypatch):
    seen = run_command(monkeypatch, "--variant", "pitch", "--players", "Ann,bot,Bob,strong")
    assert seen["players"] == ["Ann", "bot", "Bob", "strong"]
    assert seen["variant"] == "pitch" and seen["target"] is None
    assert run_command(monkeypatch, "--variant", "pitch", "--target", "21")["target"] == 21
    assert run_command(monkeypatch, "--variant", "pitch")["players"] == ["You", "bot", "bot", "bot"]


@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["--players", "Ann,bot,Bob"],
            "3 players: 10 Point Pitch takes exactly 4, partners opposite (the 1st and 3rd "
            "against the 2nd and 4th), e.g. --players Ann,bot,Bob,bot",
        ),
        (["--players", "Ann,bot,Bob,bot,bot"], "5 players: 10 Point Pitch takes exactly 4"),
        (["--unit", "manual"], "10 Point Pitch has no showdowns: it takes no --unit"),
    ],
)
def test_the_command_refuses_what_pitch_cannot_play(argv, message):
    with pytest.raises(UsageError, match=re.escape(message)):
        play_cmd.command(parse("--variant", "pitch", *argv))


def test_an_uno_game_takes_the_strong_bot_too(monkeypatch):
    # UNO has a search bot of its own now (engine.uno.search_bot).
    assert run_command(monkeypatch, "--players", "Ann,strong")["players"] == ["Ann", "strong"]


def test_play_terminal_refuses_a_unit_and_other_than_four_players():
    with pytest.raises(ValueError, match="10 Point Pitch has no showdowns"):
        play_terminal(["Ann", "bot", "Bob", "bot"], unit="manual", input_fn=None)
    with pytest.raises(ValueError, match="3 players: 10 Point Pitch takes exactly 4"):
        play_game(["Ann", "bot", "Bob"], variant="pitch", input_fn=None)


def test_every_family_names_a_terminal_game_with_the_protocols_members():
    from engine.apps.play import TerminalGame, terminal_game
    from engine.game.registry import all_variants

    members = [m for m in vars(TerminalGame) if not m.startswith("_")]
    assert sorted(members) == ["play_terminal", "seats", "unit_refusal"]
    for variant in all_variants():
        terminal = terminal_game(variant)
        assert isinstance(terminal.TARGET, int) and isinstance(terminal.EPILOG, str)
        assert all(callable(getattr(terminal, m)) for m in members), variant
    assert (terminal_game("showdown").TARGET, terminal_game("pitch").TARGET) == (500, 52)

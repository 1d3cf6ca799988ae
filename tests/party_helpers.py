"""What the UNO Party! rule tests share: a position built from its fields, and moves applied."""

from engine.uno.party import PartyGame
from engine.uno.party_rules import PartyRules

__all__ = [
    "FOUR",
    "apply",
    "cards",
    "house_field",
    "letter",
    "outcome",
    "party",
    "texts",
    "G4S",
    "PILE",
    "PILE_DRAW",
    "pile_up",
]


def house_field(**house) -> str:
    """The house-rules field as the engine writes it for these rules."""
    return PartyGame.new(2, seed=0, house_rules=PartyRules(**house)).notation().split(" ")[14]


def party(
    hands,
    draw="-",
    discard="R1",
    *,
    colour="R",
    player=0,
    phase="play",
    uno="-",
    direction="+",
    scores=None,
    dealer=None,
    target=500,
    **house,
):
    """A Party! game at this position (house rules as PartyRules keywords)."""
    n = len(hands)
    scores = ",".join(["0"] * n) if scores is None else scores
    dealer = (player - 1) % n if dealer is None else dealer
    rules = house_field(**house) if house else "-"
    text = (
        f"party {'/'.join(hands)} {draw} {discard} {colour} {direction} {player} {phase} {uno} - "
        f"{scores} {dealer} 1 {target} {rules} 1:0 -"
    )
    game = PartyGame.from_notation(text)
    game.check_invariants()
    return game


def cards(game, player):
    """A hand as sorted text (the order of drawn cards is not a rule)."""
    return sorted(map(str, game.hand(player)))


def outcome(game):
    """The finished round's outcome (the round must be over)."""
    assert game.outcome is not None, game.notation(reveal=True)
    return game.outcome


def letter(colour):
    """A colour as its letter (None stays None)."""
    return None if colour is None else str(colour)


def texts(actions):
    return [str(a) for a in actions]


def apply(game, *moves):
    """Apply moves: "R5" for the player to act, (player, "speed R5") for anyone."""
    for move in moves:
        if isinstance(move, tuple):
            game.apply(move[1], move[0])
        else:
            game.apply(move)
        game.check_invariants()
    return game


FOUR = ["R7,G2,B4,Y9", "B1,G6,Y3", "R5,G3,Y8", "B7,Y2,G8"]
G4S = ",".join(["G4"] * 16)

#: Ann holds a Wild Pile Up; the draw pile its mini pile is flipped from.
PILE = ["WP,G2,B4", "G6,B1,Y3", "R5,R3,Y8", "B7,Y2,G8"]
PILE_DRAW = "W,WT,G7," + G4S


def pile_up(hands=PILE, **house):
    return apply(party(hands, PILE_DRAW, "R1,R5", **house), "WP")

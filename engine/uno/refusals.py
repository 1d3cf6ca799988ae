"""Why an UNO action is not legal now, in a person's words, naming what to do.

The table asks this once the rules have refused a tap on the player's own
turn (engine.uno.taps.refuse_illegal); cards stay written as their code.

>>> from engine.uno import read_game
>>> from engine.uno.actions import Action
>>> game = read_game("classic R5,W,G1/G3,Y9 G7 G4 G + 0 play - - 0,0 1 1 500 - 1:0")
>>> why_not(game, 0, Action.parse("R9"))
'you do not hold R9'
>>> why_not(game, 0, Action.parse("R5"))
'R5 does not match the green 4: play a green card or a 4, or draw'
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.uno.actions import Action, ActionKind
from engine.uno.cards import Card
from engine.uno.game import Game, Phase
from engine.uno.party import PartyGame

__all__ = ["why_not"]

# What each phase waits for, said as what to do first.
_PHASE_ASKS = {
    Phase.CHOOSE_SHOWDOWN: "choose whom to face first (face N xK)",
    Phase.CHOOSE_COLOUR: "name the colour first (colour R, Y, G or B)",
    Phase.SHOWDOWN: "wait: the showdown is being fought",
    Phase.ROUND_OVER: "the round is over: wait for the next one",
    Phase.PILE: "add to the mini pile or take it (take)",
    Phase.POINT: "point at a player first (point N)",
}
# The phase an action belongs to, for one asked out of it.
_ONLY_WHEN = {
    ActionKind.KEEP: "keep only after drawing: play a card or draw",
    ActionKind.ACCEPT: "there is no penalty to accept: play a card or draw",
    ActionKind.CHALLENGE: "there is no Wild Draw Four to challenge: play a card or draw",
    ActionKind.CHOOSE_COLOUR: "there is no colour to name now: play a card or draw",
    ActionKind.CHOOSE_SHOWDOWN: "there is no showdown to choose now: play a card or draw",
    ActionKind.SHOWDOWN_RESULT: "only the unit says who lost a showdown",
    ActionKind.POINT: "nobody points now",
    ActionKind.TAKE_PILE: "there is no mini pile to take",
}


def why_not(game: Game | PartyGame, seat: int, action: Action, names: Sequence[str] = ()) -> str:
    """The sentence for ``seat``'s ``action`` that the rules refuse on their turn."""
    phase = game.phase
    kind = action.kind
    asks = _PHASE_ASKS.get(phase)
    if asks is not None and not _answers(phase, kind):
        return asks
    if kind is ActionKind.CATCH:
        return _catch(game, seat, action, names)
    if phase is Phase.CHOOSE_SHOWDOWN:
        return _face(game, seat, action, names)
    if phase is Phase.DRAWN:
        drawn = game.drawn_card
        if kind is ActionKind.PLAY and drawn is not None and action.card != drawn:
            return f"you may play only the card you drew ({drawn}), or keep it"
    if phase is Phase.PENALTY:
        if kind in (ActionKind.PLAY, ActionKind.DRAW, ActionKind.KEEP):
            return f"take the {game.pending_draws} cards first (accept){_or_challenge(game)}"
        if kind is ActionKind.CHALLENGE:
            return f"only a Wild Draw Four can be challenged: accept the {game.pending_draws} cards"
    if kind is ActionKind.PLAY:
        return _play(game, seat, action)
    if kind in _ONLY_WHEN and phase in (Phase.PLAY, Phase.DRAWN):
        return _ONLY_WHEN[kind]
    return f"{action} is not legal now"


def _answers(phase: Phase, kind: ActionKind) -> bool:
    """Whether an action of ``kind`` is the kind ``phase`` waits for."""
    return (phase, kind) in {
        (Phase.CHOOSE_SHOWDOWN, ActionKind.CHOOSE_SHOWDOWN),
        (Phase.CHOOSE_COLOUR, ActionKind.CHOOSE_COLOUR),
        (Phase.PILE, ActionKind.PLAY),
        (Phase.PILE, ActionKind.TAKE_PILE),
        (Phase.POINT, ActionKind.POINT),
    }


def _or_challenge(game: Game | PartyGame) -> str:
    return ", or challenge" if game.is_legal(Action.parse("challenge"), game.to_act) else ""


def _play(game: Game | PartyGame, seat: int, action: Action) -> str:
    card = action.card
    assert card is not None  # a PLAY names its card
    if card not in game.hand(seat):
        return f"you do not hold {card}"
    hand_size = len(game.hand(seat))
    if action.uno and hand_size != 2:
        return f"call UNO only as you play your second-to-last card: play {card} without uno"
    return f"{card} does not match {_top_words(game)}: {_what_matches(game)}, or draw"


def _top_words(game: Game | PartyGame) -> str:
    # words loads the people's vocabulary: only when a refusal is written, so that
    # ``import engine.uno`` (its taps) loads nothing of firmware_host (test_layout)
    from engine.uno.words import COLOUR_WORDS, card_name

    top = game.top_card
    colour = game.colour
    if top.colour is None:
        named = f" naming {COLOUR_WORDS[str(colour)]}" if colour is not None else ""
        return f"the {card_name(top)}{named}"
    return f"the {card_name(top)}"


def _what_matches(game: Game | PartyGame) -> str:
    from engine.uno.words import COLOUR_WORDS, card_name

    top: Card = game.top_card
    colour = game.colour
    if colour is None:
        return "play any card"
    words = COLOUR_WORDS[str(colour)]
    if top.colour is None:
        return f"play a {words} card or a wild"
    rank = str(top.number) if top.number is not None else card_name(top).split(" ", 1)[1]
    article = "an" if rank[0] == "8" else "a"
    return f"play a {words} card or {article} {rank}"


def _catch(game: Game | PartyGame, seat: int, action: Action, names: Sequence[str]) -> str:
    target = action.player
    if target is None or not 0 <= target < game.players:
        return f"there is no player {target} to catch"
    if target == seat:
        return "you cannot catch yourself"
    who = names[target] if target < len(names) else f"player {target}"
    held = len(game.hand(target))
    if held != 1:
        return f"{who} holds {held} cards: catch only a player left with one who did not call UNO"
    if game.catchable != target:
        return f"{who} called UNO in time: there is no one to catch"
    return f"{who} cannot be caught now"


def _face(game: Game | PartyGame, seat: int, action: Action, names: Sequence[str]) -> str:
    if isinstance(game, PartyGame):  # Party! has no Wild Showdown
        return f"{action} is not legal now"
    low, high = game.house_rules.showdown_cards
    if action.player == seat:
        return "you cannot face yourself: choose another player (face N xK)"
    if action.count is not None and not low <= action.count <= high:
        return f"a showdown is for {low} to {high} cards: face N x{low} to x{high}"
    return "choose a player still in the game to face (face N xK)"

"""Pitch's notation: a hand in one line, from its deal and its actions so far.

Nine fields, space-separated::

    pitch RULES TARGET ROUND DEALER A,B RNG DEAL ACTIONS

``RULES`` the house rules (``-``: the defaults), ``A,B`` the team scores when
the hand began, ``RNG`` the game's seed (hex) and the hand's shuffle number
(``SEED:COUNT``; the next hand is shuffle COUNT+1), ``DEAL`` the four hands as
dealt then the stock, top first (``/`` between them, ``,`` between cards), and
``ACTIONS`` the hand's actions in order (``-`` for none), each a short token:
``p`` pass, ``4``..``9`` a bid, ``10`` the plain 10, ``m`` the Moon, ``=H``
trump, ``k`` keep, ``g`` give, ``xAH`` burn, ``AH`` play.

Without ``reveal`` every hidden card is hidden: RNG is ``?``, DEAL gives only
how many cards each seat holds now and the stock's size (``?6/?6/?7/?6/?0``),
and a face-down burn is ``x?``. Only a revealed line can be read back.

>>> from engine.pitch.game import PitchGame
>>> game = PitchGame.new(seed=7, dealer=3)
>>> for text in ("pass", "bid 5", "pass", "pass", "trump S"):
...     game.apply(text)
>>> game.notation()
'pitch - 52 1 3 0,0 ? ?6/?6/?6/?6/?6 p,5,p,p,=S'
>>> PitchGame.from_notation(game.notation(reveal=True)).notation() == game.notation()
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from engine.game.errors import NotationError
from engine.pitch.actions import MOON, PLAIN_TEN, Action, Kind
from engine.pitch.cards import CARD_COUNT, parse_card
from engine.pitch.rules import PitchRules

if TYPE_CHECKING:
    from engine.pitch.state import PitchState

__all__ = ["write_notation", "read_notation", "action_token", "parse_token", "FIELDS"]

FIELDS = ("pitch", "rules", "target", "round", "dealer", "scores", "rng", "deal", "actions")

_SHORT = {Kind.PASS: "p", Kind.KEEP: "k", Kind.GIVE: "g", Kind.REDEAL: "r"}
_LONG = {"p": Action.pass_(), "k": Action.keep(), "g": Action.give(), "r": Action.redeal()}


def action_token(action: Action) -> str:
    """The action's token in a notation line.

    >>> [action_token(Action.parse(t)) for t in ("bid moon", "trump H", "burn 5H", "play AH")]
    ['m', '=H', 'x5H', 'AH']
    """
    kind, value = action.kind, action.value
    if kind in _SHORT:
        return _SHORT[kind]
    if kind is Kind.BID:
        return "m" if value == MOON else ("10" if value == PLAIN_TEN else str(value))
    if kind is Kind.TRUMP:
        return f"={value}"
    if kind is Kind.BURN:
        return f"x{value}"
    return str(value)


def parse_token(token: str) -> Action:
    """The action a notation token names; NotationError otherwise."""
    if token in _LONG:
        return _LONG[token]
    if token == "m":
        return Action.bid(MOON)
    if token == "10":
        return Action.bid(PLAIN_TEN)
    if token.isdigit():
        return Action.bid(int(token))
    if token.startswith("="):
        return Action.trump(token[1:])
    if token.startswith("x"):
        return Action.burn(token[1:])
    return Action.play(parse_card(token))


def write_notation(game: PitchState, reveal: bool) -> str:
    """``game`` in one line (see the module docstring)."""
    a, b = game._start_team
    if reveal:
        rng = f"{game.seed:x}:{game.shuffles}"
        stock = game.deck[36:]
        deal = "/".join(",".join(cards) for cards in (*game._dealt, stock))
    else:
        rng = "?"
        sizes = [game.hand_size(s) for s in range(4)] + [game.stock_size]
        deal = "/".join(f"?{n}" for n in sizes)
    down = game.rules.burn_face == "down" and not reveal
    tokens = ["x?" if down and a.kind is Kind.BURN else action_token(a) for a in game._log]
    return " ".join(
        (
            "pitch",
            str(game.rules),
            str(game.target),
            str(game.round),
            str(game.dealer),
            f"{a},{b}",
            rng,
            deal,
            ",".join(tokens) or "-",
        )
    )


class Written(NamedTuple):
    """What a revealed notation line holds, as plain values (PitchGame.from_notation
    deals ``deck`` and replays ``actions``)."""

    rules: PitchRules
    target: int
    round: int
    dealer: int
    team: tuple[int, int]
    seed: int
    shuffles: int
    deck: list[str]
    actions: list[Action]


def read_notation(text: str) -> Written:
    """A revealed notation line's fields; NotationError naming the bad field."""
    if not isinstance(text, str):
        raise NotationError(f"a Pitch notation is text, not {type(text).__name__}")
    fields = text.strip().split(" ")
    if len(fields) != len(FIELDS) or fields[0] != "pitch":
        raise NotationError(
            f"a Pitch notation has {len(FIELDS)} fields ({' '.join(FIELDS)}), not {text!r}"
        )
    _, rules_text, target, round_, dealer, scores, rng, deal, actions = fields
    if rng == "?" or "?" in deal:
        raise NotationError(
            "this notation is not revealed (its hidden cards are counts): only "
            "notation(reveal=True) can be read back"
        )
    rules = PitchRules.parse(rules_text)
    seed, shuffles = _rng(rng)
    first = _number("dealer", dealer, 0)
    return Written(
        rules=rules,
        target=_number("target", target, 1),
        round=_number("round", round_, 1),
        dealer=first,
        team=_scores(scores),
        seed=seed,
        shuffles=shuffles,
        deck=_deck(deal, rules, first),
        actions=_actions(actions),
    )


def _number(name: str, text: str, low: int) -> int:
    if not text.lstrip("-").isdigit() or int(text) < low or (name == "dealer" and int(text) > 3):
        raise NotationError(f"the notation's {name} is not a valid number: {text!r}")
    return int(text)


def _rng(text: str) -> tuple[int, int]:
    seed, colon, count = text.partition(":")
    try:
        if not colon:
            raise ValueError
        return int(seed, 16), int(count)
    except ValueError:
        raise NotationError(
            f"the notation's rng is SEED:COUNT (the seed in hex), not {text!r}"
        ) from None


def _scores(text: str) -> tuple[int, int]:
    parts = text.split(",")
    try:
        if len(parts) != 2:
            raise ValueError
        return int(parts[0]), int(parts[1])
    except ValueError:
        raise NotationError(f"the notation's scores are A,B (two numbers), not {text!r}") from None


def _deck(text: str, rules: PitchRules, dealer: int) -> list[str]:
    """The deck, top first, that deals the hands and stock written as ``text``."""
    groups = text.split("/")
    if len(groups) != 5:
        raise NotationError(f"the notation's deal is 4 hands and the stock, not {text!r}")
    hands = [[parse_card(c) for c in group.split(",") if c] for group in groups]
    if any(len(hand) != 9 for hand in hands[:4]) or len(hands[4]) != CARD_COUNT - 36:
        raise NotationError(f"the notation's deal is 9 cards a hand and 18 in the stock: {text!r}")
    cards = [c for hand in hands for c in hand]
    if len(set(cards)) != CARD_COUNT:
        raise NotationError(f"the notation's deal repeats a card: {text!r}")
    packet = 3 if rules.deal == "threes" else 1
    first = (dealer + 1) % 4
    taken = [0] * 4
    deck = []
    for i in range(36):
        seat = (first + i // packet) % 4
        deck.append(hands[seat][taken[seat]])
        taken[seat] += 1
    return deck + hands[4]


def _actions(text: str) -> list[Action]:
    if text == "-":
        return []
    actions = []
    for i, token in enumerate(text.split(",")):
        try:
            actions.append(parse_token(token))
        except NotationError as exc:
            raise NotationError(f"the notation's action {i + 1} ({token!r}): {exc}") from None
    return actions

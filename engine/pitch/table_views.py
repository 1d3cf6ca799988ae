"""Pitch's views at the browser table: what each connection is sent, built on the server.

Every connection gets the public part, built from the public's ``SeatView``
(``game.view(None)``: the bids, the trump, the refill counts, the stock's fate,
the burns shown face up, who is out, the trick, the points taken, the scores);
only the phone of a seat also gets ``you``, built from that seat's own view:
its hand (the dead cards marked), its legal actions and what it is asked. No
other hidden card is read, so none can be sent: a face-down burn, the stock, a
stock passed unseen stay on the server. The off-jack is named by its suit, not
as a card, so no card code is in a view that is not a card seen.

>>> from engine.pitch.game import PitchGame
>>> game = PitchGame.new(seed=7, dealer=3)
>>> you = private_view(game, 0, ["Ann", "Bob", "Cy", "Di"])
>>> [a["action"] for a in you["legal"]][:3], you["prompt"]
(['pass', 'bid 4', 'bid 5'], 'Your bid: nobody has bid yet.')
>>> card_view("HJ")
{'text': 'HJ', 'suit': None, 'rank': 'HJ', 'label': 'high joker'}
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from engine.pitch.actions import Action, Kind, contract_points
from engine.pitch.cards import SUIT_NAMES, is_trump, off_jack, point_value, suit_of
from engine.pitch.game import Phase, PitchGame
from engine.pitch.rules import DEFAULT_RULES, RULE_CHOICES, PitchRules
from engine.pitch.view import SeatView
from engine.pitch.words import action_text, bid_name, card_name, team_name

__all__ = [
    "card_view",
    "public_view",
    "private_view",
    "prompt",
    "rules_words",
    "house_rules_view",
    "RULE_WORDS",
    "BOT_PLAYS",
]

#: What the phone of a seat a bot plays for is told.
BOT_PLAYS = "A bot plays for you: take your seat back to play."
#: Each house rule in a few words, for the host's form (its choices beside it).
RULE_WORDS = {
    "jokers": "jokers",
    "deal": "deal",
    "misdeal": "redeal a hand with no face or point card",
    "ten_bid": "a plain 10 bid",
    "dealer_equal": "the dealer may take the high bid",
    "stuck": "the stuck dealer bids",
    "refill": "refill from",
    "refill_counts": "refill counts",
    "short_stock": "a short stock",
    "burn_face": "burns face",
    "burn": "burn",
    "lead": "a leader without trumps passes the lead",
    "low": "the 2 of trumps scores for its",
    "made": "a made contract scores",
    "moon_score": "the Moon's score above 0 is the one",
    "moon_zero": "a made Moon from a score of 0",
    "both_out": "both teams at the target: the winner is the",
}
#: Each house rule's choice as a sentence, for the display's list of the rules.
RULE_SENTENCES = {
    ("jokers", "marked"): "the jokers are marked high and low",
    ("jokers", "unmarked"): "the first joker played is the high one",
    ("deal", "single"): "dealt one card at a time",
    ("deal", "threes"): "dealt in threes",
    ("misdeal", False): "no redeals",
    ("misdeal", True): "a hand with no face or point card may ask for a redeal",
    ("ten_bid", False): "no plain 10 bid",
    ("ten_bid", True): "a plain 10 bid below the Moon",
    ("dealer_equal", False): "the dealer must bid higher too",
    ("dealer_equal", True): "the dealer may take the high bid",
    ("stuck", "four"): "a stuck dealer bids 4",
    ("stuck", "any"): "a stuck dealer bids 4 or more",
    ("refill", "dealer_left"): "the refill starts left of the dealer",
    ("refill", "pitcher"): "the refill starts with the pitcher",
    ("refill_counts", "public"): "everyone sees how many each draws",
    ("refill_counts", "hidden"): "how many each draws is hidden",
    ("short_stock", "short"): "a short stock leaves the last players short",
    ("short_stock", "discards"): "a short stock refills from the discards",
    ("burn_face", "up"): "burned cards are shown",
    ("burn_face", "down"): "burned cards stay face down",
    ("burn", "any"): "any trump may be burned",
    ("burn", "protected"): "no point card burned while a plain trump is held",
    ("lead", "left"): "a leader without trumps passes the lead left",
    ("lead", "partner"): "a leader without trumps passes the lead to the partner",
    ("low", "taker"): "the 2 scores for the team that takes it",
    ("low", "holder"): "the 2 scores for the team that played it",
    ("made", "taken"): "a made contract scores the points taken",
    ("made", "bid"): "a made contract scores the bid",
    ("moon_score", "before"): "the Moon counts the score before the hand",
    ("moon_score", "after"): "the Moon counts the score after the hand",
    ("moon_zero", "wins"): "a Moon made from 0 wins",
    ("moon_zero", "resets"): "a Moon made from 0 plays on",
    ("both_out", "pitcher"): "both teams at the target: the pitcher's team wins",
    ("both_out", "higher"): "both teams at the target: the higher score wins",
}


def card_view(card: str, trump: str | None = None) -> dict[str, Any]:
    """A card as the pages draw it: its code, its suit (None for a joker), its
    rank (the joker's code for a joker), its name; with the trump named, the
    points it is worth."""
    suit = suit_of(card)
    view: dict[str, Any] = {
        "text": card,
        "suit": suit,
        "rank": card if suit is None else card[0],
        "label": card_name(card),
    }
    if trump is not None and is_trump(card, trump):
        view["points"] = point_value(card, trump)
    return view


def _bid_entry(seat: int, bid: int | None) -> dict[str, Any]:
    return {"seat": seat, "bid": bid, "label": bid_name(bid)}


def _outcome(view: SeatView, names: Sequence[str]) -> dict[str, Any] | None:
    outcome = view.outcome
    if outcome is None:
        return None
    return {
        "pitcher": outcome.pitcher,
        "team": outcome.pitcher % 2,
        "contract": outcome.contract,
        "contract_label": bid_name(outcome.contract),
        "needed": contract_points(outcome.contract),
        "taken": list(outcome.taken),
        "made": outcome.made,
        "moon": outcome.moon,
        "points": outcome.points,
        "winner": outcome.winner,
        "team_scores": list(outcome.team_scores),
        "burned_points": outcome.burned_points,
        "match_winner": outcome.match_winner,
    }


def pitch_public(view: SeatView, names: Sequence[str]) -> dict[str, Any]:
    """The ``pitch`` part of the public view, from the public's SeatView."""
    trump = view.trump
    tricks = view.tricks
    last = tricks[-1] if tricks else None
    winner = view.match_winner
    return {
        "phase": view.phase.value,
        "dealer": view.dealer,
        "to_act": view.to_act,
        "teams": [[0, 2], [1, 3]],
        "team_names": [team_name(0, names), team_name(1, names)],
        "team_scores": list(view.team_scores),
        "target": view.target,
        "bids": [_bid_entry(s, b) for s, b in view.bids],
        "high_bid": view.high_bid,
        "pitcher": view.pitcher,
        "contract": view.contract,
        "contract_label": None if view.contract is None else bid_name(view.contract),
        "needed": None if view.contract is None else contract_points(view.contract),
        "trump": trump,
        "trump_name": None if trump is None else SUIT_NAMES[trump],
        "off_jack_suit": None if trump is None else suit_of(off_jack(trump)),
        "refills": list(view.refills),
        "stock_size": view.stock_size,
        "stock": {
            "kept": view.stock_kept,
            "receiver": view.stock_receiver,
            "received": view.stock_received,
        },
        "burned": [
            {"seat": s, "card": None if c is None else card_view(c, trump)} for s, c in view.burned
        ],
        "out": list(view.out),
        "leader": view.leader,
        "trick": [{"seat": s, "card": card_view(c, trump)} for s, c in view.trick],
        "tricks": len(tricks),
        "last_trick": None
        if last is None
        else {
            "winner": last.winner,
            "points": last.points,
            "cards": [{"seat": s, "card": card_view(c, trump)} for s, c in last.cards],
        },
        "taken": list(view.taken),
        "outcome": _outcome(view, names),
        "match_winner": winner,
        "winner_names": None if winner is None else team_name(winner, names),
    }


def prompt(view: SeatView, names: Sequence[str]) -> str:
    """What the phone of ``view.seat`` is asked now (why it waits, when it does)."""
    seat = view.seat
    assert seat is not None
    if view.phase is Phase.PLAY and view.out[seat] and view.to_act != seat:
        return "You are out: no trumps left this hand."
    if view.to_act != seat:
        return ""
    phase = view.phase
    if phase is Phase.BID:
        if view.high_bid is None:
            if len(view.legal) == 1 or all(a.kind is not Kind.PASS for a in view.legal):
                return "Everyone passed: you are the dealer, so you bid."
            return "Your bid: nobody has bid yet."
        high = next(s for s, b in reversed(view.bids) if b == view.high_bid)
        return f"Your bid: the highest is {bid_name(view.high_bid)} ({names[high]})."
    if phase is Phase.TRUMP:
        return f"You won the bid at {bid_name(view.contract)}: name the trump suit."
    if phase is Phase.STOCK:
        partner = names[(seat + 2) % 4]
        return (
            f"{view.stock_size} cards are left in the stock: keep them, or give them "
            f"to {partner} unseen."
        )
    if phase is Phase.BURN:
        return f"You hold {len(view.hand)} trumps: burn one (down to 6)."
    if phase is Phase.PLAY:
        return "Your lead: play a trump." if not view.trick else "Play a trump."
    return ""


def _legal_entry(action: Action, names: Sequence[str]) -> dict[str, Any]:
    entry: dict[str, Any] = {
        "action": str(action),
        "label": action_text(action, names),
        "kind": action.kind.name.lower(),
    }
    if action.kind in (Kind.BURN, Kind.PLAY):
        entry["card"] = action.card
    elif action.kind is Kind.TRUMP:
        entry["suit"] = action.value
        entry["label"] = SUIT_NAMES[str(action.value)]
    elif action.kind in (Kind.BID, Kind.PASS):
        entry["label"] = bid_name(action.value if isinstance(action.value, int) else None)
    return entry


def private_view(
    game: PitchGame, seat: int, names: Sequence[str], *, bot_playing: bool = False
) -> dict[str, Any]:
    """The ``you`` part for the phone of ``seat``, from that seat's own view:
    its hand (sorted: trumps high to low, then the dead cards, marked), the
    cards it may tap now, its legal actions with their words, its prompt.
    While a bot plays for the seat the hand is still shown, with nothing to do."""
    view = game.view(seat)
    legal = () if bot_playing else view.legal
    tappable = {a.card for a in legal if a.kind in (Kind.BURN, Kind.PLAY)}
    trump = view.trump
    hand = []
    for card in view.hand:
        entry = card_view(card, trump)
        entry["legal"] = card in tappable
        entry["dead"] = trump is not None and not is_trump(card, trump)
        hand.append(entry)
    return {
        "seat": seat,
        "team": seat % 2,
        "partner": (seat + 2) % 4,
        "hand": hand,
        "legal": [_legal_entry(a, names) for a in legal],
        "prompt": BOT_PLAYS if bot_playing else prompt(view, names),
        "bot_playing": bot_playing,
    }


def house_rules_view(rules: PitchRules) -> dict[str, Any]:
    """The house rules as plain values (what the host form sends back) and their text."""
    return {**{name: getattr(rules, name) for name in RULE_CHOICES}, "text": str(rules)}


def rules_words(target: int, rules: PitchRules, bot_kind: str, reaction_ms: float) -> list[str]:
    """The match's rules as the display lists them, every house rule said.

    >>> rules_words(52, DEFAULT_RULES, "bot", 230.0)[1:3]
    ['bots: bot, react in 230 ms', 'the jokers are marked high and low']
    """
    words = [f"10 Point Pitch to {target} points", f"bots: {bot_kind}, react in {reaction_ms:g} ms"]
    words += [RULE_SENTENCES[name, getattr(rules, name)] for name in RULE_CHOICES]
    return words


def public_view(
    *,
    code: str,
    join_url: str,
    seats: Sequence[dict[str, Any]],
    game: PitchGame | None,
    phase: str,
    variant: str,
    target: int,
    log: Sequence[str],
    showdown: dict[str, Any] | None,
    paused: str | None,
    host_paused: bool = False,
    house_rules: PitchRules | None = None,
    bot_kind: str = "bot",
    reaction_ms: float = 230.0,
    reveal: dict[str, Any] | None = None,
    cannot_save: bool = False,
) -> dict[str, Any]:
    """What every connection sees (the room's arguments: as engine.uno.table_views'
    ``public_view``). ``family`` names the renderer (the pages' pitch_*.js);
    ``pitch`` is the hand's public part, null in the lobby."""
    rules = house_rules if isinstance(house_rules, PitchRules) else DEFAULT_RULES
    if game is not None:
        rules, target = game.rules, game.target
    names = [entry.get("name") or f"seat{entry['seat']}" for entry in seats]
    table: dict[str, Any] = {
        "family": "pitch",
        "code": code,
        "join_url": join_url,
        "phase": phase,
        "variant": variant,
        "target": target,
        "round": None,
        "turn": None,
        "top": None,
        "colour": None,
        "direction": None,
        "scores": None,
        "log": list(log),
        "showdown": showdown,
        "paused": paused,
        "cannot_save": cannot_save,
        "host_paused": host_paused,
        "house_rules": house_rules_view(rules),
        "bots": {"kind": bot_kind, "reaction_ms": reaction_ms},
        "rules": rules_words(target, rules, bot_kind, reaction_ms),
        "party": None,
        "pitch": None,
    }
    table["seats"] = [
        {**entry, "cards": None, "uno": False, "catchable": False, "team": entry["seat"] % 2}
        for entry in seats
    ]
    if game is not None and len(seats) == 4:
        view = game.view(None)
        for entry in table["seats"]:
            entry["cards"] = view.hand_sizes[entry["seat"]]
        table.update(
            round=view.round,
            turn=view.to_act,
            scores=list(view.scores),
            pitch=pitch_public(view, names),
        )
    return table

"""10 Point Pitch at the shared screen: what the table and a seated player see.

:class:`PitchScreen` is the terminal's :class:`engine.apps.screen.SharedScreen`
(who sits at it, the private screen wiped before it is passed on, the recaps)
told in Pitch's words: the events as engine.pitch.words tells them (a card's
code beside its name, a trick's cards with its winner), the table from the
seated player's view (``PitchGame.view``: the bids, the trump with its
off-jack and jokers, the refill counts, the stock's fate, the burns, the trick
with who is out, the points taken), their hand with the dead cards apart, the
teams' scores to the target, and each hand's points against its contract.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from engine.apps.screen import SharedScreen
from engine.match import MatchEvent
from engine.pitch.cards import DECK, SUIT_NAMES, is_trump, off_jack, point_value, trump_rank
from engine.pitch.game import Phase, PitchGame
from engine.pitch.words import bid_name, card_name, event_text, team_name
from firmware_host.people.words import plural, verb

__all__ = ["PitchScreen", "HELP", "team_line", "card_key", "card_words", "trump_line"]

HELP = (
    "Commands at any prompt: ? or help (this), scores, hand (your hand, once you are at "
    "the screen), quit (asks first).",
    "10 Point Pitch: two teams, partners sit opposite (the 1st and 3rd player against the "
    "2nd and 4th) and share one score; the first team to the target (52 unless "
    "--target says otherwise) wins.",
    "Cards: a rank (A K Q J T=10 9 ... 2) and a suit (C clubs, D diamonds, H hearts, "
    "S spades): AH ace of hearts, TD 10 of diamonds; HJ the high joker, LJ the low joker.",
    "A hand, in order:",
    "  bid     each player bids once, from the dealer's left: pass, or more than the high "
    "bid (4-9, or moon: Shoot the Moon, all 10 points); if the others all pass, the "
    "dealer is stuck and bids 4",
    "  trump   the highest bidder (the pitcher) names trump: 16 trumps, high to low A K Q J, "
    "the off-jack (the jack of the other suit of the same colour: JD when hearts are "
    "trump), HJ, LJ, 10 ... 2",
    "  refill  everyone throws away every non-trump and draws back to 6 cards (how many "
    "each draws is public); non-trumps drawn are dead",
    "  stock   the pitcher takes the rest of the stock, or gives it unseen to the partner: "
    "decided before seeing it",
    "  burn    more than 6 trumps: throw away (burn) trumps down to 6; their points go to nobody",
    "  tricks  the pitcher leads; only trumps are played, any trump; the highest wins the "
    "trick and leads the next; a player with no trump left is out for the hand",
    "Points (10 a hand): the A, J, off-jack, HJ, LJ, 10 and 2 of trump 1 each, the 3 of "
    "trump 3; each to the team that takes it in a trick.",
    "Score: the pitcher's team adds what it took if that reaches its bid, else it loses "
    "the bid (a score may go below 0); the other team adds what it took. Moon made: the "
    "team wins at once (from a score below 0 it goes back to 0); Moon failed: it loses.",
    "Actions: type the menu's number, or the action:",
    "  5, bid 5, moon, pass   a bid (at a bid a number is the bid: 0 passes, 10 the Moon)",
    "  hearts, h, trump h     name hearts trump",
    "  keep, give             take the rest of the stock, or give it to your partner unseen",
    "  AH, play AH, ace, 10h  play (or burn) that card; a rank alone if you hold one trump "
    "of it; hj, lj the jokers",
)


def card_key(card: str, trump: str | None) -> tuple[int, int]:
    """How a hand lists its cards: trumps high to low, then the dead ones (before
    trump: in the deck's order, high first).

    >>> sorted(["2H", "KS", "JD", "AH"], key=lambda c: card_key(c, "H"))
    ['AH', 'JD', '2H', 'KS']
    """
    if trump is not None and is_trump(card, trump):
        return (0, -trump_rank(card, trump))
    return (1, -DECK.index(card))


def team_line(names: Sequence[str], team_scores: Sequence[int], target: int) -> str:
    """The two teams' scores, by their players' names.

    >>> team_line(["Ann", "bot1", "Bob", "bot3"], (12, -4), 52)
    'Ann and Bob 12, bot1 and bot3 -4 (first to 52 wins)'
    """
    a, b = team_scores
    return f"{team_name(0, names)} {a}, {team_name(1, names)} {b} (first to {target} wins)"


class PitchScreen(SharedScreen):
    """The shared screen of a Pitch match (the hooks of SharedScreen, in Pitch's words)."""

    HELP_LINES = HELP
    game: PitchGame

    def __init__(self, game: PitchGame, *args: Any, **kwargs: Any):
        super().__init__(game, *args, **kwargs)
        self._hand_start = game.team_scores  # the scores a hand's outcome is told against
        self._forced_told = 0  # the hand whose auto-play was told
        self._refilling = False  # the trump's event is told, the refill's not yet

    # -- the events -----------------------------------------------------------------

    def event_line(self, event: MatchEvent, player: int | None) -> str:
        text = event_text(event, self.names, player)
        data = event.data
        if event.kind in ("play", "burn") and data.get("card"):
            text = f"{text[:-1]} ({data['card']})."
        elif event.kind == "trick":
            cards = ", ".join(f"{self.names[s]} {c}" for s, c in data["cards"])
            text = f"{text[:-1]}: {cards}."
        return text

    def card_key(self, card: str) -> tuple[int, int]:
        return card_key(card, self.game.trump)

    def on_event(self, event: MatchEvent) -> None:
        if event.kind == "round_start":
            self._hand_start = self.game.team_scores
        # Naming trump refills the hands: the new cards are told after the refill's line.
        self._refilling = event.kind == "trump"
        super().on_event(event)

    def show_new_cards(self) -> None:
        if not self._refilling:
            super().show_new_cards()

    def tell_forced(self, player: int) -> None:
        """R7: only ``player`` still holds trumps and leads: the rest plays itself (told once)."""
        if self._forced_told == self.game.round:
            return
        self._forced_told = self.game.round
        who = "you" if player == self.at_screen else self.names[player]
        holds = "hold" if who == "you" else "holds"
        self.print_fn(
            f"Only {who} still {holds} trumps: the rest of the hand is forced and plays itself."
        )

    # -- the seated player's view ---------------------------------------------------

    def hand_line(self, player: int) -> str:
        game = self.game
        trump = game.trump
        cards = sorted(game.hand(player), key=self.card_key)
        if trump is None:
            shown = " ".join(cards) or "no cards"
        else:
            trumps = [c for c in cards if is_trump(c, trump)]
            dead = [c for c in cards if not is_trump(c, trump)]
            shown = " ".join(trumps) if trumps else "no trumps"
            if dead:
                shown += f" · dead (never played): {' '.join(dead)}"
        name = self.names[player]
        return f"Your hand: {shown}" if name.casefold() == "you" else f"{name}, your hand: {shown}"

    def status(self, player: int) -> None:
        """The table as ``player`` sees it, then their hand."""
        self.print_fn("")
        for line in self.table_lines(player):
            self.print_fn(line)
        self.print_fn(self.hand_line(player))
        self._known[player] = Counter(self.game.hand(player))

    def table_lines(self, player: int | None) -> list[str]:
        """The public facts of the hand, as ``player`` may know them (their view)."""
        view = self.game.view(player)
        names = self.names
        lines = [
            f"Hand {view.round} · {verb(names[view.dealer], 'deal')} · "
            + team_line(names, view.team_scores, view.target)
        ]
        bids = ", ".join(f"{names[s]} {bid_name(b)}" for s, b in view.bids) or "none yet"
        if view.phase is Phase.BID or view.contract is None or view.pitcher is None:
            high = ""
            if view.high_bid is not None:
                bidder = next(s for s, b in reversed(view.bids) if b is not None)
                high = f" · high bid {bid_name(view.high_bid)} ({names[bidder]})"
            lines.append(f"Bids: {bids}{high}")
        else:
            lines.append(
                f"Bids: {bids} · {verb(names[view.pitcher], 'pitch')} at {bid_name(view.contract)}"
            )
        if view.trump is not None:
            lines.append(trump_line(view.trump))
            lines.extend(self._after_trump(view))
        return lines

    def _after_trump(self, view: Any) -> list[str]:
        names = self.names
        lines = []
        if any(n is not None for n in view.refills):
            drew = ", ".join(
                f"{names[s]} {'?' if n is None else n}" for s, n in enumerate(view.refills)
            )
            stock = f"{plural(view.stock_size, 'card')} left in the stock"
            if view.stock_receiver is not None:
                pitcher = names[view.pitcher]
                stock = (
                    f"{pitcher} took the rest of the stock ({view.stock_received})"
                    if view.stock_receiver == view.pitcher
                    else f"{pitcher} gave the rest of the stock ({view.stock_received}) "
                    f"unseen to {names[view.stock_receiver]}"
                )
            lines.append(f"Drew back to 6: {drew} · {stock}")
        if view.burned:
            burned = ", ".join(f"{names[s]} {c or 'one face down'}" for s, c in view.burned)
            lines.append(f"Burned: {burned}")
        if view.phase is Phase.PLAY or view.tricks:
            lines.append(self._trick_line(view))
        return lines

    def _trick_line(self, view: Any) -> str:
        names = self.names
        number = len(view.tricks) + 1
        if view.trick:
            played = ", ".join(f"{names[s]} {c}" for s, c in view.trick)
            trick = f"Trick {number}: {played}"
        elif view.phase is Phase.PLAY:
            trick = f"Trick {number}: nothing played yet"
        else:
            trick = f"{plural(len(view.tricks), 'trick')} played"
        out = [names[s] for s in range(4) if view.out[s]]
        out_text = f" · out: {', '.join(out)}" if out else ""
        a, b = view.taken
        return (
            f"{trick}{out_text} · points taken: {team_name(0, names)} {a}, "
            f"{team_name(1, names)} {b}"
        )

    # -- scores ---------------------------------------------------------------------

    def show_scores(self) -> None:
        game = self.game
        self.print_fn(f"Hand {game.round}; {game.target} points win the match.")
        self.print_fn("  " + team_line(self.names, game.team_scores, game.target))
        if game.contract is not None and game.pitcher is not None and not game.round_over:
            pitcher = self.names[game.pitcher]
            a, b = game.taken
            self.print_fn(
                f"  This hand: {verb(pitcher, 'pitch')} at {bid_name(game.contract)}; taken "
                f"so far: {team_name(0, self.names)} {a}, {team_name(1, self.names)} {b}"
            )
        if self.replay:
            self.print_fn(self.replay)

    def deal_prompt(self) -> str:
        return f"Press Enter to deal hand {self.game.round + 1} "

    def show_round_end(self) -> None:
        """The hand's points against its contract: who took which point, the result."""
        game = self.game
        outcome = game.outcome
        if outcome is None:
            return
        names = self.names
        for team in (0, 1):
            cards = self._points_taken(team)
            listed = f": {' '.join(cards)}" if cards else ""
            self.print_fn(f"  {team_name(team, names)} took {outcome.taken[team]}{listed}")
        if outcome.burned_points:
            self.print_fn(f"  Burned, scored by nobody: {plural(outcome.burned_points, 'point')}")
        self.print_fn(f"  {self._verdict(outcome)}")
        self.print_fn("  Scores: " + team_line(names, game.team_scores, game.target))

    def _points_taken(self, team: int) -> list[str]:
        """The point cards ``team`` took in tricks, when they add up to its points."""
        trump = self.game.trump
        if trump is None:
            return []
        cards = [
            card
            for trick in self.game.tricks
            if trick.winner % 2 == team
            for _, card in trick.cards
            if point_value(card, trump)
        ]
        outcome = self.game.outcome
        total = sum(point_value(c, trump) for c in cards)
        return cards if outcome is not None and total == outcome.taken[team] else []

    def _verdict(self, outcome: Any) -> str:
        """The contract made, set, or the Moon, and what each team scores."""
        names = self.names
        side = outcome.pitcher % 2
        pitchers, others = team_name(side, names), team_name(1 - side, names)
        before = self._hand_start
        after = outcome.scores[0], outcome.scores[1]
        took = outcome.taken[side]
        if outcome.moon:
            if not outcome.made:
                return f"Shoot the Moon failed ({took} of 10): {pitchers} lose the match."
            if outcome.match_winner is not None and outcome.match_winner % 2 == side:
                return f"Shoot the Moon made: all 10 points: {pitchers} win the match at once."
            return f"Shoot the Moon made from below 0: {pitchers} go back to 0."
        bid = bid_name(outcome.contract)
        change = after[side] - before[side]
        other = after[1 - side] - before[1 - side]
        if outcome.made:
            result = f"{pitchers} bid {bid} and took {took}: made, {change:+d}"
        else:
            result = f"{pitchers} bid {bid} and took only {took}: set, {change:+d}"
        return f"{result}; {others} {other:+d}."

    def show_final_scores(self, event: MatchEvent) -> None:
        self.print_fn("Final scores:")
        scores = event.data["scores"]
        self.print_fn("  " + team_line(self.names, (scores[0], scores[1]), self.game.target))
        if self.replay:
            self.print_fn(self.replay)
        self.print_fn(self.event_line(event, None))


def trump_line(trump: str) -> str:
    """The trump suit and what else is trump.

    >>> trump_line("H")
    'Trump: hearts · also trumps: the off-jack JD (after JH) and the jokers HJ, LJ (after JD)'
    """
    jack = off_jack(trump)
    return (
        f"Trump: {SUIT_NAMES[trump]} · also trumps: the off-jack {jack} (after J{trump}) "
        f"and the jokers HJ, LJ (after {jack})"
    )


def card_words(card: str, trump: str | None) -> str:
    """A card's name, with its points when it is a trump that scores.

    >>> card_words("3H", "H"), card_words("JD", "H"), card_words("9H", "H")
    ('3 of hearts, 3 points', 'jack of diamonds (the off-jack), 1 point', '9 of hearts')
    """
    name = card_name(card)
    if trump is None:
        return name
    if card == off_jack(trump):
        name += " (the off-jack)"
    points = point_value(card, trump) if is_trump(card, trump) else 0
    return f"{name}, {plural(points, 'point')}" if points else name

"""The table's book of finished matches (``showdown table --results``): each
finished match written once, as the league's wire reads it."""

from __future__ import annotations

import argparse
import json
import logging
import re
from types import SimpleNamespace

import pytest

from engine.apps.table.match_book import MatchBook, match_body
from firmware_host.protocol.league import decode_result, encode, match_message, result_topic
from tests.room_helpers import hello, host, make_room, phone, refusals, run_machines, start


def play_to_the_end(room, display):
    """The machines play (a bot for Ann too) until the match is over."""
    for _ in range(1000):
        if run_machines(room) == "next_round":
            assert refusals(host(room, display, "next_round")) == []
        if room.phase == "match_over":
            return
    raise AssertionError("the match did not end")


def bot_match(tmp_path, *, seed=3, book=None):
    room = make_room(seats=2, seed=seed)
    room.match_book = book or MatchBook(tmp_path / "matches.sqlite3")
    display = hello(room)
    phone(room, 0, "Ann")
    assert refusals(start(room, display, bots=1, target=10)) == []
    assert refusals(host(room, display, "hand_to_bot", seat=0)) == []
    return room, display


def test_a_finished_match_is_written_once_with_its_players_scores_and_winner(tmp_path):
    room, display = bot_match(tmp_path)
    assert room.match_book.rows() == []
    play_to_the_end(room, display)
    hello(room)  # more changes after the end write nothing more
    rows = room.match_book.rows()
    assert len(rows) == 1
    entry, match_id, finished_at, body = rows[0]
    game = room.game
    winner = room.names[game.match_winner]
    assert (entry, match_id) == (1, room.match_id)
    assert json.loads(body) == {
        "match_id": room.match_id,
        "game": room.variant,
        "rounds": game.round,
        "winners": [winner],
        "players": [
            {"name": "Ann", "bot": False, "score": game.scores[0]},  # a bot played for her
            {"name": "bot1", "bot": True, "score": game.scores[1]},
        ],
    }
    assert finished_at > 0


def test_the_written_match_is_a_result_the_league_accepts(tmp_path):
    room, display = bot_match(tmp_path)
    play_to_the_end(room, display)
    entry, match_id, finished_at, body = room.match_book.rows()[0]
    fields = json.loads(body)
    message = match_message(
        "bar-1",
        "table-1",
        entry,
        finished_at,
        match_id,
        game=fields["game"],
        players=fields["players"],
        winners=fields["winners"],
        rounds=fields["rounds"],
    )
    received = decode_result(result_topic("bar-1", "table-1"), encode(message))
    assert received.id == f"table-1:match:{room.match_id}"
    assert {o.player: o.outcome for o in received.outcomes} == {
        name: "win" if name in fields["winners"] else "loss" for name in ("Ann", "bot1")
    }


def test_the_next_match_is_a_second_row_under_its_own_id(tmp_path):
    room, display = bot_match(tmp_path)
    play_to_the_end(room, display)
    first = room.match_id
    assert refusals(start(room, display, bots=1, target=10)) == []
    assert refusals(host(room, display, "hand_to_bot", seat=0)) == []
    play_to_the_end(room, display)
    assert [row[1] for row in room.match_book.rows()] == [first, room.match_id]
    assert first != room.match_id


class FailingOnce(MatchBook):
    def __init__(self, path):
        super().__init__(path)
        self.failures = 1

    def record(self, body, *, finished_at):
        if self.failures:
            self.failures -= 1
            raise OSError(f"{self.path}: cannot write the match result: disk I/O error")
        return super().record(body, finished_at=finished_at)


def test_a_book_that_cannot_be_written_is_logged_and_written_at_the_next_change(tmp_path, caplog):
    book = FailingOnce(tmp_path / "matches.sqlite3")
    room, display = bot_match(tmp_path, book=book)
    with caplog.at_level(logging.ERROR):
        play_to_the_end(room, display)
    assert book.rows() == []
    assert "cannot write the match result: disk I/O error (tried again" in caplog.text
    assert room.phase == "match_over"  # the game did not wait for the book
    hello(room)  # the next change
    assert [row[1] for row in book.rows()] == [room.match_id]


def test_a_team_game_names_every_seat_of_the_winning_team():
    game = SimpleNamespace(match_winner=1, teams=((0, 2), (1, 3)), round=4, scores=(31, 52, 31, 52))
    body = match_body(
        game,
        match_id="m1",
        variant="pitch",
        names=["Ann", "Bob", "Cy", "Di"],
        bots=[False, False, True, True],
    )
    assert body["winners"] == ["Bob", "Di"]
    assert [p["score"] for p in body["players"]] == [31, 52, 31, 52]


def test_a_match_not_over_is_not_a_result():
    game = SimpleNamespace(match_winner=None, teams=((0,), (1,)), round=1, scores=(0, 0))
    with pytest.raises(ValueError, match="not over"):
        match_body(game, match_id="m1", variant="classic", names=["A", "B"], bots=[False, True])


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--companion", "--results", "x.sqlite3"], "--results keeps the phones' table's"),
        (["--results", "/nonexistent/folder/m.sqlite3"], "--results: /nonexistent/folder"),
    ],
)
def test_results_options_that_cannot_work_are_refused_in_words(argv, message):
    from engine.apps.table.table_cmd import add_arguments, command
    from firmware_host.people.console import UsageError

    parser = argparse.ArgumentParser(exit_on_error=False)
    add_arguments(parser)
    with pytest.raises(UsageError, match=re.escape(message)):
        command(parser.parse_args(argv))

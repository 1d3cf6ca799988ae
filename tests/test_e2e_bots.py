"""End to end: bots play whole matches on a real unit daemon on mock pins (a
subprocess) with nobody pressing anything: the unit presses each bot's
paddle itself and starts each showdown of two bots by itself. Every verdict
is in the unit's journal exactly once, marked with its bot sides."""

import logging
import re

import pytest

from engine.apps.play import play_game
from engine.match import Driver
from engine.units.remote import RemoteUnit
from engine.uno.bots import HeuristicBot
from engine.uno.game import Game
from tests.daemon_helpers import running_daemon
from tests.e2e_helpers import (
    E2E_CONFIG,
    SimulatedPerson,
    check_against_journal,
    fast_table,
    play,
)

pytestmark = pytest.mark.slow

#: What the engine would send if anyone pressed a paddle or the timer button.
PRESSES = re.compile(r'"cmd":\s*"(bench_press|bench_release|bench_timer|start)"')


def sent_commands(caplog) -> list[str]:
    """The commands the engine sent (the link logs each line at DEBUG)."""
    return [
        record.getMessage()
        for record in caplog.records
        if record.name == "engine.units.unit_link" and " > " in record.getMessage()
    ]


@pytest.mark.parametrize("players, seed, target", [(2, 2, 25), (3, 2, 25)])
def test_a_match_of_bots_on_a_mock_unit_daemon_finishes_with_no_one_pressing(
    tmp_path, caplog, players, seed, target
):
    caplog.set_level(logging.DEBUG, logger="engine.units.unit_link")
    said: list[str] = []
    with running_daemon(tmp_path, config_text=E2E_CONFIG) as daemon:
        url = f"socket://127.0.0.1:{daemon.port}"
        port = RemoteUnit(url, id_prefix="bots", say=said.append)  # no table, no start
        with port:
            assert port.presses_for_bots
            match = play(port, seed=seed, target=target, players=players, bots=True)
        showdowns = check_against_journal(match, port, daemon.journal_path)
        assert daemon.stop() == 0
    assert showdowns >= 1  # how many varies: the unit draws the bots' presses
    sent = sent_commands(caplog)
    assert sent and not [line for line in sent if PRESSES.search(line)]
    assert not [line for line in said if "Press the timer button" in line]
    loads = [line for line in said if line.startswith("Load ")]
    assert loads and all(line.endswith("The unit starts by itself.") for line in loads)
    events = [e.data for e in match.events if e.kind == "showdown"]
    assert {e["reason"] for e in events} == {"faster"}  # a bot never false-starts
    assert all(sorted(e["bots"]) == sorted((e["challenger"], e["opponent"])) for e in events)
    verdicts = [line for line in said if " takes " in line]
    assert len(verdicts) == showdowns
    assert all(line.count("(bot)") == 2 for line in verdicts)


def test_showdown_play_with_two_bots_on_a_mock_unit_daemon_needs_no_one(tmp_path):
    lines: list[str] = []
    with running_daemon(tmp_path, config_text=E2E_CONFIG) as daemon:
        status = play_game(
            ["bot", "bot"],
            unit=f"socket://127.0.0.1:{daemon.port}",
            seed=4,
            target=20,
            input_fn=None,  # nobody at the keyboard either
            print_fn=lines.append,
            unit_options={"id_prefix": "play"},
        )
        assert status == 0
        assert daemon.stop() == 0
    assert not [line for line in lines if "Press the timer button" in line]
    assert [line for line in lines if line.startswith("Load ")]
    assert re.fullmatch(r".* wins the match.*", lines[-1])


def test_a_person_against_a_bot_presses_only_their_own_paddle(tmp_path):
    """The simulated table presses the person's paddle and the timer button;
    the unit presses the bot's."""
    with running_daemon(tmp_path, config_text=E2E_CONFIG) as daemon:
        port = RemoteUnit(
            f"socket://127.0.0.1:{daemon.port}", table=fast_table(2), id_prefix="mixed"
        )
        game = Game.new(2, "showdown", seed=2, target=60)
        agents = [SimulatedPerson("Ann"), HeuristicBot("Bob", reaction_ms=150)]
        match = Driver(game, agents, port, names=["Ann", "Bob"], debug=True, match_id="mix")
        with port:
            match.run()
        assert check_against_journal(match, port, daemon.journal_path) >= 3
        assert daemon.stop() == 0

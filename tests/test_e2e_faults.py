"""End to end, with faults: the daemon killed mid-showdown and restarted on the
same port and journal, noise on the link both ways, a link cut just before a
result, a jammed launcher, and a unit that is busy, absent or on the wrong port.
Whatever happens, the match finishes with every card in one place and every
showdown applied exactly once (checked against the unit's journal)."""

import re

import pytest

from engine.apps.demo import UnitDaemon
from engine.apps.play import play_game
from engine.units.ports import ShowdownRequest
from engine.units.remote import PauseOnProblem, RemoteUnit, UnitBusy, UnitJam, UnitUnreachable
from tests.daemon_helpers import Client, refusing_port, running_daemon
from tests.e2e_helpers import (
    E2E_CONFIG,
    LinkOpens,
    NoisyProxy,
    check_against_journal,
    fast_table,
    play,
)


class KillingTable:
    """The fast table, except that at the chosen (showdown number, event)
    moments it kills the daemon (SIGKILL) and starts it again on the same port
    and journal, before the engine hears any more."""

    def __init__(self, inner, daemon: UnitDaemon, kills: set[tuple[int, str]]):
        self.inner = inner
        self.daemon = daemon
        self.kills = set(kills)
        self.ids: list[str] = []
        self.killed: list[tuple[str, str]] = []

    def armed(self, link, request, unit_id):
        if unit_id not in self.ids:
            self.ids.append(unit_id)
        self.inner.armed(link, request, unit_id)

    def event(self, link, event):
        moment = (len(self.ids), event.name)
        if moment in self.kills:
            self.kills.discard(moment)
            self.killed.append((self.ids[-1], event.name))
            port = self.daemon.port
            self.daemon.kill()
            self.daemon.listen = f"127.0.0.1:{port}"
            assert self.daemon.start() == port
            return
        self.inner.event(link, event)


def test_the_daemon_killed_mid_showdown_comes_back_and_the_match_finishes(tmp_path):
    daemon = UnitDaemon(tmp_path, config_text=E2E_CONFIG)
    daemon.start()
    try:
        said = []
        table = KillingTable(fast_table(2), daemon, {(2, "go"), (5, "launched")})
        port = RemoteUnit(daemon.url, table=table, id_prefix="kill", say=said.append)
        with port:
            match = play(port, seed=2, target=40)
        assert check_against_journal(match, port, daemon.journal_path) >= 5
    finally:
        assert daemon.stop() == 0
    assert [event for _, event in table.killed] == ["go", "launched"]
    lost = [line for line in said if line.startswith("Lost the link")]
    assert len(lost) == 2
    # A showdown killed at GO was never recorded: it was armed again, same id, and fought.
    killed_at_go = table.killed[0][0]
    assert killed_at_go in port.unit_ids.values()


def test_noise_on_the_link_both_ways_changes_nothing(tmp_path):
    with running_daemon(tmp_path, config_text=E2E_CONFIG) as daemon:
        proxy = NoisyProxy(daemon.port, junk_to_unit=3, junk_to_engine=4)
        opens = LinkOpens()
        try:
            port = RemoteUnit(proxy.url, table=fast_table(2), id_prefix="noise", open_port=opens)
            with port:
                match = play(port, seed=2, target=40)
        finally:
            proxy.close()
        check_against_journal(match, port, daemon.journal_path)
        assert proxy.junk_sent > 30
        assert proxy.null_id_errors >= 10  # the unit answered its share of the noise
        assert opens.count == 1  # noise is no reason to reconnect


def test_a_link_cut_just_before_a_result_is_answered_from_the_journal(tmp_path):
    with running_daemon(tmp_path, config_text=E2E_CONFIG) as daemon:
        proxy = NoisyProxy(daemon.port, cut_before=b'"event":"result"', cut_at=4)
        said, opens = [], LinkOpens()
        try:
            port = RemoteUnit(
                proxy.url, table=fast_table(2), id_prefix="cut", say=said.append, open_port=opens
            )
            with port:
                match = play(port, seed=2, target=40)
        finally:
            proxy.close()
        check_against_journal(match, port, daemon.journal_path)
        assert proxy.cuts == 1 and opens.count == 2
        assert [line for line in said if line.startswith("Lost the link")] == [
            "Lost the link to the unit (read failed: socket disconnected): reconnecting..."
        ]
        assert "already in the journal: answered from there" in daemon.log_text()


JAM_CONFIG = (
    E2E_CONFIG.replace("[launcher]\n", "[launcher]\nmax_run_s = 0.05\n")
    + """
[pins]
card_sensor = 16
"""
)


def test_a_jam_pauses_the_game_and_the_table_decides_how_to_go_on(tmp_path):
    request = ShowdownRequest("m1:r1:s1", 1, 0, "Bob", "Ann", 2)
    with running_daemon(tmp_path, config_text=JAM_CONFIG) as daemon:
        with Client.tcp(daemon.port) as client:
            assert "card_sensor" in client.hello()["capabilities"]
        port = RemoteUnit(f"socket://127.0.0.1:{daemon.port}", table=fast_table(1), id_prefix="jam")
        with port:
            with pytest.raises(UnitJam) as caught:
                port.run_showdown(request)
            problem = caught.value
            loser = problem.loser
            assert loser in (0, 1)
            name = request.name(loser)
            assert str(problem).startswith("The launcher jammed (0 of 2 counted): ")
            assert str(problem).endswith(f"; {name} takes 2 cards")
            assert problem.what_to_do == (
                f"Clear the launcher and give {name} the cards still in the unit, then retry "
                f"to go on with the unit's verdict ({name} takes the cards), or decide by hand."
            )
            # At the table: the game pauses, says what to do, and "r" goes on.
            lines, answers = [], iter(["r"])
            paused = PauseOnProblem(
                port, input_fn=lambda prompt: next(answers), output_fn=lines.append
            )
            second = ShowdownRequest("m1:r1:s2", 0, 1, "Ann", "Bob", 1)
            outcome = paused.run_showdown(second)
            assert lines[0].startswith("The game is paused: The launcher jammed (0 of 1 counted)")
            assert lines[1].startswith("What to do: Clear the launcher and give ")
            assert outcome.detail.endswith("(unit showdown jam-m1:r1:s2)")
            assert outcome.reason in ("faster", "false_start")
        assert daemon.stop() == 0


def test_a_busy_unit_is_named_with_its_url(tmp_path):
    with running_daemon(tmp_path, config_text=E2E_CONFIG) as daemon:
        url = f"socket://127.0.0.1:{daemon.port}"
        with Client.tcp(daemon.port) as other:
            other.hello()
            other.request(
                "showdown", showdown_id="someone-else", cards=1, players={"a": "X", "b": "Y"}
            )
            assert other.request("start")["ok"]  # nobody presses: it runs 2 s
            with pytest.raises(UnitBusy) as caught:
                RemoteUnit(url).open()
            assert str(caught.value).startswith(f"the unit at {url} is busy: ")
            assert str(caught.value).endswith(", showdown someone-else")
            with pytest.raises(UnitBusy, match=f"the unit at {url} is busy with another showdown"):
                RemoteUnit(url).run_showdown(ShowdownRequest("m1:r1:s1", 0, 1, "Ann", "Bob", 1))


def test_an_unreachable_unit_is_named_with_its_url():
    with refusing_port() as free, pytest.raises(UnitUnreachable) as caught:
        url = f"socket://127.0.0.1:{free}"  # nobody listens there
        RemoteUnit(url).open()
    port = url.removeprefix("socket://")
    assert str(caught.value) == (
        f"cannot reach the unit at {url}: connection refused: nothing listens at {port}"
    )
    assert caught.value.what_to_do.startswith("Check that the unit is switched on")
    with pytest.raises(UnitUnreachable, match="cannot reach the unit at /dev/ttyNOPE0: "):
        RemoteUnit("/dev/ttyNOPE0").open()


def test_showdown_play_on_a_jamming_unit_tells_the_table_and_goes_on_after_r(tmp_path):
    with running_daemon(tmp_path, config_text=JAM_CONFIG) as daemon:
        lines, prompts = [], []

        def answer(prompt):
            prompts.append(prompt)
            return "r"

        status = play_game(
            ["bot", "bot"],
            unit=f"socket://127.0.0.1:{daemon.port}",
            seed=8,  # about 9 showdowns
            target=20,
            input_fn=answer,
            print_fn=lines.append,
            unit_options={"id_prefix": "play"},  # the unit presses for both bots
        )
        assert status == 0
        assert daemon.stop() == 0
    assert lines[0] == "Match: bot0, bot1; showdown to 20 points."
    first = next(i for i, line in enumerate(lines) if line.startswith("Load "))
    bot = r"bot\d \(side [AB], a bot: the unit presses for it\)"
    assert re.fullmatch(
        rf"Load \d cards? into the unit: {bot} vs {bot}\. The unit starts by itself\.",
        lines[first],
    )
    assert lines[first + 1 : first + 4] == ["  countdown 1/3", "  countdown 2/3", "  countdown 3/3"]
    paused = [i for i, line in enumerate(lines) if line.startswith("The game is paused: ")]
    showdowns = [line for line in lines if line.startswith("Load ")]
    assert len(paused) == len(prompts) == len(showdowns) >= 1  # every launch jammed
    assert not [line for line in lines[first : paused[0]] if " wins: " in line]  # said once
    assert re.fullmatch(
        r"The game is paused: The launcher jammed \(0 of \d counted\): bot\d wins: "
        r"(bot\d \(bot\) [\d.]+ ms, bot\d \(bot\) [\d.]+ ms"
        r"(, margin [\d.]+ ms| \(bot\d did not press in time\))"
        r"|bot\d \(bot\) [\d.]+ ms; bot\d \(bot\) did not press); "
        r"bot\d takes \d cards?\.",
        lines[paused[0]],
    )
    assert lines[paused[0] + 1].startswith("What to do: Clear the launcher and give bot")
    assert set(prompts) <= {
        "Type r to retry, or who takes the cards (bot0/bot1): ",
        "Type r to retry, or who takes the cards (bot1/bot0): ",
    }
    assert re.fullmatch(r"bot\d wins the match with \d+ points after \d+ rounds?\.", lines[-1])


def test_showdown_play_with_no_unit_there_says_so_and_exits_1():
    lines = []
    with refusing_port() as free:
        url = f"socket://127.0.0.1:{free}"
        code = play_game(["bot", "bot"], unit=url, seed=1, input_fn=None, print_fn=lines.append)
    assert code == 1
    assert lines[-1].startswith(f"error: cannot reach the unit at {url}: connection refused: ")
    assert lines[-1].endswith(
        "Check that the unit is switched on and its daemon is running (showdown-unit run), "
        "and that it listens on that address and port (server.listen in its config), then retry."
    )

"""Shared fixtures, the two test tiers, and the Hypothesis profiles.

Fixtures: virtual time and gpiozero mock pins on it. Every hardware test runs
on a :class:`hw.mock.VirtualMockFactory`, so pin edges carry ticks from
``virtual_clock`` and nothing waits for real time.

Tiers: a test is ``slow`` when it starts a process (a real browser is one),
opens a network socket or runs on the real clock, or is one of the few heavy
ones (0.3 s of CPU or more); the lists below say which and why. ``make check``
runs ``pytest -m "not slow"`` (the fast inner loop, doctests included) as two
processes, each taking half (``--shard``, tests/shards.py); ``make test`` runs
everything. A test not marked slow that starts a
process, opens a network socket or waits on the real clock fails, in either
tier, with a message saying where to list it (:class:`FastTierGuard`).

Hypothesis: profile "ci" (derandomized, no deadline, no example database) when
``$CI`` is set or with ``--hypothesis-profile=ci`` (``make test``); "check", the
same with at most ``CHECK_EXAMPLES`` examples a test, even where a test's own
``@settings`` asks for more (``make check``); "dev", the defaults, otherwise.
"""

from __future__ import annotations

import argparse
import base64
import functools
import os
import random
import socket
import subprocess
import threading
import time

import pytest
from _pytest.doctest import DoctestModule
from gpiozero import Device
from hypothesis import HealthCheck, is_hypothesis_test, settings

from hw.board import Board
from hw.mock import VirtualMockFactory
from hw.pinmap import PinMap

# The league's real servers: mosquitto and PostgreSQL (tests/league_servers.py).
pytest_plugins = ("tests.league_servers",)

# -- Hypothesis profiles -----------------------------------------------------------------

# "ci": the same examples on every run, so a red CI run is the code's doing and can
# be repeated; no deadline and no too_slow health check, because a loaded runner's
# timing is not the code's; no example database, so nothing depends on a .hypothesis
# folder left from an earlier run; a failure prints the blob that reproduces it.
settings.register_profile(
    "ci",
    settings.get_profile("default"),
    derandomize=True,
    deadline=None,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
# "check": make check's, the fast tier. Derandomized like "ci", so that it takes the
# same time on every run (a random example can be a round of a million and a half
# moves: 72 s), and few examples: make test runs every test at full strength.
CHECK_EXAMPLES = 5
settings.register_profile("check", settings.get_profile("ci"), max_examples=CHECK_EXAMPLES)
# No deadline in any: a per-example time limit is a timing assertion, and these
# machines are shared and noisy.
settings.register_profile("dev", settings.get_profile("default"), deadline=None)
settings.load_profile("ci" if "CI" in os.environ else "dev")


def cap_examples(items: list[pytest.Item], most: int) -> None:
    """At most ``most`` examples for each Hypothesis test among ``items``, whatever
    its own ``@settings(max_examples=...)`` says (that wins over any profile)."""
    for item in items:
        obj = getattr(item, "obj", None)  # a doctest has none
        test = getattr(obj, "__func__", obj)  # a method's function
        if not is_hypothesis_test(test):
            continue
        # Where @given keeps the test's settings and reads them on each call.
        own = test._hypothesis_internal_use_settings
        if own.max_examples > most:
            test._hypothesis_internal_use_settings = settings(own, max_examples=most)


# -- fixtures ------------------------------------------------------------------------------


class VirtualClock:
    """Seconds that only move when a test says so."""

    def __init__(self, start: float = 0.0):
        self._now = start

    def now(self) -> float:
        return self._now

    def advance(self, seconds: float) -> float:
        if seconds < 0:
            raise ValueError(f"a clock cannot go back ({seconds!r} s)")
        self._now += seconds
        return self._now


@pytest.fixture
def virtual_clock():
    return VirtualClock()


#: The stream of the host keys and room codes made in the tests' process
#: (``install_table_secrets``), seeded the same before every test.
TABLE_SECRETS = random.Random()


def install_table_secrets():
    """Host keys and room codes made in the tests' process come, in the same shape
    as the OS's (``access``'s own makers), from ``TABLE_SECRETS``, seeded the same
    before every test (``pytest_runtest_setup``): each test's first room has the
    same key and code, so its welcome's QR codes (5 ms each) come from
    ``qr_data_uri``'s cache instead of being made again 472 times a fast tier.
    Within a test each new key still differs from the last (rotation tests).
    Processes the tests start keep the OS's randomness. Installed once for the
    session (an autouse fixture's monkeypatch cost 0.17 ms a test). Returns the undo."""
    from engine.apps.table import access

    made = access.new_host_key, access.new_room_code
    # secrets.token_urlsafe(16)'s own recipe, on the seeded stream's bytes
    access.new_host_key = lambda: (
        base64.urlsafe_b64encode(TABLE_SECRETS.randbytes(16)).rstrip(b"=").decode()
    )
    access.new_room_code = lambda: "".join(
        TABLE_SECRETS.choice(access.CODE_LETTERS) for _ in range(access.CODE_LENGTH)
    )

    def undo() -> None:
        access.new_host_key, access.new_room_code = made

    return undo


#: Threads that reconnect, with backoff, for as long as they run: one left after
#: its test keeps dialling a port its server gave up, which the kernel soon gives
#: another test's server (CI once saw a test's MQTT client, refused and never
#: stopped, reach tests/test_e2e_faults.py's unit proxy twice).
RECONNECTING_THREADS = ("paho-mqtt-client-",)
#: Those running when a test's setup began: its own are the others.
RECONNECTING_BEFORE = pytest.StashKey[set[threading.Thread]]()


def reconnecting_threads() -> set[threading.Thread]:
    return {t for t in threading.enumerate() if t.name.startswith(RECONNECTING_THREADS)}


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    TABLE_SECRETS.seed("table secrets")  # every test's keys and codes as the first test's
    item.stash[RECONNECTING_BEFORE] = reconnecting_threads()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item, nextitem):
    yield
    left = reconnecting_threads() - item.stash.get(RECONNECTING_BEFORE, set())
    if left:
        names = ", ".join(sorted(t.name for t in left))
        raise pytest.fail.Exception(
            f"{item.nodeid} leaves a client reconnecting after it ends ({names}): stop it "
            "(paho: loop_stop(), then disconnect()) in the test's finally or fixture",
            pytrace=False,
        )


@pytest.fixture
def mock_factory(virtual_clock):
    """A VirtualMockFactory on ``virtual_clock``, installed as gpiozero's
    default for the test, then reset and the previous default restored."""
    previous = Device.pin_factory
    factory = VirtualMockFactory(virtual_clock.now)
    Device.pin_factory = factory
    try:
        yield factory
    finally:
        factory.reset()
        Device.pin_factory = previous


@pytest.fixture
def mock_pin(mock_factory):
    """``mock_pin(bcm)`` -> that pin's InjectableMockPin."""
    return mock_factory.pin


@pytest.fixture
def board(mock_factory):
    """A Board on the default PinMap plus a card sensor on GPIO16."""
    with Board(PinMap(card_sensor=16), pin_factory=mock_factory) as board:
        yield board


# -- the slow tier ------------------------------------------------------------------------
# Slow: the test starts a process (the daemon, install.sh, a fresh interpreter, a
# browser), opens a network socket (its time is the network stack's), or runs on the
# real clock (a Unit whose event loop thread keeps real-time deadlines). A local
# socket (asyncio's socketpair, a Unix datagram socket in the test's folder) is not.

#: Test files whose every test is slow.
SLOW_FILES = {
    # A real daemon process (tests/daemon_helpers.running_daemon), talked to over TCP.
    "test_daemon.py",
    "test_daemon_serial.py",
    "test_daemon_signals.py",
    "test_link.py",
    "test_exactly_once.py",
    # Whole matches against a daemon process (tests/e2e_helpers), faults injected.
    "test_e2e.py",
    "test_e2e_faults.py",
    # benchmarks/chaos.py as a smoke test: daemons SIGKILLed at every state.
    "test_chaos.py",
    # A Unit or its EventLoop on the real clock, waited for with safety timeouts.
    "test_unit_api.py",
    "test_server_unit_hooks.py",
    "test_loop.py",
    # node runs static/clock.js, the phones' clock offset (paddles).
    "test_paddle_clock.py",
}

#: Slow tests in files that are otherwise fast, by function name.
SLOW_TESTS = {
    # test_party_playout.py, test_rl_incremental.py: every house rule and player count,
    # a whole game each (0.1-0.2 s apiece, some 70 of them); the fast tier keeps the
    # files' other tests (random positions, every family's variants).
    "test_party_playouts_play_every_decision_as_the_api",
    # test_party_playout_heuristic.py: the same sweep for the heuristic, against the Driver.
    "test_heuristic_playouts_play_as_the_driver_under_each_house_rule",
    "test_every_step_of_random_episodes_observes_the_full_rebuild",
    # test_uno_search_pinned.py: the search bot's own (interpreted) playouts, 1-1.5 s a round.
    "test_its_own_playouts_decide_as_when_first_measured",
    # test_uno_search_pinned4.py: the 4-player rounds as the plan before reading plays
    # played them (an option off in every plan; 0.25 s a round).
    "test_without_reading_plays_the_same_rounds_go_otherwise",
    # ... and as the flat plan (no tree) played them: the figures before the tree (0.15-0.3 s).
    "test_the_flat_search_makes_the_decisions_measured_before_the_tree",
    # test_rl_reinforce.py: 300 rounds of training and 400 of evaluation (about 4 s).
    "test_training_lifts_the_win_rate_against_the_heuristic_bot",
    # test_bench.py: its ``unit`` fixture is a real Unit on the real clock.
    "test_on_real_time_a_press_at_or_after_go_is_measured_from_the_real_go_tick",
    "test_on_real_time_a_press_before_go_is_a_false_start",
    "test_regression_a_bench_time_beyond_the_horizon_is_refused_and_the_loop_answers",
    "test_unit_bench_press_with_hold_keeps_the_paddle_down_for_start",
    # test_server.py: a whole showdown on a real Unit.
    "test_a_whole_showdown_through_the_server_on_a_real_unit",
    # test_cli_unit.py: `run` as a process; the keyboard UI on a real Unit.
    "test_run_headless_stops_cleanly_on_a_signal",
    "test_run_on_a_terminal_plays_the_table_from_the_keyboard",
    "test_the_keys_press_the_mock_pins_through_the_bench",
    "test_the_ui_prints_errors_with_their_codes",
    "test_printing_on_the_loop_thread_a_blocked_terminal_never_holds_up_the_unit",
    "test_the_ui_shows_events_it_takes_from_its_mailbox",
    # test_daemon_config.py: a daemon process; the Daemon run in-process, unit and threads.
    "test_the_auth_flow_on_a_remote_listener",
    "test_run_names_the_journal_and_the_serial_device_it_cannot_open",
    "test_a_reload_that_fails_unexpectedly_keeps_the_daemon_running",
    # A fresh interpreter: what an import pulls in, what `python -m` runs
    # (test_layout.py, test_engine_remote.py, test_protocol.py).
    "test_importing_a_package_loads_only_what_it_may_import",
    "test_engine_imports_no_hardware_and_nothing_of_the_daemon",
    "test_hw_imports_neither_daemon_nor_engine",
    "test_the_protocol_loads_nothing_else_of_the_project",
    "test_the_shared_vocabulary_loads_only_the_protocol_and_the_standard_library",
    "test_python_dash_m_runs_each_command",
    "test_importing_the_remote_port_loads_no_serial_library",
    "test_the_protocol_module_pulls_in_only_the_standard_library",
    # A second process: it crashes mid-launch, or holds or inherits the journal's lock
    # (test_journal_launch.py, test_journal_lock.py).
    "test_card_counts_survive_a_crash_of_the_process",
    "test_a_lock_held_by_another_process_names_that_process",
    "test_a_child_process_does_not_inherit_the_lock",
    # test_history_cmd.py: a TCP connection to a port nobody listens on.
    "test_a_unit_that_is_not_there",
    # test_systemd_files.py: bash -n on the scripts; systemd-analyze on the unit.
    "test_installer_and_motor_safe_are_valid_bash_and_executable",
    "test_systemd_analyze_rates_the_unit_no_more_exposed_than_today",
    # Heavy: half a second of CPU or more in the fast tier (`--durations`), each
    # the longest of its kind; make check stays under 20 s, make test runs them.
    "test_uniform_random_moves_never_get_stuck",  # test_party_properties.py
    "test_no_pending_pointing_choice_leaks_before_the_last_is_in",
    "test_every_step_conserves_224_cards_applies_only_legal_moves_and_round_trips",
    "test_after_a_thousand_connections_close_nothing_of_them_is_kept",  # test_table_fanout.py
    "test_two_people_and_two_bots_play_a_match_to_52_and_no_frame_shows_a_hidden_card",
    "test_random_rounds_under_any_house_rules_always_end",  # test_engine_properties.py
    "test_bots_are_deterministic_given_their_rng",  # test_pitch_bots.py: the strong bot
    "test_bots_alone_play_without_any_input",  # test_pitch_terminal.py
    "test_the_real_machine_decides_every_simulated_showdown_right",  # test_simulate.py
    "test_the_counts_are_the_same_for_the_same_seed",
    "test_every_bot_plays_legal_actions_in_every_phase",  # test_pitch_bots.py
    "test_no_card_of_a_hand_a_bot_plays_reaches_anyone_but_its_persons_phone",  # test_table_host.py
    # Issue 24's heaviest, 0.7-1.5 s each: whole rounds, decision by decision.
    "test_it_never_reads_hidden_cards",  # test_uno_search_bot.py: searches, twice per seed
    "test_random_games_of_2_to_16_players_agree_with_the_rule_at_every_decision",
    "test_pettingzoo_api_test_and_seed_test_pass",  # test_rl_env.py
    "test_windows_cannot_loop_each_offers_each_claimant_once",  # test_rl_turns.py
    # 0.3-0.6 s each on 7 December (make check at 20 s): whole Party! rounds and
    # matches, the durable table's every view, perft to depth; a name with its
    # parameters in brackets is that case alone, its cheaper cases stay fast.
    "test_every_variant_of_every_family_plays_out_through_its_family[party]",
    "test_every_view_a_page_got_is_what_the_save_file_held_at_that_moment",
    "test_every_house_rule_agrees_with_the_rule_at_every_decision",  # test_party_legality.py
    "test_every_step_conserves_cards_offers_only_legal_actions_and_round_trips",
    "test_updates_far_apart_and_across_rounds_observe_the_full_rebuild[party-2]",
    "test_updates_far_apart_and_across_rounds_observe_the_full_rebuild[party-8]",
    "test_the_omniscient_bot_plays_legal_actions",  # test_pitch_bots.py
    "test_any_party_position_plays_out_heuristic_as_the_driver",
    "test_simultaneous_claims_are_ordered_as_the_match_orders_them",
    "test_perft_matches_the_golden_counts[burn]",  # test_pitch_perft.py
}

#: Fixtures that run a script, so every test using one is slow (test_systemd_install*.py, _motor_safe.py).
SLOW_FIXTURES = {
    "mosquitto",  # a broker process (tests/league_servers.py)
    "venue_broker",  # the same, with the venue's logins and ACL
    "postgres_server",  # a PostgreSQL server
    "postgres_url",
    "system",  # install.sh against a fake root
    "motor_env",  # motor-safe.sh with a recording pinctrl
}


def is_slow(item: pytest.Item) -> bool:
    return (
        item.path.name in SLOW_FILES
        or getattr(item, "originalname", item.name) in SLOW_TESTS
        or item.name in SLOW_TESTS
        or not SLOW_FIXTURES.isdisjoint(getattr(item, "fixturenames", ()))
    )


@pytest.hookimpl(wrapper=True)
def pytest_collect_file(file_path, parent):
    """No doctest collection of the tests' own files (they have no doctests):
    pyproject's --doctest-modules would read each of them a second time, some
    0.5 s of every worker's start in `make check`."""
    collected = yield
    return [node for node in collected if not isinstance(node, DoctestModule)]


def pytest_addoption(parser):
    parser.addoption(
        "--shard",
        type=_shard,
        metavar="K/N",
        help="run the Kth (0-based) of N shares of the tests selected, dealt out "
        "there and back (Shard): tests/shards.py runs N such processes side by side "
        "(make check)",
    )


def _shard(text: str) -> tuple[int, int]:
    k, _, n = text.partition("/")
    if not (k.isdigit() and n.isdigit() and int(k) < int(n)):
        raise argparse.ArgumentTypeError(f"wants K/N with 0 <= K < N, got {text!r}")
    return int(k), int(n)


def pytest_configure(config):
    # A plugin rather than this conftest's own hooks, so that it also watches the
    # doctests in hw/, firmware_host/ and engine/.
    guard = FastTierGuard()
    config.pluginmanager.register(guard, "fast-tier-guard")
    config.add_cleanup(guard.uninstall)
    guard.install()
    config.add_cleanup(install_table_secrets())
    if config.getoption("shard"):
        config.pluginmanager.register(Shard(*config.getoption("shard")), "shard")


class Shard:
    """Keeps the ``index``th of every ``count`` tests left after ``-m`` and ``-k``,
    dealt out there and back (0, 1, 1, 0, 0, 1, ... for two). Neighbours in
    collection order are alike (a file's tests, a test's parameters), so dealing
    them out splits a run's time about evenly; there and back, because dealt in
    turn the second of each pair of parameters (classic, then Party!) would all
    fall to one shard: 11.0 against 12.1 s of tests, there and back 11.8 and 11.4."""

    def __init__(self, index: int, count: int):
        self.index, self.count = index, count

    def takes(self, number: int) -> bool:
        place = number % (2 * self.count)
        return self.index == (place if place < self.count else 2 * self.count - 1 - place)

    @pytest.hookimpl(trylast=True)  # after the -m and -k deselection
    def pytest_collection_modifyitems(self, config, items):
        kept, dropped = [], []
        for number, item in enumerate(items):
            (kept if self.takes(number) else dropped).append(item)
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


@pytest.hookimpl(tryfirst=True)  # before -m "not slow" deselects
def pytest_collection_modifyitems(config, items):
    for item in items:
        if is_slow(item):
            item.add_marker(pytest.mark.slow)
    if settings.get_current_profile_name() == "check":
        cap_examples(items, CHECK_EXAMPLES)


class FastTierGuard:
    """Fails a test that is not marked slow but does what makes a test slow:
    it starts a process, opens a network socket, sleeps, waits out a timeout,
    or starts a timer thread or the unit's event loop (whose deadlines are real
    time).

    It watches the test's own thread and the threads started during the test,
    never what an earlier test left running. A process or a sleep in the test's
    own thread raises at once; anything else is noted, and the test fails when
    its phase (setup, call, teardown) ends. Waits it cannot see (select, a
    socket's or a SimpleQueue's timeout) are the lists' job.
    """

    def __init__(self):
        self._item: pytest.Item | None = None  # the fast test running, if any
        self._threads: set[int] = set()  # idents of its threads
        self._seen: list[str] = []
        self._undo: list = []

    def install(self) -> None:
        self._before(
            subprocess.Popen,
            "__init__",
            lambda popen, args, *_, **__: f"starts a process: {_argv(args)}",
        )
        for name in ("fork", "forkpty", "posix_spawn", "posix_spawnp", "system"):
            if hasattr(os, name):
                self._before(os, name, lambda *_, name=name, **__: f"calls os.{name}()")
        self._before(socket.socket, "__init__", _network_socket)
        self._before(
            time,
            "sleep",
            lambda seconds: f"sleeps {seconds:g} s on the real clock" if seconds > 0 else None,
        )
        self._before(threading.Thread, "start", self._thread_starting, at_once=False)
        wait = threading.Condition.wait

        @functools.wraps(wait)
        def wait_watched(condition, timeout=None):
            woken = wait(condition, timeout)
            if not woken and timeout and self._watching():
                self._seen.append(f"waits out a {timeout:g} s timeout on the real clock")
            return woken

        self._replace(threading.Condition, "wait", wait_watched)

    def uninstall(self) -> None:
        while self._undo:
            self._undo.pop()()

    # -- the test's life --------------------------------------------------------

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item):
        self._item = None if item.get_closest_marker("slow") else item
        self._threads = {threading.get_ident()}
        self._seen = []

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_call(self, item):
        self._report()

    @pytest.hookimpl(trylast=True)
    def pytest_runtest_teardown(self, item):
        try:
            self._report()
        finally:
            self._item = None

    def _report(self) -> None:
        seen, self._seen = self._seen, []
        if seen and self._item is not None:
            raise _failure(self._item, seen[0])

    # -- the watched calls ------------------------------------------------------

    def _watching(self) -> bool:
        return self._item is not None and threading.get_ident() in self._threads

    def _replace(self, owner, name: str, replacement) -> None:
        original = getattr(owner, name)
        setattr(owner, name, replacement)
        self._undo.append(lambda: setattr(owner, name, original))

    def _before(self, owner, name: str, describe, at_once: bool = True) -> None:
        """Watch ``owner.name``: ``describe(*args)`` says what the call does that
        a fast test must not (None: nothing). ``at_once``: raise in the test's
        own thread rather than note it (a thread that never started would only
        confuse the code that started it)."""
        original = getattr(owner, name)

        @functools.wraps(original)
        def watched(*args, **kwargs):
            if self._watching():
                what = describe(*args, **kwargs)
                if what is not None:
                    if at_once and threading.current_thread() is threading.main_thread():
                        raise _failure(self._item, what)
                    self._seen.append(what)
            return original(*args, **kwargs)

        self._replace(owner, name, watched)

    def _thread_starting(self, thread: threading.Thread) -> str | None:
        target = getattr(thread, "_target", None)
        if type(getattr(target, "__self__", None)).__name__ == "EventLoop":
            return f"starts the unit's event loop on the real clock (thread {thread.name!r})"
        if isinstance(thread, threading.Timer):
            return f"starts a {thread.interval:g} s threading.Timer on the real clock"
        run = thread.run

        def run_watched():
            self._threads.add(threading.get_ident())
            run()

        thread.run = run_watched  # the new thread is watched too
        return None


def _failure(item: pytest.Item, what: str) -> BaseException:
    name = getattr(item, "originalname", None) or item.name
    return pytest.fail.Exception(
        f"{item.nodeid} {what} but is not marked slow; the fast tier (make check) "
        f"runs no processes, no network and nothing on the real clock. Pass the time in "
        f"(virtual_clock), or list {item.path.name!r} in SLOW_FILES or {name!r} in "
        f"SLOW_TESTS in tests/conftest.py.",
        pytrace=False,
    )


def _network_socket(sock, family=-1, type=-1, proto=-1, fileno=None) -> str | None:
    """What ``socket.socket(...)`` opens, if it is on the network (no family and
    no file descriptor: the default, AF_INET)."""
    if family == -1 and fileno is None:
        family = socket.AF_INET
    if family in (socket.AF_INET, socket.AF_INET6):
        return f"opens a network socket ({socket.AddressFamily(family).name})"
    return None


def _argv(args) -> str:
    return " ".join(map(str, args)) if isinstance(args, (list, tuple)) else str(args)


# -- real-browser tests (pytest-playwright on Debian's Chromium) ----------------------

#: Playwright cannot download its own browser here; it drives the system's Chromium.
CHROMIUM = os.environ.get("CHROMIUM", "/usr/lib/chromium/chromium")


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """Launch Debian's Chromium. Missing: a one-line skip on a laptop, a failure
    under CI=true (.ci/run installs it)."""
    if not os.path.exists(CHROMIUM):
        message = (
            f"no Chromium at {CHROMIUM}: install it (apt-get install chromium) or set "
            "CHROMIUM to its path"
        )
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    args = [*browser_type_launch_args.get("args", []), *FOREGROUND_ARGS]
    return {**browser_type_launch_args, "executable_path": CHROMIUM, "args": args}


#: Every page of a test is in the foreground, as each phone's page is on its own phone:
#: Chromium throttles the timers and animation frames of pages it thinks are behind
#: others, which delayed a phone's GO past its showdown's deadline on a loaded machine.
FOREGROUND_ARGS = (
    "--disable-background-timer-throttling",
    "--disable-renderer-backgrounding",
    "--disable-backgrounding-occluded-windows",
)


# --- the systemd tests' fixtures (test_systemd_*.py; helpers in systemd_helpers.py) ---


@pytest.fixture(scope="module")
def unit():
    """The unit's service file, read the way systemd reads it."""
    from tests.systemd_helpers import UNIT, parse_unit

    return parse_unit(UNIT.read_text())


@pytest.fixture(scope="module")
def table_unit():
    """The table's service file, read the way systemd reads it."""
    from tests.systemd_helpers import TABLE_UNIT, parse_unit

    return parse_unit(TABLE_UNIT.read_text())


@pytest.fixture
def system(tmp_path):
    """A fake root with recording stubs for install.sh (slow: it runs the script)."""
    from tests.systemd_helpers import FakeSystem

    return FakeSystem(tmp_path)

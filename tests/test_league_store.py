"""The league's store, one suite over both backends: SQLite in the test's
folder, PostgreSQL on the session's server (slow: a real server)."""

from __future__ import annotations

import json
import random
import threading

import pytest

from engine.league import CONFLICT, StoreError, open_store
from engine.league.standings import STANDING_FIELDS, sort_key
from tests.league_results import (
    AT,
    DAY,
    NEXT_DAY_AT,
    match,
    showdown,
    status,
    wire,
)


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
def store(request, tmp_path):
    if request.param == "sqlite":
        url = f"sqlite:{tmp_path / 'league.sqlite3'}"
    else:
        url = request.getfixturevalue("postgres_url")
    opened = open_store(url)
    yield opened
    opened.close()


def people(store, **filters):
    return {row["player"]: row for row in store.standings(**filters)}


# -- storing once ----------------------------------------------------------------------


def test_a_result_is_stored_once_and_its_resend_is_answered_as_stored(store):
    first = showdown(1)
    assert store.store([first]) == [("unit-1:local-1", None)]
    assert store.store([first]) == [("unit-1:local-1", None)]
    assert store.figures()["results"] == 1
    assert people(store)["Ann"]["wins"] == 1


def test_an_id_reused_with_another_result_is_refused_and_counted_on_its_unit(store):
    store.store([showdown(1)])
    forged = showdown(1, winner="b")
    assert store.store([forged]) == [("unit-1:local-1", CONFLICT)]
    assert CONFLICT == "id reused with a different result"
    assert people(store)["Ann"]["wins"] == 1 and people(store)["Bob"]["wins"] == 0
    (unit,) = store.units()
    assert (unit["results"], unit["refusals"], unit["last_refusal"]) == (1, 1, CONFLICT)
    assert store.figures()["refusals"] == 1


def test_a_batch_with_duplicates_stores_the_first_copy_and_compares_the_others(store):
    one, other = showdown(1), showdown(2, winner="b")
    forged = showdown(1, winner="b")
    replies = store.store([one, other, one, forged, other])
    assert replies == [
        ("unit-1:local-1", None),
        ("unit-1:local-2", None),
        ("unit-1:local-1", None),
        ("unit-1:local-1", CONFLICT),
        ("unit-1:local-2", None),
    ]
    assert store.figures()["results"] == 2
    assert (people(store)["Ann"]["wins"], people(store)["Bob"]["wins"]) == (1, 1)
    assert store.units()[0]["refusals"] == 1


def test_a_result_the_database_cannot_hold_is_refused_not_a_stuck_batch(store):
    # The wire bounds neither: a batch that failed on them would never be acked.
    huge = showdown(1, reaction_us=(2**31, 200_000))
    far = showdown(2, n_seq=2**63)
    assert store.store([huge, far, showdown(3)]) == [
        ("unit-1:local-1", "reaction_us out of range (over 2147483647 µs, about 36 minutes)"),
        ("unit-1:local-2", "seq out of range (over 9223372036854775807)"),
        ("unit-1:local-3", None),
    ]
    assert store.figures()["results"] == 1
    assert store.units()[0]["refusals"] == 2


def test_an_empty_batch_stores_nothing(store):
    assert store.store([]) == []
    assert store.figures()["results"] == 0


def test_the_same_id_in_two_venues_is_two_results(store):
    here, there = showdown(1), showdown(1, winner="b", venue="bar-2")
    assert store.store([here, there]) == [("unit-1:local-1", None), ("unit-1:local-1", None)]
    assert people(store, venue="bar-1")["Ann"]["wins"] == 1
    assert people(store, venue="bar-2")["Bob"]["wins"] == 1
    assert store.venues() == ["bar-1", "bar-2"]


# -- standings -------------------------------------------------------------------------


def fill(store):
    """A night at two venues over two days; the counts below are by hand."""
    store.store(
        [
            # bar-1, day 1: Ann beats Bob twice, Bob beats Ann twice (Ann false-starts once).
            showdown(1, reaction_us=(200_400, 250_000)),
            showdown(2, reaction_us=(210_999, 300_000)),
            showdown(3, winner="b", reaction_us=(260_000, 240_500)),
            showdown(4, winner="b", reason="false_start", reaction_us=(-5_000, 230_000)),
            # A timeout: a showdown for both, no win, no loss, no reaction.
            showdown(5, winner=None, reaction_us=(None, None)),
            # Ann against a bot named Robo, and a person named Robo too.
            showdown(6, "Ann", "Robo", bots=["b"], reaction_us=(220_000, 180_000), winner="b"),
            showdown(7, "Robo", "Bob", reaction_us=(190_000, 195_000)),
            # A match of the browser table: matches and match wins only.
            match(1, [("Ann", False, 500), ("Bob", False, 120), ("Bot 1", True, 40)], ["Ann"]),
        ]
    )
    store.store(
        [
            # bar-2, day 2: Bob beats Ann.
            showdown(1, winner="b", venue="bar-2", at=NEXT_DAY_AT, reaction_us=(280_000, 199_000)),
        ]
    )


def test_standings_are_the_hand_counts_people_apart_from_bots(store):
    fill(store)
    assert store.standings() == [
        {
            "player": "Bob",
            "bot": False,
            "showdowns": 7,
            "wins": 3,
            "losses": 3,
            "false_starts": 0,
            "reactions": 6,
            # 195, 199, 230, 240.5, 250, 300 ms: the lower median is the 3rd, 230.
            "median_us": 230_000,
            "best_us": 195_000,
            "matches": 1,
            "match_wins": 0,
        },
        {
            "player": "Ann",
            "bot": False,
            "showdowns": 7,
            "wins": 2,
            "losses": 4,
            "false_starts": 1,
            "reactions": 5,
            # 200.4, 210.999, 220, 260, 280 ms: the lower median 220, floored to the ms.
            "median_us": 220_000,
            "best_us": 200_400,
            "matches": 1,
            "match_wins": 1,
        },
        {
            "player": "Robo",
            "bot": False,
            "showdowns": 1,
            "wins": 1,
            "losses": 0,
            "false_starts": 0,
            "reactions": 1,
            "median_us": 190_000,
            "best_us": 190_000,
            "matches": 0,
            "match_wins": 0,
        },
    ]
    bots = store.standings(bots=True)
    assert [(r["player"], r["wins"], r["showdowns"], r["matches"], r["best_us"]) for r in bots] == [
        ("Robo", 1, 1, 0, 180_000),
        ("Bot 1", 0, 0, 1, None),
    ]
    assert [(r["player"], r["bot"]) for r in store.standings(bots=None)] == [
        ("Bob", False),
        ("Ann", False),
        ("Robo", True),
        ("Robo", False),
        ("Bot 1", True),
    ]


def test_standings_filter_by_venue_and_day(store):
    fill(store)
    day_two = people(store, day="2025-12-01")
    assert {name: (r["wins"], r["losses"]) for name, r in day_two.items()} == {
        "Bob": (1, 0),
        "Ann": (0, 1),
    }
    assert people(store, venue="bar-2") == day_two
    assert people(store, venue="bar-2", day=DAY) == {}
    bar_one = people(store, venue="bar-1", day=DAY)
    assert (bar_one["Ann"]["wins"], bar_one["Ann"]["losses"]) == (2, 3)
    assert bar_one["Bob"]["median_us"] == 240_000  # 195, 230, 240.5, 250, 300
    assert [r["player"] for r in store.standings(limit=1)] == ["Bob"]
    assert store.days() == [DAY, "2025-12-01"]
    assert store.days("bar-2") == ["2025-12-01"]
    assert store.venues() == ["bar-1", "bar-2"]


@pytest.mark.parametrize(
    ("filters", "words"),
    [
        ({"venue": "Bar 1"}, "venue must be 1 to 32 lower-case letters"),
        ({"day": "30/11/2025"}, "day must be YYYY-MM-DD, not '30/11/2025'"),
        ({"bots": "yes"}, "bots must be true, false or none, not 'yes'"),
        ({"limit": 0}, "limit must be a whole number from 1 to 10000, not 0"),
    ],
)
def test_a_bad_filter_is_a_value_error_with_words(store, filters, words):
    with pytest.raises(ValueError, match=words):
        store.standings(**filters)


# -- units, refusals, figures, recent --------------------------------------------------


def test_units_keep_the_last_status_and_their_counts(store):
    store.record_status(status("unit-1", figures={"showdowns": 3}))
    store.store([showdown(1), showdown(2, at=AT + 5)])
    store.store([showdown(3, at=AT - 5)])  # an older result, sent late
    store.record_status(status("unit-1", "fault", at=AT + 9, fault="journal unreadable"))
    store.record_status(status("unit-2", "offline", at=AT - 100))
    store.record_refusal("bar-1", "unit-3", "uno-showdown/v1/bar-1/unit-3/result", "not JSON", AT)
    assert store.units() == [
        {
            "venue": "bar-1",
            "unit": "unit-1",
            "state": "fault",
            "host": "pi-1",
            "version": "0.1.0",
            "fault": "journal unreadable",
            "status_at": AT + 9,
            "figures": {},
            "results": 3,
            "last_result_id": "unit-1:local-2",
            "last_result_at": AT + 5,
            "refusals": 0,
            "last_refusal": None,
            "last_refusal_at": None,
        },
        {
            "venue": "bar-1",
            "unit": "unit-2",
            "state": "offline",
            "host": "pi-1",
            "version": "0.1.0",
            "fault": None,
            "status_at": AT - 100,
            "figures": {},
            "results": 0,
            "last_result_id": None,
            "last_result_at": None,
            "refusals": 0,
            "last_refusal": None,
            "last_refusal_at": None,
        },
        {
            "venue": "bar-1",
            "unit": "unit-3",
            "state": None,
            "host": None,
            "version": None,
            "fault": None,
            "status_at": None,
            "figures": {},
            "results": 0,
            "last_result_id": None,
            "last_result_at": None,
            "refusals": 1,
            "last_refusal": "not JSON",
            "last_refusal_at": AT,
        },
    ]


def test_a_status_keeps_its_figures(store):
    store.record_status(status(figures={"showdowns": 3, "outbox": 0}))
    assert store.units()[0]["figures"] == {"outbox": 0, "showdowns": 3}


def test_refusals_count_per_unit_and_per_topic_without_one(store):
    for _ in range(2):
        store.record_refusal(None, None, "uno-showdown/v1/Bad Venue/x/result", "not a topic", AT)
    store.record_refusal("bar-1", "unit-1", "uno-showdown/v1/bar-1/unit-1/result", "bad", AT)
    assert store.refused_topics() == [
        {
            "topic": "uno-showdown/v1/Bad Venue/x/result",
            "refusals": 2,
            "last_refusal": "not a topic",
            "last_refusal_at": AT,
        }
    ]
    figures = store.figures()
    assert (figures["refusals"], figures["refusals_without_unit"]) == (3, 2)
    assert store.figures()["results"] == 0  # a refusal is stored nowhere else


def test_figures_count_results_units_venues_and_players(store):
    fill(store)
    store.record_status(status("unit-1"))
    assert store.figures() == {
        "results": 9,
        "kinds": {"showdown": 8, "match": 1},
        "units": 3,  # unit-1 at both venues, table-1
        "states": {"online": 1, "offline": 0, "fault": 0, "unknown": 2},
        "venues": 2,
        "players": 5,
        "refusals": 0,
        "refusals_without_unit": 0,
    }


def test_recent_gives_the_newest_results_with_their_outcomes(store):
    fill(store)
    (newest,) = store.recent(1)
    assert {k: newest[k] for k in ("id", "venue", "unit", "kind", "seq", "day")} == {
        "id": "unit-1:local-1",
        "venue": "bar-2",
        "unit": "unit-1",
        "kind": "showdown",
        "seq": 1,
        "day": "2025-12-01",
    }
    assert newest["outcomes"] == [
        {
            "player": "Ann",
            "bot": False,
            "outcome": "loss",
            "false_start": False,
            "reaction_us": 280_000,
        },
        {
            "player": "Bob",
            "bot": False,
            "outcome": "win",
            "false_start": False,
            "reaction_us": 199_000,
        },
    ]
    assert newest["body"]["winner"] == "b"
    assert len(store.recent(20, venue="bar-1")) == 8
    assert {r["venue"] for r in store.recent(20, venue="bar-1")} == {"bar-1"}


# -- threads, opening ------------------------------------------------------------------


def test_readers_in_threads_read_while_one_thread_writes(store):
    errors: list[BaseException] = []

    def read():
        try:
            for _ in range(20):
                store.standings(bots=None)
                store.units()
        except BaseException as exc:  # pragma: no cover - the assertion says
            errors.append(exc)

    readers = [threading.Thread(target=read) for _ in range(3)]
    for reader in readers:
        reader.start()
    for n in range(20):
        store.store([showdown(n)])
    for reader in readers:
        reader.join(60)
    assert errors == []
    assert people(store)["Ann"]["wins"] == 20


def test_a_reopened_store_keeps_what_it_stored(tmp_path):
    url = f"sqlite:{tmp_path / 'league.sqlite3'}"
    with open_store(url) as first:
        first.store([showdown(1)])
    with open_store(str(tmp_path / "league.sqlite3")) as again:
        assert again.store([showdown(1)]) == [("unit-1:local-1", None)]
        assert again.figures()["results"] == 1


def test_close_twice_is_fine_and_a_closed_store_says_so(tmp_path):
    store = open_store(f"sqlite:{tmp_path / 'league.sqlite3'}")
    store.close()
    store.close()
    with pytest.raises(StoreError, match="the store is closed"):
        store.standings()


@pytest.mark.parametrize(
    ("url", "words"),
    [
        ("mysql://db/league", "cannot open 'mysql://db/league': a league database is sqlite:PATH"),
        ("sqlite::memory:", "give a file path"),
        ("", "cannot open ''"),
    ],
)
def test_a_bad_url_is_a_store_error_naming_it(url, words):
    with pytest.raises(StoreError, match=words):
        open_store(url)


def test_a_missing_folder_is_named(tmp_path):
    url = f"sqlite:{tmp_path / 'nowhere' / 'league.sqlite3'}"
    with pytest.raises(StoreError, match=f"cannot open '{url}': no folder"):
        open_store(url)


def test_a_file_that_is_not_a_database_is_named(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("not a database, just words " * 100)
    with pytest.raises(StoreError, match=f"'sqlite:{path}': file is not a database"):
        open_store(str(path))


@pytest.mark.slow
def test_a_postgres_nobody_listens_on_is_named_without_its_password():
    from tests.league_servers import free_port

    url = f"postgresql://league:s3cret@127.0.0.1:{free_port()}/league"
    with pytest.raises(StoreError) as caught:
        open_store(url)
    assert "s3cret" not in str(caught.value)
    assert str(caught.value).startswith(
        f"cannot connect to 'postgresql://league:***@127.0.0.1:{url.split(':')[3]}"
    )


# -- a random night, recounted by hand -------------------------------------------------

NAMES = ("Ann", "Bob", "Cleo", "Dev", "Robo", "Zoë Smith")


def random_result(rng: random.Random, n: int):
    venue, unit = rng.choice(("bar-1", "bar-2")), rng.choice(("unit-1", "unit-2"))
    at = AT + rng.randrange(3) * 86_400 + rng.random() * 3_600
    if rng.random() < 0.15:
        seated = rng.sample(NAMES, rng.randint(2, 4))
        players = [(name, rng.random() < 0.3, rng.randrange(500)) for name in seated]
        winners = rng.sample(seated, rng.randint(1, 2))
        return match(n, players, winners, unit=f"table-{unit[-1]}", venue=venue, at=at)
    a, b = rng.sample(NAMES, 2)
    reason = rng.choice(("faster", "faster", "faster", "false_start", "timeout", "tie_void"))
    winner = rng.choice("ab") if reason in ("faster", "false_start") else None

    def reaction():
        return rng.choice((None, -rng.randrange(1, 9_000), *[rng.randrange(120_000, 420_000)] * 6))

    bots = [side for side in "ab" if rng.random() < 0.3]
    return showdown(
        n, a, b, winner=winner, reason=reason, reaction_us=(reaction(), reaction()), bots=bots,
        unit=unit, venue=venue, at=at,
    )  # fmt: skip


def forged(message):
    """Another result under the same id: the same players, another body."""
    body = json.loads(message.raw)
    body["body"]["cards" if message.kind == "showdown" else "rounds"] += 1
    return wire(body)


def recount(stored, *, venue=None, day=None, bots=False, limit=100):
    """Standings counted the naive way, from the stored results' outcomes."""
    rows, reactions = {}, {}
    for message in stored:
        if venue not in (None, message.venue) or day not in (None, message.day):
            continue
        for outcome in message.outcomes:
            if bots is not None and outcome.bot != bots:
                continue
            key = (outcome.player, outcome.bot)
            row = rows.setdefault(key, dict.fromkeys(STANDING_FIELDS, 0))
            row.update(player=outcome.player, bot=outcome.bot)
            if message.kind == "match":
                row["matches"] += 1
                row["match_wins"] += outcome.outcome == "win"
                continue
            row["showdowns"] += 1
            row["wins"] += outcome.outcome == "win"
            row["losses"] += outcome.outcome == "loss"
            row["false_starts"] += outcome.false_start
            if outcome.reaction_us is not None:
                reactions.setdefault(key, []).append(outcome.reaction_us)
    for key, row in rows.items():
        measured = sorted(reactions.get(key, []))
        row["reactions"] = len(measured)
        row["best_us"] = measured[0] if measured else None
        floored = sorted(us // 1000 for us in measured)
        row["median_us"] = floored[(len(floored) - 1) // 2] * 1000 if floored else None
    return sorted(rows.values(), key=sort_key)[:limit]


@pytest.mark.parametrize("seed", [1, 2])
def test_standings_equal_a_naive_recount_of_a_random_night_with_resends_and_forgeries(store, seed):
    rng = random.Random(seed)
    sent = [random_result(rng, n) for n in range(300)]
    stream = []
    for message in sent:
        stream.append(message)
        if rng.random() < 0.2:
            stream.append(rng.choice(sent[: len(stream)]))  # a resend, maybe much later
        if rng.random() < 0.05:
            stream.append(forged(rng.choice(stream)))
    stored, expected = {}, []
    for message in stream:
        first = stored.setdefault((message.venue, message.id), message)
        expected.append((message.id, None if first.raw == message.raw else CONFLICT))
    replies, start = [], 0
    while start < len(stream):
        size = rng.choice((1, 7, 50, 200))
        replies += store.store(stream[start : start + size])
        start += size
    assert replies == expected
    kept = list(stored.values())
    for filters in (
        {},
        {"bots": True},
        {"bots": None},
        {"venue": "bar-2"},
        {"day": "2025-12-01", "bots": None},
        {"venue": "bar-1", "day": DAY},
        {"bots": None, "limit": 3},
    ):
        assert store.standings(**filters) == recount(kept, **filters), filters
    figures = store.figures()
    assert figures["results"] == len(kept)
    assert figures["refusals"] == sum(reason is not None for _, reason in expected)


@pytest.fixture(params=["sqlite", pytest.param("postgresql", marks=pytest.mark.slow)])
def database_url(request, tmp_path):
    if request.param == "sqlite":
        return f"sqlite:{tmp_path / 'league.sqlite3'}"
    return request.getfixturevalue("postgres_url")


def test_two_league_servers_on_one_database_store_each_result_once(database_url):
    # Two stores, as two processes would open them: only the database's own lock
    # (BEGIN IMMEDIATE, the advisory lock) keeps them from both storing one id.
    batches = [[showdown(n) for n in range(start, start + 40)] for start in range(0, 200, 40)]
    replies: dict[int, list] = {}
    with open_store(database_url) as one, open_store(database_url) as other:

        def send(index, store):
            replies[index] = [reply for batch in batches for reply in store.store(batch)]

        senders = [threading.Thread(target=send, args=(i, s)) for i, s in enumerate((one, other))]
        for sender in senders:
            sender.start()
        for sender in senders:
            sender.join(120)
        expected = [(f"unit-1:local-{n}", None) for n in range(200)]
        assert replies == {0: expected, 1: expected}
        assert one.figures()["results"] == 200
        assert people(other)["Ann"]["wins"] == 200
        assert one.units()[0]["results"] == 200

"""Fixed seeds of classic, Showdown and UNO Party! play exactly as recorded
(tests/golden_matches.py): every decision, every event and the position after
each, compared one by one, so a change to the engine's shape that changes a
single decision is seen at the first event it changes."""

import pytest

from tests.golden_matches import CASES, _normal, read, record


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_the_match_plays_as_recorded(case):
    recorded = read(case)
    played = [_normal(line) for line in record(case)]
    for number, (now, then) in enumerate(zip(played, recorded, strict=False)):
        assert now == then, f"event {number} of {case.name} differs"
    assert len(played) == len(recorded)
    assert played[-1]["event"] == "match_end"

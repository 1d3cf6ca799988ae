"""The card sensor as a real input: the table breaks the beam (pulls line 16
low) once per card while the launcher runs; the unit counts the pulses on
the kernel line and stops the motor when all cards are out, or reports a
jam at launcher.max_run_s."""

from __future__ import annotations

import time

import pytest

from tests.kernel.guest.table import (
    MOTOR,
    PADDLE,
    TABLE_CONFIG,
    TIMER,
    Sampler,
    unit_on_chip,
    wait_until,
)

pytestmark = pytest.mark.slow

CARD_SENSOR = 16
MAX_RUN_S = 2.0
SENSOR_CONFIG = (
    TABLE_CONFIG.replace("spin_up_s = 0.2", f"spin_up_s = 0.2\nmax_run_s = {MAX_RUN_S}")
    + f"\n[pins]\ncard_sensor = {CARD_SENSOR}\n"
)


def launch_and_count(unit, chip, cards: int, pulses: int):
    for line in (*PADDLE.values(), TIMER, CARD_SENSOR):
        chip.release(line)  # beam whole
    with unit.client() as client, Sampler(chip) as sampler:
        players = {"a": "Ann", "b": "Bob"}
        assert client.request("showdown", showdown_id="c1", cards=cards, players=players)["ok"]
        assert client.request("start")["ok"]
        client.wait_for_event("go")
        chip.press(PADDLE["a"])
        wait_until(lambda: chip.value(MOTOR["b"]) == 1, 10, "motor toward b")
        chip.release(PADDLE["a"])
        for _ in range(pulses):
            time.sleep(0.1)
            chip.press(CARD_SENSOR)  # a card breaks the beam
            time.sleep(0.02)
            chip.release(CARD_SENSOR)
        result = client.wait_for_event("result")
    start, stop = sampler.high_span(MOTOR["b"])
    return result, (stop - start) / 1e9


@pytest.mark.parametrize("backend", ["lgpio", "rpigpio"])
def test_counted_cards_stop_the_motor(backend, chip, tmp_path):
    with unit_on_chip(tmp_path, backend, SENSOR_CONFIG) as unit:
        result, run_s = launch_and_count(unit, chip, cards=2, pulses=2)
    assert (result["launch"], result["cards_counted"]) == ("launched", 2), result
    assert run_s < MAX_RUN_S * 0.75, run_s  # stopped by the count, not the limit
    print(f"{backend}: 2 cards counted, motor ran {run_s:.3f} s")


def test_a_missing_card_is_a_jam_at_max_run(chip, tmp_path):
    with unit_on_chip(tmp_path, "lgpio", SENSOR_CONFIG) as unit:
        result, run_s = launch_and_count(unit, chip, cards=2, pulses=1)
    assert (result["launch"], result["cards_counted"]) == ("jam", 1), result
    assert MAX_RUN_S * 0.9 < run_s < MAX_RUN_S + 0.5, run_s

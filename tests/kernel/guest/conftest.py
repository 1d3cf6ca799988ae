"""Fixtures of the gpio-sim guest suite (collected only in the guest)."""

from __future__ import annotations

import pytest

from tests.kernel.guest.table import OUTPUTS, PADDLE, TIMER, SimChip, unit_on_chip, wait_until

BACKENDS = ("lgpio", "rpigpio")


@pytest.fixture(scope="session")
def chip():
    chip = SimChip()
    yield chip
    chip.close()


@pytest.fixture(scope="module", params=BACKENDS)
def unit(request, chip, tmp_path_factory):
    """One daemon per backend for a module's showdowns (a start costs seconds
    under qemu); each test leaves it idle with the switches open."""
    for line in (*PADDLE.values(), TIMER):
        chip.release(line)
    with unit_on_chip(tmp_path_factory.mktemp(f"unit-{request.param}"), request.param) as unit:
        yield unit


@pytest.fixture
def client(unit, chip):
    client = unit.client()
    yield client
    for line in (*PADDLE.values(), TIMER):
        chip.release(line)
    client.request("cancel")
    wait_until(lambda: client.request("status")["state"] == "idle", what="the unit idle")
    client.close()


@pytest.fixture
def no_pull_downs(chip):
    """The output lines read high when nobody drives them (a unit built
    without the wiring's pull-downs); restored after."""
    for line in OUTPUTS:
        chip.set_pull(line, "pull-up")
    yield
    for line in OUTPUTS:
        chip.set_pull(line, "pull-down")

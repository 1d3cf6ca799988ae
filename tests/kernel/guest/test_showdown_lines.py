"""Whole showdowns of the real daemon on a kernel GPIO chip (gpio-sim), on
lgpio and on RPi.GPIO (rpi-lgpio): the simulated table presses the timer
button and the paddles through sysfs and reads every output line."""

from __future__ import annotations

import itertools
import time

import pytest

from tests.kernel.guest.table import (
    ARROW,
    ENABLE,
    GO,
    LED_BAR,
    MOTOR,
    OUTPUTS,
    PADDLE,
    TIMER,
    Sampler,
    wait_until,
)

pytestmark = pytest.mark.slow

STEP_S = 0.15  # TABLE_CONFIG countdown_step_s
MOTOR_RUN_S = 0.2 + 2 * 0.05  # spin_up_s + per_card_s x default_cards
SPEED = 0.8  # launcher.speed (packaged default)
#: B's press after A's: well beyond RPi.GPIO's callback-time stamps, which
#: lag the edge by up to ~20 ms in this guest (test_kernel_ticks.py).
B_LATER_S = 0.06


def tap(chip, line, hold_s=0.08):
    """Press and release a switch; held past press_lockout_s (0.05 s)."""
    chip.press(line)
    time.sleep(hold_s)
    chip.release(line)


def wait_line(chip, line, level=1, timeout=10.0):
    return wait_until(lambda: chip.value(line) == level, timeout, f"GPIO{line} = {level}")


def tick_of(go_event, result, side):
    return go_event["ticks"] + result["reaction_us"][side] / 1e6


def test_chip_is_shaped_like_a_pi(chip):
    import lgpio

    handle = lgpio.gpiochip_open(0)
    try:
        assert list(lgpio.gpio_get_chip_info(handle)[1:]) == [58, "gpiochip0", "pinctrl-bcm2711"]
        assert "GPIO17" in lgpio.gpio_get_line_info(handle, 17)
    finally:
        lgpio.gpiochip_close(handle)


def test_whole_showdown_through_the_timer_button(unit, chip, client):
    with Sampler(chip) as sampler:
        tap(chip, TIMER)
        armed = client.wait_for_event("armed")
        assert armed["showdown_id"].startswith("local-") and armed["cards"] == 2
        # The table slams once GO is on the line and the daemon has read its
        # GO tick (the go event): a press in the instant between the light
        # and that read is earlier than any person and would count as a
        # false start (seen once on rpigpio in a busy guest).
        go = client.wait_for_event("go")
        wait_line(chip, GO)
        a_written = chip.press(PADDLE["a"])
        time.sleep(B_LATER_S)
        chip.press(PADDLE["b"])
        result = client.wait_for_event("result")
        wait_until(lambda: client.request("status")["state"] == "idle", what="idle")
    assert (result["winner"], result["loser"], result["reason"]) == ("a", "b", "faster")
    assert result["launch"] == "launched"
    assert result["reaction_us"]["a"] < result["reaction_us"]["b"]

    # Countdown: the bar's LEDs came on one after the other, a step apart.
    # (The lit LEDs flash every 50 ms, so a busy guest's sampler may miss a
    # flash: the order and the whole span are checked, the gaps printed.)
    first_lit = [sampler.rises(line)[0] for line in LED_BAR]
    gaps = [(later - earlier) / 1e9 for earlier, later in itertools.pairwise(first_lit)]
    assert all(gap > 0 for gap in gaps), gaps
    assert 1.5 * STEP_S < sum(gaps) < 6 * STEP_S, gaps
    assert sampler.rises(GO)[0] > first_lit[-1]
    # No false start: no arrow. Cards fly toward the loser (b) only.
    assert not sampler.ever_high(ARROW["a"]) and not sampler.ever_high(ARROW["b"])
    assert not sampler.ever_high(MOTOR["a"])
    start, stop = sampler.high_span(MOTOR["b"])
    run_s = (stop - start) / 1e9
    assert MOTOR_RUN_S * 0.9 < run_s < MOTOR_RUN_S + 0.3, run_s
    assert start > a_written[0]
    duty, toggles = sampler.duty(ENABLE, while_line=MOTOR["b"])
    # PWM at 1 kHz read by a sampler that takes ~2 ms a round and shares one
    # vCPU with lgpio's PWM thread: the enable line is driven while the motor
    # runs; its toggling is printed (seen in most runs), not required.
    assert duty > 0.3, f"the enable line was not driven: duty {duty}, {toggles} changes"
    print(
        f"{unit.backend}: steps {[round(g, 3) for g in gaps]} s, motor b {run_s:.3f} s, "
        f"enable duty {duty:.2f} over {toggles} changes (speed {SPEED}), "
        f"{sampler.reads} samples"
    )
    assert all(level == 0 for level in chip.values(OUTPUTS).values())
    # The result reached the client, and it is in the journal.
    assert client.request("result", showdown_id=armed["showdown_id"])["result"] == {
        k: v for k, v in result.items() if k not in ("event", "seq")
    }
    assert go["ticks"] > 0


def test_false_start_in_the_countdown(unit, chip, client):
    with Sampler(chip) as sampler:
        tap(chip, TIMER)
        wait_line(chip, LED_BAR[0])
        chip.press(PADDLE["a"])
        result = client.wait_for_event("result")
        wait_until(lambda: client.request("status")["state"] == "idle", what="idle")
    assert (result["reason"], result["loser"], result["winner"]) == ("false_start", "a", "b")
    assert result["reaction_us"]["a"] is None  # no GO to measure from
    assert sampler.ever_high(ARROW["a"]) and not sampler.ever_high(ARROW["b"])
    assert not sampler.ever_high(GO)
    assert sampler.high_span(MOTOR["a"]) is not None and not sampler.ever_high(MOTOR["b"])


def test_both_players_early_the_first_edge_is_the_offender(unit, chip, client):
    with Sampler(chip) as sampler:
        tap(chip, TIMER)
        wait_line(chip, LED_BAR[1])
        chip.press(PADDLE["b"])
        time.sleep(0.003)
        chip.press(PADDLE["a"])
        result = client.wait_for_event("result")
        wait_until(lambda: client.request("status")["state"] == "idle", what="idle")
    assert (result["reason"], result["loser"]) == ("false_start", "b")
    assert sampler.ever_high(ARROW["b"]) and not sampler.ever_high(ARROW["a"])
    assert sampler.ever_high(MOTOR["b"]) and not sampler.ever_high(MOTOR["a"])


def test_timeout_nobody_presses(unit, chip, client):
    with Sampler(chip) as sampler:
        tap(chip, TIMER)
        go = client.wait_for_event("go")
        result = client.wait_for_event("result")
    assert (result["reason"], result["winner"], result["loser"]) == ("timeout", None, None)
    assert result["launch"] == "none"
    assert sampler.ever_high(GO)
    assert not sampler.ever_high(MOTOR["a"]) and not sampler.ever_high(MOTOR["b"])
    assert not sampler.ever_high(ENABLE)
    assert go["ticks"] > 0


def test_paddle_held_at_start_blinks_its_arrow_and_stays_armed(unit, chip, client):
    chip.press(PADDLE["b"])
    with Sampler(chip) as sampler:
        tap(chip, TIMER)
        held = client.wait_for_event("paddle_held")
        assert held["side"] == "b"
        wait_until(lambda: len(sampler.rises(ARROW["b"])) >= 2, 10, "arrow b blinking")
        assert client.request("status")["state"] == "armed"
    assert not sampler.ever_high(LED_BAR[0]) and not sampler.ever_high(GO)
    assert not sampler.ever_high(ARROW["a"]) and not sampler.ever_high(MOTOR["a"])
    chip.release(PADDLE["b"])
    wait_until(lambda: not client.request("status")["paddles"]["b"], 10, "paddle b seen released")
    # Released, the timer button starts the armed showdown.
    tap(chip, TIMER)
    client.wait_for_event("countdown")
    client.request("cancel")


def test_bounce_after_the_first_edge_is_ignored(unit, chip, client, request):
    # On rpigpio the first edge's level is read when the callback runs, and a
    # burst may have opened the contact again by then: hw.Paddle takes a
    # release of a switch that is not pressed as the press it was (B won 2
    # runs of 6 here before it did).
    tap(chip, TIMER)
    go = client.wait_for_event("go")
    wait_line(chip, GO)
    first = chip.press(PADDLE["a"])
    # Contact bounce: four more edges of paddle A within a few ms.
    for _ in range(2):
        chip.release(PADDLE["a"])
        chip.press(PADDLE["a"])
    last = chip.press(PADDLE["a"])
    time.sleep(B_LATER_S)
    chip.press(PADDLE["b"])
    result = client.wait_for_event("result")
    assert (result["winner"], result["reason"]) == ("a", "faster")
    if unit.backend == "lgpio":
        # The first edge's kernel tick, not a bounce's.
        tick_ns = round(tick_of(go, result, "a") * 1e9)
        assert first[0] - 2000 <= tick_ns < last[0], (first, tick_ns, last)
    print(f"{unit.backend}: bounce burst {(last[1] - first[0]) / 1e3:.0f} us")

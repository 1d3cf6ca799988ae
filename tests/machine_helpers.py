"""What the showdown machine's tests share: the timing and launcher settings, the
outputs when everything is off, a VirtualRig on mock pins, and short ways to
arm, start and read it."""

from firmware_host.core.result import Result
from firmware_host.service.config import LauncherConfig, ShowdownConfig, TimingConfig, UnitConfig
from firmware_host.sim.rig import VirtualRig
from hw.pinmap import PinMap

PLAYERS = {"a": "Ann", "b": "Bob"}
SEED = 7
TIMING = dict(
    countdown_step_s=1.0,
    flash_period_s=0.25,
    beep_s=0.1,
    go_tone_s=0.4,
    hold_min_s=1.0,
    hold_max_s=2.0,
    settle_s=0.005,
    tie_threshold_us=200,
    tie_policy="rerun",
    max_tie_reruns=3,
    min_reaction_ms=0,
    press_lockout_s=0.05,
    response_timeout_s=3.0,
    paddle_warning_s=1.0,
)
LAUNCHER = dict(speed=0.8, spin_up_s=0.3, per_card_s=0.25, max_run_s=3.0)

OFF = {
    "bar": (0, 0, 0),
    "go": 0,
    "arrow_a": 0,
    "arrow_b": 0,
    "buzzer": 0,
    "motor_a": 0,
    "motor_b": 0,
    "duty": 0.0,
}


def outputs(**changes):
    return {**OFF, **changes}


def make_rig(card_sensor=False, launcher=None, **timing):
    config = UnitConfig(
        pins=PinMap(card_sensor=16 if card_sensor else None),
        timing=TimingConfig(**{**TIMING, **timing}),
        launcher=LauncherConfig(**{**LAUNCHER, **(launcher or {})}),
        showdown=ShowdownConfig(default_cards=2, max_cards=10),
    )
    return VirtualRig(config, seed=SEED)


def start(rig, cards=2, showdown_id="sd-1"):
    rig.core.arm(showdown_id, cards, PLAYERS)
    rig.core.start()
    return rig.core.round.planned_go


def to_go(rig, cards=2):
    go = start(rig, cards)
    rig.run_until(go)
    assert rig.state == "go"
    return go


def results(rig):
    return [Result.from_dict(e.data) for e in rig.events if e.name == "result"]


def states(rig):
    return [e.data["state"] for e in rig.events if e.name == "state"]

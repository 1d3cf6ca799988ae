"""The simulator and virtual time: a core on mock pins and a virtual clock (VirtualRig),
and ``simulate``, thousands of showdowns checked against a ground truth.
"""

from firmware_host.sim.rig import VirtualRig, advance, run_until
from firmware_host.sim.simulate import SIM_TIMING, Plan, plan_round, truth

# simulate() itself is not re-exported: the name would hide the module
# firmware_host.sim.simulate (also the ``simulate`` command). Import it from there.
__all__ = ["VirtualRig", "advance", "run_until", "Plan", "plan_round", "truth", "SIM_TIMING"]

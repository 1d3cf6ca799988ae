"""The package layout and the one-way import rule from the design brief."""

import json
import subprocess
import sys


def imported_modules(package: str) -> set[str]:
    code = f"import json, sys, {package}; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], check=True,
                         capture_output=True, text=True).stdout
    return set(json.loads(out))


def test_engine_imports_no_hardware_and_at_most_the_protocol_module():
    modules = imported_modules("engine")
    assert not {m for m in modules if m == "hw" or m.startswith("hw.")}
    assert not {m for m in modules if m.startswith("gpiozero")}
    daemon = {m for m in modules if m.startswith("firmware_host")}
    assert daemon <= {"firmware_host", "firmware_host.protocol"}


def test_hw_imports_neither_daemon_nor_engine():
    modules = imported_modules("hw")
    assert not {m for m in modules if m.startswith(("firmware_host", "engine"))}

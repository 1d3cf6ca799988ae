"""The package layout and the one-way import rule (docs/architecture.md draws it).

Two checks of the same table: every import statement in the source, read with
``ast`` (an import inside a function counts too), and what importing each
package in a fresh interpreter really loads.
"""

import importlib
import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.import_statements import imports_of

ROOT = Path(__file__).resolve().parent.parent
PROJECT = ("hw", "firmware_host", "engine")

#: package -> what it may import of the project besides itself. An entry names
#: a package or one module (the simulator reads the config, nothing else of the
#: service). ``firmware_host`` and ``engine`` are their ``__init__`` modules alone;
#: ``__main__`` is ``python -m``. Of the daemon, the engine may import two packages
#: and nothing else: the wire protocol, from its unit ports and applications, and
#: the people's vocabulary (words, reactions, console), from the packages that
#: speak to people (ENGINE_DAEMON says which). The people's vocabulary imports
#: the protocol alone; the protocol nothing else of the project.
MAY_IMPORT = {
    "hw": set(),
    "firmware_host": set(),  # re-exports the core lazily, by name
    "firmware_host.__main__": {"firmware_host.commands"},
    "firmware_host.protocol": set(),
    "firmware_host.people": {"firmware_host.protocol"},
    "firmware_host.core": {"hw", "firmware_host.protocol", "firmware_host.people"},
    "firmware_host.service": {
        "hw",
        "firmware_host.protocol",
        "firmware_host.people",
        "firmware_host.core",
    },
    "firmware_host.sim": {
        "hw",
        "firmware_host.protocol",
        "firmware_host.people",
        "firmware_host.core",
        "firmware_host.service.config",
    },
    "firmware_host.uplink": {
        "firmware_host.protocol",
        "firmware_host.people",
        "firmware_host.core",
        "firmware_host.service",
    },
    "firmware_host.commands": {
        "hw",
        "firmware_host.uplink",
        "firmware_host.protocol",
        "firmware_host.people",
        "firmware_host.core",
        "firmware_host.service",
        "firmware_host.sim",
    },
    "engine": {"engine.uno", "engine.game"},
    "engine.__main__": {"engine.apps"},
    "engine.game": set(),
    "engine.uno": {"engine.game", "firmware_host.people"},
    "engine.pitch": {"engine.game", "firmware_host.people"},
    # Pitch's game at the terminal (PitchFamily.terminal) is an app of the family's:
    # engine.apps.play's run and engine.apps.screen's shared screen, Pitch's rules.
    "engine.pitch.terminal": {
        "engine.game",
        "engine.match",
        "engine.units",
        "engine.apps",
        "engine.pitch",
        "firmware_host.people",
    },
    # UNO's game at the terminal (UnoFamily.terminal), likewise: the shared screen and
    # run, UNO's cards and words.
    "engine.uno.terminal": {
        "engine.game",
        "engine.match",
        "engine.units",
        "engine.apps",
        "engine.uno",
        "firmware_host.people",
    },
    "engine.units": {"engine.game", "firmware_host.protocol", "firmware_host.people"},
    "engine.match": {"engine.game", "engine.units"},
    "engine.rl": {"engine.game", "engine.units"},  # the families' codecs: through the registry
    # The applications reach a family through the registry; a family's room built on
    # the table's machinery (Pitch's scorekeeper, UNO's companion) imports its family.
    "engine.apps": {
        "engine.game",
        "engine.match",
        "engine.uno",
        "engine.pitch",
        "engine.units",
        "firmware_host.protocol",
        "firmware_host.people",
    },
    "engine.league": {"engine.apps", "firmware_host.protocol", "firmware_host.people"},
}
#: The two parts of firmware_host the engine may import: the wire, and what is said to people.
PROTOCOL_PACKAGE = "firmware_host.protocol"
PEOPLE_PACKAGE = "firmware_host.people"
#: Engine package -> what of firmware_host it may import; any other, nothing.
#: ``engine.uno`` and ``engine.pitch`` are game families: each writes its own events in the
#: people's words.
ENGINE_DAEMON = {
    "engine.units": {PROTOCOL_PACKAGE, PEOPLE_PACKAGE},
    "engine.apps": {PROTOCOL_PACKAGE, PEOPLE_PACKAGE},
    "engine.uno": {PEOPLE_PACKAGE},
    "engine.pitch": {PEOPLE_PACKAGE},
    "engine.pitch.terminal": {PEOPLE_PACKAGE},
    "engine.uno.terminal": {PEOPLE_PACKAGE},
    "engine.league": {PROTOCOL_PACKAGE, PEOPLE_PACKAGE},
}
SUBPACKAGES = [name for name in MAY_IMPORT if "." in name and not name.endswith("__main__")]


def owner(module: str) -> str:
    """The entry of MAY_IMPORT a module belongs to: the longest that contains it."""
    return max(
        (name for name in MAY_IMPORT if module == name or module.startswith(name + ".")), key=len
    )


def may_import(importer: str, target: str) -> bool:
    home = owner(importer)
    if owner(target) == home:
        return True
    return any(
        target == allowed or target.startswith(allowed + ".") for allowed in MAY_IMPORT[home]
    )


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def is_module(name: str) -> bool:
    path = ROOT.joinpath(*name.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def project_imports(path: Path):
    """(line, module) for every import of the project in one source file; for
    ``from package import name`` the module is ``package.name`` when that is a module."""
    for statement in imports_of(path):
        if not statement.is_from:
            targets = list(statement.names)
        else:
            assert statement.level == 0, f"{path}:{statement.line}: a relative import"
            targets = [
                f"{statement.module}.{name}"
                if is_module(f"{statement.module}.{name}")
                else statement.module
                for name in statement.names
            ]
        for target in targets:
            if target is not None and target.split(".")[0] in PROJECT:
                yield statement.line, target


def source_files():
    for package in PROJECT:
        yield from sorted((ROOT / package).rglob("*.py"))


def test_every_import_points_the_allowed_way():
    wrong = [
        f"{path.relative_to(ROOT)}:{line}: {module_name(path)} imports {target}"
        for path in source_files()
        for line, target in project_imports(path)
        if not may_import(module_name(path), target)
    ]
    assert wrong == []


def test_the_table_knows_every_module():
    # A new package must be given its place in the table (and the diagram).
    placed = {module_name(path): owner(module_name(path)) for path in source_files()}
    assert set(placed.values()) == set(MAY_IMPORT)


def loaded_modules(package: str) -> set[str]:
    code = f"import json, sys, {package}; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", code], check=True, cwd=ROOT, capture_output=True, text=True
    ).stdout
    return set(json.loads(out))


def reachable(package: str) -> set[str]:
    """What a package may load: what it may import, what those may import, and so on."""
    seen, todo = {package}, [package]
    while todo:
        for allowed in MAY_IMPORT[owner(todo.pop())]:
            if allowed not in seen:
                seen.add(allowed)
                todo.append(allowed)
    return seen


@pytest.mark.parametrize("package", ["hw", *SUBPACKAGES])
def test_importing_a_package_loads_only_what_it_may_import(package):
    allowed = reachable(package)
    # A module's parent packages load with it (their __init__ stays light).
    parents = {name.rsplit(".", n)[0] for name in allowed for n in range(1, name.count(".") + 1)}
    ours = {m for m in loaded_modules(package) if m.split(".")[0] in PROJECT}
    stray = {
        m
        for m in ours
        if m not in parents and not any(m == a or m.startswith(a + ".") for a in allowed)
    }
    assert stray == set()


def test_of_the_daemon_the_engine_imports_only_the_protocol_and_the_peoples_vocabulary():
    imported = set()
    for package, allowed in MAY_IMPORT.items():
        if package.split(".")[0] != "engine":
            continue
        daemon = {a for a in allowed if a.startswith("firmware_host")}
        assert daemon == ENGINE_DAEMON.get(package, set()) and "hw" not in allowed, package
        imported |= daemon
    assert imported == {PROTOCOL_PACKAGE, PEOPLE_PACKAGE}


def test_engine_imports_no_hardware_and_nothing_of_the_daemon():
    # ``import engine`` loads nothing else (its names load on first use); the
    # UNO family's rules load the game interface's errors and shuffle, and
    # nothing of the daemon or the hardware.
    assert {m for m in loaded_modules("engine") if m.split(".")[0] in PROJECT} == {"engine"}
    modules = loaded_modules("engine.uno")
    assert {m.split(".")[0] for m in modules} & {
        "hw",
        "gpiozero",
        "firmware_host",
        "serial",
        "transitions",
    } == set()
    assert {m for m in modules if m.startswith("engine")} == {
        "engine",
        "engine.uno",
        "engine.game",
        "engine.game.errors",
        "engine.game.interface",
        "engine.game.shuffle",
        *(
            f"engine.uno.{name}"
            for name in (
                "actions",
                "cards",
                "deck_file",
                "game",
                "game_state",
                "match_facts",
                "narration",
                "notation",
                "party",
                "party_facts",
                "party_legality",
                "party_notation",
                "party_passive",
                "party_play",
                "party_rules",
                "party_turns",
                "refusals",  # why a tap is refused (its words load only when it is)
                "rules",
                "tables",
                "taps",
            )
        ),
    }


def test_hw_imports_neither_daemon_nor_engine():
    modules = loaded_modules("hw")
    assert not {m for m in modules if m.startswith(("firmware_host", "engine"))}


PROTOCOL = {
    "firmware_host",
    "firmware_host.protocol",
    *(
        f"firmware_host.protocol.{name}"
        for name in (
            "_connection",
            "_errors",
            "_framing",
            "_messages",
            "_names",
            "_outputs",
            "_schemas",
            "_values",
        )
    ),
}


def test_the_protocol_loads_nothing_else_of_the_project():
    ours = {m for m in loaded_modules("firmware_host.protocol") if m.split(".")[0] in PROJECT}
    assert ours == PROTOCOL


#: The people's vocabulary: its package re-exports every module, so one loads them all.
PEOPLE = {
    PEOPLE_PACKAGE,
    *(f"{PEOPLE_PACKAGE}.{name}" for name in ("console", "reactions", "words")),
}


@pytest.mark.parametrize("module", ["words", "reactions", "console"])
def test_the_shared_vocabulary_loads_only_the_protocol_and_the_standard_library(module):
    name = f"{PEOPLE_PACKAGE}.{module}"
    code = (
        f"import json, sys; before = set(sys.modules); import {name}; "
        "print(json.dumps(sorted(set(sys.modules) - before)))"
    )
    loaded = set(
        json.loads(
            subprocess.run(
                [sys.executable, "-c", code], check=True, cwd=ROOT, capture_output=True, text=True
            ).stdout
        )
    )
    assert {m for m in loaded if m.split(".")[0] in PROJECT} == PROTOCOL | PEOPLE
    assert {m.split(".")[0] for m in loaded} - set(PROJECT) <= set(sys.stdlib_module_names)


@pytest.mark.parametrize("package", ["firmware_host", "engine", *SUBPACKAGES])
def test_each_package_says_what_it_is_and_exports_its_names(package):
    module = importlib.import_module(package)
    assert module.__doc__ and module.__doc__.strip()
    assert module.__all__ and len(set(module.__all__)) == len(module.__all__)
    missing = [name for name in module.__all__ if not hasattr(module, name)]
    assert missing == []
    # A re-exported name never hides a module of the package.
    hidden = [name for name in module.__all__ if is_module(f"{package}.{name}")]
    assert hidden == []


def test_python_dash_m_runs_each_command():
    for package, prog in (("firmware_host", "showdown-unit"), ("engine", "showdown")):
        out = subprocess.run(
            [sys.executable, "-m", package, "--help"],
            check=True,
            cwd=ROOT,
            capture_output=True,
            text=True,
        ).stdout
        assert out.startswith(f"usage: {prog} ")

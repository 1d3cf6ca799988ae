"""Every import statement of a source file, read with ``ast``, remembered by the file's text.

tests/test_import_cycles.py and tests/test_layout.py read the imports of every
file of the project; parsing some 550 files was most of their time in `make
check`. What a file's text gives is kept in .pytest_cache/import-statements.json
under the SHA-1 of that text, so a file is parsed again only when it changed
(one entry a path; files outside the project are always parsed). The cache
is only a shortcut: the same text always gives the same statements.
"""

from __future__ import annotations

import ast
import atexit
import hashlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent
CACHE = ROOT / ".pytest_cache" / "import-statements.json"

#: The fields that hold a statement's own statements (a function's body, an
#: ``else:``, an ``except:``, a ``case``): an import is a statement, so the walk
#: never goes into an expression, most of a tree's nodes.
_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")


class Statement(NamedTuple):
    """One import: ``import a.b, c`` is (line, False, 0, None, ("a.b", "c"));
    ``from ..pkg import x`` is (line, True, 2, "pkg", ("x",))."""

    line: int
    is_from: bool
    level: int
    module: str | None
    names: tuple[str, ...]


def _statements(nodes: list[ast.AST]) -> Iterator[ast.AST]:
    for node in nodes:
        yield node
        for block in _BLOCKS:
            inner = getattr(node, block, None)
            if isinstance(inner, list):
                yield from _statements(inner)


def parse(text: str, filename: str = "<source>") -> list[Statement]:
    """Every import in ``text``, at any depth of statements, in order."""
    found = []
    for node in _statements(ast.parse(text, filename).body):
        if isinstance(node, ast.Import):
            found.append(Statement(node.lineno, False, 0, None, tuple(a.name for a in node.names)))
        elif isinstance(node, ast.ImportFrom):
            names = tuple(a.name for a in node.names)
            found.append(Statement(node.lineno, True, node.level, node.module, names))
    return found


class _Cache:
    """path -> (hash, statements), read from ``CACHE`` once a process."""

    def __init__(self) -> None:
        self.entries: dict[str, tuple[str, list[Statement]]] | None = None
        self.changed = False

    def load(self) -> dict[str, tuple[str, list[Statement]]]:
        if self.entries is None:
            try:
                raw = json.loads(CACHE.read_text(encoding="utf-8"))
                self.entries = {
                    path: (digest, [Statement(*s) for s in rows])
                    for path, (digest, rows) in raw.items()
                }
            except (OSError, ValueError, TypeError):
                self.entries = {}
        return self.entries

    def save(self) -> None:
        """Write the entries (atomically: a second pytest worker may write too)."""
        if not self.changed or self.entries is None:
            return
        self.changed = False
        try:
            CACHE.parent.mkdir(exist_ok=True)
            for gone in [path for path in self.entries if not (ROOT / path).exists()]:
                del self.entries[gone]  # a file deleted or moved since
            temporary = CACHE.with_name(f"{CACHE.name}.{os.getpid()}")
            temporary.write_text(json.dumps(self.entries), encoding="utf-8")
            os.replace(temporary, CACHE)
        except OSError:
            pass  # a read-only checkout: parse again next time


_CACHE = _Cache()


def imports_of(path: Path) -> list[Statement]:
    """The import statements of the file at ``path`` (see the module docstring)."""
    data = path.read_bytes()
    try:
        key = str(path.resolve().relative_to(ROOT))
    except ValueError:
        return parse(data.decode("utf-8"), str(path))
    digest = hashlib.sha1(data).hexdigest()
    entries = _CACHE.load()
    kept = entries.get(key)
    if kept is not None and kept[0] == digest:
        return kept[1]
    found = parse(data.decode("utf-8"), str(path))
    entries[key] = (digest, found)
    _CACHE.changed = True
    return found


atexit.register(_CACHE.save)  # what this process parsed, for the next run

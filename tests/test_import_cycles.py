"""No import cycle between the project's files.

The graph is read with ``ast`` from every source file of the project: every
import counts, at the top of a module, inside a function or under
``TYPE_CHECKING`` alike (an import put in a function to dodge a cycle is still
the cycle). ``import pkg.mod`` is an edge to ``pkg/mod.py``; ``from pkg import
name`` to ``pkg/name.py`` when that is a module, else to ``pkg/__init__.py``. A
package's parents, which Python runs first, are not edges: a package's
``__init__`` may re-export its own modules as long as none of them imports the
``__init__`` back (that is a cycle like any other).

A cycle is a strongly connected component of more than one file, or a file that
imports itself; the failure lists each with the imports that close it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from tests.import_statements import imports_of

ROOT = Path(__file__).resolve().parent.parent
#: The project's source trees: the packages, the benchmarks and the tests.
TREES = ("hw", "firmware_host", "engine", "benchmarks", "tests")

#: importer -> imported -> the line numbers of the imports, as paths from the root.
Graph = dict[str, dict[str, list[int]]]


def module_name(root: Path, path: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules(root: Path, trees: tuple[str, ...]) -> dict[str, Path]:
    """Module name -> its file, for every source file under the trees."""
    paths = (
        [root / tree] if (root / tree).is_file() else sorted((root / tree).rglob("*.py"))
        for tree in trees
    )
    return {module_name(root, path): path for group in paths for path in group}


def _package_of(importer: str, path: Path) -> str:
    """The package a relative import in ``importer`` starts from."""
    return importer if path.name == "__init__.py" else importer.rpartition(".")[0]


def _known(name: str, index: dict[str, Path]) -> str | None:
    """The module itself if it is one of ours, else its nearest enclosing one."""
    while name:
        if name in index:
            return name
        name = name.rpartition(".")[0]
    return None


def imported_modules(
    importer: str, path: Path, index: dict[str, Path]
) -> Iterator[tuple[int, str]]:
    """(line, module of ours) for every import in one file, resolved as the docstring says."""
    for statement in imports_of(path):
        if not statement.is_from:
            names = list(statement.names)
        else:
            base = statement.module or ""
            if statement.level:
                package = _package_of(importer, path)
                for _ in range(statement.level - 1):
                    package = package.rpartition(".")[0]
                base = f"{package}.{base}" if base else package
            names = [
                f"{base}.{name}" if f"{base}.{name}" in index else base for name in statement.names
            ]
        for name in names:
            target = _known(name, index)
            if target is not None:
                yield statement.line, target


def import_graph(root: Path, trees: tuple[str, ...]) -> Graph:
    index = modules(root, trees)
    graph: Graph = {}
    for importer, path in index.items():
        edges = graph.setdefault(str(path.relative_to(root)), {})
        for line, target in imported_modules(importer, path, index):
            lines = edges.setdefault(str(index[target].relative_to(root)), [])
            if line not in lines:  # ``from pkg.mod import a, b``: one import, one line
                lines.append(line)
    return graph


def strongly_connected(graph: Graph) -> list[list[str]]:
    """Tarjan's components, iteratively (a deep import chain must not hit the
    recursion limit); each component's files sorted."""
    order: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []
    for start in graph:
        if start in order:
            continue
        work = [(start, iter(graph[start]))]
        order[start] = low[start] = len(order)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, successors = work[-1]
            for successor in successors:
                if successor not in order:
                    order[successor] = low[successor] = len(order)
                    stack.append(successor)
                    on_stack.add(successor)
                    work.append((successor, iter(graph[successor])))
                    break
                if successor in on_stack:
                    low[node] = min(low[node], order[successor])
            else:
                work.pop()
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
                if low[node] == order[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    components.append(sorted(component))
    return components


def cycles(graph: Graph) -> list[str]:
    """Each cycle in words: its files, then every import between them with its lines."""
    found = []
    for component in sorted(strongly_connected(graph)):
        if len(component) == 1 and component[0] not in graph[component[0]]:
            continue
        members = set(component)
        edges = [
            f"  {importer}:{','.join(map(str, lines))} imports {target}"
            for importer in component
            for target, lines in sorted(graph[importer].items())
            if target in members
        ]
        found.append("\n".join([" <-> ".join(component), *edges]))
    return found


def test_no_import_cycle_between_the_projects_files():
    found = cycles(import_graph(ROOT, TREES))
    assert not found, f"{len(found)} import cycle(s):\n" + "\n".join(found)


# -- the graph itself, on small trees -------------------------------------------------


def write_tree(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def test_from_a_package_import_a_module_is_an_edge_to_the_module_else_to_the_init(tmp_path):
    root = write_tree(
        tmp_path,
        {
            "pkg/__init__.py": "VALUE = 1\n",
            "pkg/mod.py": "",
            "user.py": "from pkg import mod\nfrom pkg import VALUE, mod\nimport pkg.mod\n",
        },
    )
    assert import_graph(root, ("pkg", "user.py"))["user.py"] == {
        "pkg/mod.py": [1, 2, 3],
        "pkg/__init__.py": [2],
    }


def test_relative_imports_resolve_from_the_importers_package(tmp_path):
    root = write_tree(
        tmp_path,
        {
            "pkg/__init__.py": "from . import a\n",
            "pkg/a.py": "from .sub import b\n",
            "pkg/sub/__init__.py": "",
            "pkg/sub/b.py": "from .. import a\nfrom ..a import name\n",
        },
    )
    graph = import_graph(root, ("pkg",))
    assert graph["pkg/__init__.py"] == {"pkg/a.py": [1]}
    assert graph["pkg/a.py"] == {"pkg/sub/b.py": [1]}
    assert graph["pkg/sub/b.py"] == {"pkg/a.py": [1, 2]}


def test_an_init_that_re_exports_its_modules_is_no_cycle(tmp_path):
    root = write_tree(
        tmp_path,
        {
            "pkg/__init__.py": "from pkg.a import A\nfrom pkg.b import B\n",
            "pkg/a.py": "A = 1\n",
            "pkg/b.py": "from pkg.a import A\nB = A\n",
        },
    )
    assert cycles(import_graph(root, ("pkg",))) == []


def test_a_module_that_imports_its_packages_init_back_is_a_cycle(tmp_path):
    root = write_tree(
        tmp_path,
        {
            "pkg/__init__.py": "from pkg.a import A\n",
            "pkg/a.py": "def late():\n    from pkg import A\n    return A\n",
        },
    )
    assert cycles(import_graph(root, ("pkg",))) == [
        "pkg/__init__.py <-> pkg/a.py\n"
        "  pkg/__init__.py:1 imports pkg/a.py\n"
        "  pkg/a.py:2 imports pkg/__init__.py"
    ]


def test_a_cycle_through_a_function_or_type_checking_import_is_listed_with_its_edges(tmp_path):
    root = write_tree(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": "import pkg.b\n",
            "pkg/b.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import pkg.c\n",
            "pkg/c.py": "def f():\n    from pkg import a\n",
            "pkg/d.py": "import pkg.a\n",
        },
    )
    assert cycles(import_graph(root, ("pkg",))) == [
        "pkg/a.py <-> pkg/b.py <-> pkg/c.py\n"
        "  pkg/a.py:1 imports pkg/b.py\n"
        "  pkg/b.py:3 imports pkg/c.py\n"
        "  pkg/c.py:2 imports pkg/a.py"
    ]


def test_a_file_that_imports_itself_is_a_cycle(tmp_path):
    root = write_tree(tmp_path, {"pkg/__init__.py": "", "pkg/a.py": "from pkg import a\n"})
    assert cycles(import_graph(root, ("pkg",))) == ["pkg/a.py\n  pkg/a.py:1 imports pkg/a.py"]


def test_a_long_chain_needs_no_recursion():
    # One file imports the next, 1,500 deep: past Python's default recursion limit
    # (the graph as import_graph gives it: the walk is what could recurse).
    graph: Graph = {f"m{i}.py": {f"m{(i + 1) % 1_501}.py": [1]} for i in range(1_501)}
    [cycle] = cycles(graph)
    assert cycle.count("imports") == 1_501

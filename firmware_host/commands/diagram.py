"""``showdown-unit diagram``: the showdown state machine as a Mermaid diagram.

The diagram is drawn by transitions' own Mermaid backend (no graphviz needed)
from the very table the unit runs, :data:`firmware_host.core.machine.TRANSITIONS`,
so it cannot drift from the code. Guards show in brackets, ``!`` for "unless".
The backend's styling lines (``classDef``, ``Class``: colours for the current
state) are left out: the diagram is read in the docs, where no state is current.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from transitions.extensions.diagrams import GraphMachine

from firmware_host.core.machine import STATES, TRANSITIONS
from firmware_host.people.console import CommandError

if TYPE_CHECKING:
    from transitions.extensions.diagrams_base import GraphProtocol  # only in its type stubs

__all__ = ["mermaid", "add_arguments", "command"]

TITLE = "Showdown unit state machine"
_STYLING = ("classDef ", "Class ")


class _Model:
    """Something for the graph machine to attach its triggers to."""

    # Bound by the graph machine; only declared here (it refuses a model that has one).
    get_graph: Callable[[], GraphProtocol]


def mermaid() -> str:
    """The Mermaid ``stateDiagram-v2`` text of the showdown machine.

    >>> text = mermaid()
    >>> text.splitlines()[:4]
    ['---', 'title: Showdown unit state machine', '---', 'stateDiagram-v2']
    >>> "go --> false_start: paddle_pressed [press_is_early]" in text
    True
    >>> "classDef" in text or "Class " in text
    False
    """
    model = _Model()
    GraphMachine(
        model=model,
        states=list(STATES),
        transitions=TRANSITIONS,
        initial="idle",
        auto_transitions=False,
        graph_engine="mermaid",
        show_conditions=True,
        title=f"title: {TITLE}",
    )
    text = model.get_graph().draw(None)
    assert text is not None  # no file to write: the text itself
    lines = text.splitlines()
    return "".join(
        f"{line}\n" for line in lines if line.strip() and not line.lstrip().startswith(_STYLING)
    )


def add_arguments(parser) -> None:
    parser.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        help="write the diagram to FILE instead of standard output",
    )


def command(args) -> int:
    text = mermaid()
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8") as file:
                file.write(text)
        except OSError as exc:
            raise CommandError(f"cannot write {args.output}: {exc.strerror or exc}") from None
    else:
        sys.stdout.write(text)
    return 0

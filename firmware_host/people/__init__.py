"""What both ends say to people, and how the people at the unit are modelled;
standard library only, and of the project only the protocol's values.

Both the daemon and the engine import this package (the engine may import nothing
else of ``firmware_host`` besides the wire protocol). It is not the wire: the
wire is ``firmware_host.protocol``, whose values (``Side``, ``Reason``,
``Launch``, ``EventName``) the words are written about. Three modules, one idea
each:

- ``words``: the one place the unit's events and results become words for
  people (a log line, a sentence for the table, a history row) and the pieces
  they are made of (``plural``, ``ms``, side and player labels, the verdicts);
- ``reactions``: the one human reaction-time model (``Reactions`` and its
  defaults ``HUMAN``) every simulation draws its presses from;
- ``console``: the command-line scaffold of ``showdown-unit`` and ``showdown``
  (logging flags, Ctrl-C, one-line errors and exit statuses, the argparse
  number checks).

This module re-exports their public names; importing a module by name
(``from firmware_host.people import console``) works as well.

>>> from firmware_host.people import plural, versus
>>> plural(2, "card"), versus("Ann", "Bob")
('2 cards', 'Ann vs Bob')
"""

from firmware_host.people.console import (
    INTERRUPTED,
    LOG_FORMAT,
    CommandError,
    UsageError,
    build_parser,
    configure_logging,
    positive_int,
    run,
    seconds,
    seed,
    whole_number,
)
from firmware_host.people.reactions import HUMAN, NEAR_TIE_US, PHOTO_FINISH_US, Reactions
from firmware_host.people.words import (
    NO_BOTS_TEXT,
    START_TEXTS,
    again_line,
    announce,
    apart,
    at_unit_label,
    capital,
    decision_line,
    duel_verdict,
    event_line,
    history_line,
    interrupted_text,
    launch_problem,
    launch_text,
    load_line,
    ms,
    noun,
    outputs_text,
    player_label,
    plural,
    rearmed_line,
    reruns_text,
    result_line,
    side_label,
    table_line,
    third_person,
    us,
    verb,
    verdict,
    versus,
)

__all__ = [
    # words: the pieces
    "plural",
    "noun",
    "ms",
    "us",
    "side_label",
    "player_label",
    "versus",
    "reruns_text",
    "verb",
    "third_person",
    "capital",
    # words: verdicts, launches, results
    "launch_text",
    "launch_problem",
    "verdict",
    "duel_verdict",
    "again_line",
    "announce",
    "result_line",
    "history_line",
    "decision_line",
    "interrupted_text",
    # words: events and the table
    "event_line",
    "outputs_text",
    "table_line",
    "apart",
    "load_line",
    "rearmed_line",
    "at_unit_label",
    "START_TEXTS",
    "NO_BOTS_TEXT",
    # reactions
    "Reactions",
    "HUMAN",
    "NEAR_TIE_US",
    "PHOTO_FINISH_US",
    # console
    "run",
    "build_parser",
    "configure_logging",
    "CommandError",
    "UsageError",
    "whole_number",
    "positive_int",
    "seed",
    "seconds",
    "INTERRUPTED",
    "LOG_FORMAT",
]

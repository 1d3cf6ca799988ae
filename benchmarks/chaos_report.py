"""The chaos run's figures in words (benchmarks/chaos.py), and the ones that
must be 0 for its exit status 0."""

from __future__ import annotations

__all__ = ["MUST_BE_ZERO", "text"]


#: Each must be 0 for exit status 0.
MUST_BE_ZERO = (
    "verdicts_lost",
    "verdicts_changed",
    "launches_without_record",
    "run_twice",
    "bad_client_arms",
    "bad_client_problems",
    "full_disk_failures",
    "second_daemons_not_refused",
    "unexpected_daemon_exits",
    "harness_errors",
    "unfinished",
)


def text(figures: dict) -> str:
    kills = figures["kills"]
    after = figures["journal_after_a_kill"]
    disk = figures["full_disk"]
    bad = figures["bad_clients"]
    ready = figures["kill_to_ready_s"]
    lines = [
        f"showdowns run: {figures['showdowns']} (seed {figures['seed']}) in "
        f"{figures['seconds']} s, {figures['daemon_starts']} daemon starts",
        f"kills (SIGKILL) per moment: {sum(kills.values())} ("
        + ", ".join(f"{moment} {count}" for moment, count in kills.items())
        + ")"
        + (
            f"; {figures['kill_moments_missed']} planned moments never came"
            if figures["kill_moments_missed"]
            else ""
        ),
        "  then the journal said, per moment: "
        + "; ".join(
            f"{moment} "
            + (", ".join(f"{launch} {count}" for launch, count in launches.items()) or "undecided")
            for moment, launches in after.items()
        ),
        f"  decided before the kill but not yet seen by the client: "
        f"{figures['kills_decided_before_the_client_saw_it']}",
        f"  kill to ready again: median {ready['median']} s, max {ready['max']} s",
        f"link cuts: {figures['link_cuts']}",
        f"full-disk faults: {disk['faulted']} of {disk['runs']} (cleared by cancel: "
        f"{disk['cleared_by_cancel']}); reason: {disk['reason']}",
        f"second daemons on the same journal: {figures['second_daemons']['started']}, "
        f"exited 78: {figures['second_daemons']['exited_78']}",
        f"verdicts seen: {figures['verdicts_seen']}; answered from the journal after a "
        f"kill or cut: {figures['answered_from_journal']}",
        f"verdicts lost: {figures['verdicts_lost']}",
        f"verdicts changed after restart: {figures['verdicts_changed']}",
        f"launches without a record: {figures['launches_without_record']}",
        f"showdowns run twice: {figures['run_twice']}",
        f"showdowns without a final result: {figures['unfinished']}",
        f"bad clients: {bad['bursts']} bursts ({bad['pings']} pings, all answered in order; "
        f"{bad['burst_cut_by_hello_timeout']} more cut by hello_timeout before their hello "
        f"was read), {bad['garbage_lines']} garbage lines refused in order in "
        f"{bad['garbage_rounds']} rounds ({bad['garbage_cut_by_hello_timeout']} of them cut "
        f"short by hello_timeout), {bad['http_refused']} HTTP POSTs refused, "
        f"{bad['silent_closed']} silent sockets closed at the hello deadline, "
        f"{bad['storm_connects']} connect/close; {bad['cut_by_a_restart']} cut by a restart",
        f"bad-client arms: {figures['bad_client_arms']}",
        f"bad-client problems: {figures['bad_client_problems']}",
        f"daemon exits nobody asked for: {figures['unexpected_daemon_exits']}",
        f"harness errors: {figures['harness_errors']}",
    ]
    lines += [f"  {problem}" for problem in figures["problems"]]
    return "\n".join(lines)

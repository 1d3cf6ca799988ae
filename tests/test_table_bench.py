"""benchmarks/table_bench.py: the browser table's benchmark, run small as a
process (a real ``showdown table``, a display and phones over WebSockets), its
report's shape and sanity checked; no timing is asserted. Its page crawler's
parsing and its percentile are checked on their own (fast)."""

from __future__ import annotations

import importlib.util
import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "benchmarks" / "table_bench.py"
STATIC = ROOT / "engine" / "apps" / "table" / "static"

_spec = importlib.util.spec_from_file_location("table_bench", SCRIPT)
assert _spec is not None and _spec.loader is not None
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)


def run_bench(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--settle-s", "0.2", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,  # a safety net for a hung run, not a timing check
    )


# -- the crawler's parsing (fast) -----------------------------------------------------------


def test_references_finds_what_a_page_a_module_and_a_stylesheet_make_the_browser_fetch():
    html = """<!doctype html><html><head>
    <link rel="stylesheet" href="/static/table.css"><link rel="icon" href="/favicon.svg">
    <link rel="canonical" href="/elsewhere">
    <script type="module" src="/static/display.js"></script></head>
    <body><img src="/qr.svg" alt=""><img src="data:image/png;base64,AAAA" alt=""></body></html>"""
    assert bench.references("html", html) == [
        "/static/table.css",
        "/favicon.svg",
        "/static/display.js",
        "/qr.svg",
    ]
    js = """import {
      fill,
      h,
    } from "./common.js";
    import { showShowdown, sound } from './showdown.js';
    import "./side-effect.js";
    export { thing } from "./reexport.js";
    const later = () => import("./lazy.js");
    fetch("/api/history");  // data, not the page's code
    """
    assert bench.references("js", js) == [
        "./common.js",
        "./showdown.js",
        "./side-effect.js",
        "./reexport.js",
        "./lazy.js",
    ]
    css = """@import "fonts.css";
    body { background: url( '/static/felt.png' ) } .x { mask: url(data:image/svg+xml,AAA) }"""
    assert bench.references("css", css) == ["fonts.css", "/static/felt.png"]


def test_every_module_the_pages_import_is_found_in_the_real_files():
    display = bench.references("js", (STATIC / "display.js").read_text())
    assert {"./common.js", "./showdown.js"} <= set(display)
    assert "./common.js" in bench.references("js", (STATIC / "showdown.js").read_text())


def test_percentile_is_the_nearest_rank():
    samples = [float(n) for n in range(1, 101)]
    assert [bench.percentile(samples, f) for f in (0.5, 0.9, 0.99, 1.0)] == [50, 90, 99, 100]
    assert bench.percentile([7.0], 0.99) == 7.0
    assert bench.percentile([1.0, 2.0, 3.0], 0.99) == 3.0


def test_a_page_over_150_kb_or_loading_from_elsewhere_misses_the_target():
    def run(page_bytes: int, external: list[str]) -> dict:
        page = {"bytes": page_bytes, "external": external}
        mb = {"rss_kb": 40 * 1024}
        return {"pages": {"display": page}, "memory": {"match_started": mb, "end": mb}}

    summary = {"latency_ms": {"p99": 10.0}}
    assert bench.verdicts(summary, [run(30_000, [])])["pages_under_150_kb"] is True
    assert bench.verdicts(summary, [run(150_000, [])])["pages_under_150_kb"] is False
    assert bench.verdicts(summary, [run(30_000, ["https://cdn/x.js"])])["pages_under_150_kb"] is (
        False
    )


# -- the benchmark as a process (slow) ------------------------------------------------------


@pytest.mark.slow
def test_a_small_run_reports_every_figure_in_its_shape(tmp_path):
    sizes = {name: (STATIC / name).stat().st_size for name in ("display.html", "display.js")}
    run = run_bench("--phones", "12", "--taps", "10", "--json")
    assert run.returncode == 0, run.stdout + run.stderr
    figures = json.loads(run.stdout)
    assert figures["arguments"]["phones"] == 12
    assert figures["machine"]["nproc"] >= 1 and figures["machine"]["cpu"]
    [result] = figures["runs"]
    assert result["connected"] == {"display": 1, "phones": 12, "seated": 10, "unseated": 2}

    pages = result["pages"]
    assert pages["display"]["path"] == "/" and pages["phone"]["path"] == "/phone"
    display_files = {f["url"]: f["bytes"] for f in pages["display"]["files"]}
    assert set(display_files) >= {
        "/",
        "/static/table.css",
        "/static/display.js",
        "/static/common.js",
        "/static/showdown.js",
        "/qr.svg",
    }
    for url, name in (("/", "display.html"), ("/static/display.js", "display.js")):
        # the file as served (its size before or after the run: pages change as they are worked on)
        assert display_files[url] in (sizes[name], (STATIC / name).stat().st_size), url
    phone_files = {f["url"] for f in pages["phone"]["files"]}
    assert phone_files >= {"/phone", "/static/table.css", "/static/phone.js", "/static/common.js"}
    assert "/qr.svg" not in phone_files
    for name, page in pages.items():
        assert page["bytes"] == sum(f["bytes"] for f in page["files"]), name
        assert 0 < page["gzip_bytes"] < page["bytes"], name
        assert isinstance(page["compressed_by_server"], bool)
        assert page["external"] == [], name
    others = {html.stem for html in STATIC.glob("*.html")} - {"display", "phone"}
    assert set(pages) == {"display", "phone", *others}

    memory = result["memory"]
    assert list(memory) == list(bench.MOMENTS)
    for moment, figure in memory.items():
        assert 10_000 < figure["rss_kb"] <= figure["hwm_kb"], moment
    assert memory["end"]["hwm_kb"] >= max(f["rss_kb"] for f in memory.values())

    assert result["taps"] >= 10 and result["rounds_ended"] >= 1
    latency = result["latency_ms"]
    assert 0 < latency["median"] <= latency["p90"] <= latency["p99"] <= latency["max"]
    assert result["taps_per_s"] > 0 and result["server_cpu_ms_per_tap"] > 0
    assert result["display_view_bytes"]["median"] > 0

    assert figures["median"]["latency_ms"] == latency
    assert set(figures["met"]) == {"rss_under_70_mb", "p99_under_50_ms", "pages_under_150_kb"}
    assert all(isinstance(ok, bool) for ok in figures["met"].values())


@pytest.mark.slow
def test_the_text_report_names_who_is_connected_and_each_target():
    run = run_bench("--phones", "3", "--taps", "5")
    assert run.returncode == 0, run.stdout + run.stderr
    out = run.stdout
    assert "connected: 1 display and 3 phones: 3 seated" in out
    assert "0 connected as phones without a seat" in out
    assert "Bytes per page load" in out and "Server memory, VmRSS MB" in out
    assert "Tap-to-display latency, ms" in out
    targets = next(line for line in out.splitlines() if line.startswith("Targets: "))
    for name in ("rss_under_70_mb", "p99_under_50_ms", "pages_under_150_kb"):
        assert f"{name}: met" in targets or f"{name}: NOT met" in targets


@pytest.mark.slow
def test_a_server_that_cannot_start_is_one_clear_message():
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        run = run_bench("--phones", "2", "--taps", "1", "--port", str(port))
    assert run.returncode == 1
    assert run.stdout == ""
    assert run.stderr.startswith("table_bench: the table server did not start (exit status 1)")
    assert f"cannot listen on 127.0.0.1:{port}" in run.stderr
    assert run.stderr.count("\n") == 1


def test_too_few_phones_is_a_usage_error(capsys):
    with pytest.raises(SystemExit) as exit:
        bench.main(["--phones", "1"])
    assert exit.value.code == 2
    assert "--phones must be at least 2" in capsys.readouterr().err


def test_the_host_key_and_the_room_code_are_read_from_what_the_server_printed():
    printed = (
        "The table (room QXZW), seed 5:\n"
        "  host:    http://127.0.0.1:8700/#host=a-B_3   (the host's display: keep it secret)\n"
    )
    assert bench.printed_access(printed) == ("a-B_3", "QXZW")
    assert bench.printed_access("The table (room QXZW), seed 5:\n") is None

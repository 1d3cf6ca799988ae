"""How far a phone's clock offset (static/clock.js) is from the truth, in real Chromium.

Pages of the paddles' harness (tests/paddle_harness.py) run with a delay and
jitter injected on every WebSocket frame each way and a fake offset added to
performance.now(); each sets its clock (a burst of pings, then one every 2 s)
for ``--seconds`` and its estimate is compared with the true offset between
the server's clock (time.monotonic) and the page's performance.now(), known
from performance.timeOrigin and this machine's wall clock. Prints, for each
delay/jitter, p50 and p99 of |estimated - true offset|, the p50 of the
uncertainty the page claims, and how often the error was within it.

    PYTHONPATH=. .venv/bin/python benchmarks/paddle_clock.py --pages 30 --seconds 6
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import time

from tests.paddle_harness import DELAY_SCRIPT, PaddleServer, serving

CHROMIUM = os.environ.get("CHROMIUM", "/usr/lib/chromium/chromium")
#: (delay each way, jitter each way), ms.
NETWORKS = ((5.0, 0.0), (5.0, 10.0), (80.0, 0.0), (80.0, 40.0))

FAKE_OFFSET = """(() => {
  const real = performance.now.bind(performance);
  const shift = window.__shift;
  performance.now = () => real() + shift;
})();"""

READ = """() => {
  const est = window.paddles.estimate();
  const shift = window.__shift;
  return { est, origin: performance.timeOrigin, shift, samples: window.paddles.samples.length };
}"""


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(p / 100 * (len(ordered) - 1)))]


def main() -> None:
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", type=int, default=30, help="pages per network")
    parser.add_argument("--seconds", type=float, default=6.0, help="how long each sets its clock")
    args = parser.parse_args()
    server = PaddleServer()
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    with sock, serving(server.app(), sock), sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM)
        print(f"{args.pages} pages per network, {args.seconds:g} s of sampling each")
        print("delay  jitter |  p50 |err|  p99 |err|  p50 claimed  within claimed")
        for delay, jitter in NETWORKS:
            context = browser.new_context()
            pages = []
            for n in range(args.pages):
                shift = 1000.0 * (n + 1) + 0.123 * n  # a different fake offset on each page
                context.add_init_script(f"window.__delay = {delay}; window.__jitter = {jitter};")
                page = context.new_page()
                page.add_init_script(f"window.__shift = {shift};")
                page.add_init_script(FAKE_OFFSET)
                page.add_init_script(DELAY_SCRIPT)
                page.goto(f"{url}/?seat={100 + n}")
                pages.append(page)
            time.sleep(args.seconds)  # a benchmark: the pages set their clocks meanwhile
            # the server's clock is time.monotonic(); the page's now() is epoch - timeOrigin + shift
            epoch_minus_mono = (time.time() - time.monotonic()) * 1000
            errors, claimed = [], []
            for page in pages:
                got = page.evaluate(READ)
                truth = got["origin"] - epoch_minus_mono - got["shift"]
                errors.append(abs(got["est"]["offset"] - truth))
                claimed.append(got["est"]["uncertainty"])
            within = sum(e <= c for e, c in zip(errors, claimed, strict=True)) / len(errors)
            print(
                f"{delay:5.0f}  {jitter:6.0f} | {percentile(errors, 50):6.2f} ms "
                f"{percentile(errors, 99):6.2f} ms  {statistics.median(claimed):8.2f} ms"
                f"     {within:6.0%}"
            )
            context.close()
        browser.close()


if __name__ == "__main__":
    main()

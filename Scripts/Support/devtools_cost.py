"""What the devtools cost a dispatch, in instructions (callgrind): `moonblade-serve` on the counter plugin
runs whole under valgrind while N dispatches arrive over HTTP, and again with none; the difference over N
is one dispatch's count, HTTP included. Three servers: without --devtools, with --devtools and no page
open, and with the page open in Debian's chromium (Playwright), which reads every event.

Arguments: the `moonblade-serve` executable, the repository's root, N (default 300).
"""

import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import sync_playwright

SERVE, ROOT = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
COUNT = int(sys.argv[3]) if len(sys.argv) > 3 else 300


def instructions(scratch: Path, devtools: bool, page: bool, dispatches: int, playwright) -> int:
    """The server's whole instruction count for a run with `dispatches` dispatches."""
    out = scratch / f"callgrind-{devtools}-{page}-{dispatches}"
    log = scratch / "server.log"
    arguments = [str(SERVE), str(ROOT / "Plugins" / "counter"), "--port", "0", "--token", "t", "--data-dir", str(scratch / "data")]
    if devtools:
        arguments.append("--devtools")
    server = subprocess.Popen(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"] + arguments,
        stdout=subprocess.DEVNULL, stderr=log.open("w"))
    try:
        # A guard against a server that never starts under valgrind (slow), not a measurement.
        deadline = time.monotonic() + 300
        port = None
        while port is None and time.monotonic() < deadline:
            match = re.search(r"listening on http://127\.0\.0\.1:(\d+)", log.read_text())
            port = match and match.group(1)
            time.sleep(0.2)
        if port is None:
            raise RuntimeError(log.read_text())
        base = f"http://127.0.0.1:{port}"
        browser = None
        if page:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=["--no-sandbox"])
            tab = browser.new_page()
            tab.goto(f"{base}/devtools#token=t")
            tab.wait_for_selector("#connection.live", timeout=120000)
        for _ in range(dispatches):
            request = urllib.request.Request(
                base + "/dispatch/counter.increment", data=b'{"by": 1}', method="POST",
                headers={"Authorization": "Bearer t", "Content-Type": "application/json"})
            urllib.request.urlopen(request, timeout=60).read()
        if page:
            # Every event reached the page before it closes.
            tab.wait_for_function(f"document.querySelectorAll('#log li').length >= {dispatches}", timeout=300000)
            browser.close()
    finally:
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=300)
    text = out.read_text(errors="replace")
    return int(re.search(r"^summary: (\d+)", text, re.MULTILINE).group(1))


def main():
    with tempfile.TemporaryDirectory(prefix="moonblade-devtools-cost-") as scratch, sync_playwright() as playwright:
        scratch = Path(scratch)
        for name, devtools, page in (("without --devtools", False, False), ("--devtools, no page open", True, False),
                                     ("--devtools, page open", True, True)):
            idle = instructions(scratch, devtools, page, 0, playwright)
            busy = instructions(scratch, devtools, page, COUNT, playwright)
            print(f"{name}: {(busy - idle) / COUNT:,.0f} instructions per dispatch ({COUNT} dispatches over HTTP)")


if __name__ == "__main__":
    main()

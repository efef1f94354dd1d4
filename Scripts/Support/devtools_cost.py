"""What the devtools cost the server per dispatch: the CPU time `moonblade-serve` (on the counter plugin)
spends on N dispatches over HTTP, read from /proc before and after, divided by N. Three servers: without
--devtools, with --devtools and no page open, and with the page open in Debian's chromium (Playwright),
which reads every event. CPU time, not instructions: valgrind cannot run the server (it dies in
libdispatch's signal thread). The server's own CPU time is counted, not the browser's; on a busy machine
run it more than once.

Arguments: the `moonblade-serve` executable, the repository's root, N (default 2000).
"""

import os
import re
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

SERVE, ROOT = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
COUNT = int(sys.argv[3]) if len(sys.argv) > 3 else 2000
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """The process's user and system time so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS


def per_dispatch(scratch: Path, devtools: bool, page: bool, playwright) -> float:
    """The server's CPU time per dispatch, in microseconds."""
    log = scratch / "server.log"
    arguments = [str(SERVE), str(ROOT / "Plugins" / "counter"), "--port", "0", "--token", "t", "--data-dir", str(scratch / "data")]
    if devtools:
        arguments.append("--devtools")
    server = subprocess.Popen(arguments, stdout=subprocess.DEVNULL, stderr=log.open("w"))
    browser = None
    try:
        # A guard against a server that never starts, not a measurement.
        deadline = time.monotonic() + 60
        port = None
        while port is None and time.monotonic() < deadline:
            match = re.search(r"listening on http://127\.0\.0\.1:(\d+)", log.read_text())
            port = match and match.group(1)
            time.sleep(0.1)
        if port is None:
            raise RuntimeError(log.read_text())
        base = f"http://127.0.0.1:{port}"
        if page:
            browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", headless=True, args=["--no-sandbox"])
            tab = browser.new_page()
            tab.goto(f"{base}/devtools#token=t")
            tab.wait_for_selector("#connection.live")
        before = cpu_seconds(server.pid)
        for _ in range(COUNT):
            request = urllib.request.Request(
                base + "/dispatch/counter.increment", data=b'{"by": 1}', method="POST",
                headers={"Authorization": "Bearer t", "Content-Type": "application/json"})
            urllib.request.urlopen(request, timeout=60).read()
        if page:
            # Every event reached the page (and so was sent) before the time is read.
            expect(tab.locator("#log li")).to_have_count(COUNT, timeout=300000)
        return (cpu_seconds(server.pid) - before) / COUNT * 1e6
    finally:
        if browser:
            browser.close()
        server.send_signal(signal.SIGTERM)
        server.wait(timeout=60)


def main():
    with tempfile.TemporaryDirectory(prefix="moonblade-devtools-cost-") as scratch, sync_playwright() as playwright:
        for name, devtools, page in (("without --devtools", False, False), ("--devtools, no page open", True, False),
                                     ("--devtools, page open", True, True)):
            cost = per_dispatch(Path(scratch), devtools, page, playwright)
            print(f"{name}: {cost:,.0f} µs of server CPU time per dispatch ({COUNT} dispatches over HTTP)")


if __name__ == "__main__":
    main()

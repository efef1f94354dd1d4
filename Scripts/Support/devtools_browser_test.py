"""The devtools page in a real browser: Debian's chromium, driven by Playwright, against `moonblade serve
--devtools` on the shipped counter and todo plugins (copied, so that a step can break one on disk).

Each step is checked and photographed under .build/devtools-screenshots/. Run by Scripts/browser-test,
which builds the server first; arguments: the `moonblade` executable, the repository's root.
"""

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback
import urllib.request
from pathlib import Path

from playwright.sync_api import expect, sync_playwright

MOONBLADE, ROOT = Path(sys.argv[1]).resolve(), Path(sys.argv[2]).resolve()
SHOTS = ROOT / ".build" / "devtools-screenshots"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")

BROKEN_COUNTER = """-- version 2, half written: the updater's body is missing
return {
  name = "counter", version = 2,
  updaters = { increment = function(state, payload) state.counter = end },
}
"""

FIXED_COUNTER = """-- version 2: counts by tens
return {
  name = "counter", version = 2,
  updaters = {
    increment = function(state, payload)
      state.counter = (state.counter or 0) + 10 * (payload and payload.by or 1)
    end,
    reset = function(state) state.counter = 0 end,
  },
}
"""


class Server:
    """`moonblade serve --devtools` on a scratch copy of the plugins, with a journal."""

    def __init__(self, scratch: Path):
        self.plugins = scratch / "plugins"
        for name in ("counter", "todo"):
            shutil.copytree(ROOT / "Plugins" / name, self.plugins / name, ignore=shutil.ignore_patterns("spec"))
        self.data = scratch / "data"
        self.log = scratch / "server.log"
        self.process = subprocess.Popen(
            [str(MOONBLADE), "serve", str(self.plugins), "--port", "0", "--devtools",
             "--journal", str(scratch / "session.journal"), "--data-dir", str(self.data)],
            stdout=subprocess.DEVNULL, stderr=self.log.open("w"))
        # A guard against a server that never starts, not a measurement.
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            match = re.search(r"devtools at (http://127\.0\.0\.1:(\d+)/devtools)#token=([0-9a-f]+)", self.log.read_text())
            if match:
                self.page_url, self.origin = match.group(1), f"http://127.0.0.1:{match.group(2)}"
                self.token = match.group(3)
                return
            if self.process.poll() is not None:
                break
            time.sleep(0.1)
        raise RuntimeError("the server did not print its devtools address:\n" + self.log.read_text())

    def request(self, method: str, path: str, body=None, token=True):
        """An HTTP request from another client than the page; (status, parsed JSON body or None)."""
        data = None if body is None else json.dumps(body).encode()
        headers = {"Content-Type": "application/json"}
        if token:
            headers["Authorization"] = "Bearer " + self.token
        request = urllib.request.Request(self.origin + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                text = response.read()
                return response.status, json.loads(text) if text else None
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()


def main() -> int:
    SHOTS.mkdir(parents=True, exist_ok=True)
    for old in SHOTS.glob("*.png"):
        old.unlink()
    passed, failed = 0, 0
    with tempfile.TemporaryDirectory(prefix="moonblade-devtools-") as scratch, sync_playwright() as playwright:
        server = Server(Path(scratch))
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=["--no-sandbox"])
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            page_errors = []
            page.on("pageerror", lambda error: page_errors.append(str(error)))
            steps = Steps(server, page, browser)
            for step in (steps.loads, steps.dispatch_from_the_form, steps.dispatch_from_another_client,
                         steps.a_rules_dispatch_nests_and_a_row_shows_its_spans,
                         steps.broken_plugin_keeps_the_old_version, steps.fixed_plugin_shows_the_new_version,
                         steps.jump_in_time_runs_no_side_effect, steps.exports_the_log_as_json_and_a_spec,
                         steps.the_keyboard_reaches_everything, steps.without_the_token_it_is_read_only):
                name = step.__name__.replace("_", " ")
                try:
                    step()
                    if page_errors:
                        raise AssertionError("the page threw: " + "; ".join(page_errors))
                    passed += 1
                    print(f"ok: {name}")
                except Exception:
                    failed += 1
                    print(f"FAILED: {name}")
                    traceback.print_exc()
                    page.screenshot(path=str(SHOTS / f"failed-{step.__name__}.png"), full_page=True)
        finally:
            browser.close()
            server.stop()
            if failed:
                print(Path(server.log).read_text()[-4000:])
    print(f"screenshots: {SHOTS}")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


class Steps:
    def __init__(self, server: Server, page, browser):
        self.server, self.page, self.browser = server, page, browser

    def shot(self, name: str):
        self.page.screenshot(path=str(SHOTS / f"{name}.png"))

    def row(self, selector: str):
        return self.page.locator(f"#log li{selector}")

    def loads(self):
        page = self.page
        page.goto(f"{self.server.page_url}#token={self.server.token}")
        expect(page.locator("#connection")).to_have_text("live")
        expect(page.locator("#access-status")).to_have_text("full access")
        # The token left the address bar (it stays in this tab's session storage).
        assert "token" not in page.url, page.url
        expect(page.locator("#plugins li")).to_have_count(2)
        expect(page.locator("#dispatch-item option[value='counter.increment']")).to_have_count(1)
        self.shot("01-loaded")

    def dispatch_from_the_form(self):
        page = self.page
        page.select_option("#dispatch-item", "counter.increment")
        page.fill("#dispatch-payload", '{"by": 2')
        expect(page.locator("#payload-error")).to_contain_text("not JSON")
        expect(page.locator("#dispatch-send")).to_be_disabled()
        self.shot("02-payload-checked")
        page.fill("#dispatch-payload", '{"by": 2}')
        expect(page.locator("#dispatch-send")).to_be_enabled()
        page.click("#dispatch-send")
        row = self.row("[data-item='counter.increment'][data-outcome='applied']")
        expect(row).to_have_count(1)
        expect(row).to_contain_text("counter v1")
        row.click()
        page.click("#tab-diff")
        expect(page.locator("#detail-diff li[data-path='[\"counter\"]']")).to_contain_text("counter: 2")
        page.click("#tab-state")
        expect(page.locator("#detail-state")).to_contain_text("counter: 2")
        self.shot("03-dispatch-and-diff")

    def dispatch_from_another_client(self):
        page = self.page
        started = time.monotonic()
        status, _ = self.server.request("POST", "/dispatch/todo.add", {"title": "milk"})
        assert status == 204, status
        # The bound: a dispatch made elsewhere shows within a second (catches a page that polls
        # slowly or a stream that batches; the stream itself takes milliseconds).
        expect(self.row("[data-item='todo.add'][data-outcome='applied']")).to_have_count(1, timeout=1000)
        shown = time.monotonic() - started
        expect(self.row("[data-item='todo.add']")).to_contain_text("over HTTP")
        # Its observer rule saved the list: dispatched by a rule, nested under it.
        expect(self.row("[data-item='todo.save']")).to_have_count(1)
        expect(self.row("[data-item='todo.save']")).to_contain_text("by a rule")
        self.row("[data-item='todo.add']").click()
        expect(page.locator("#detail-state")).to_contain_text('title: "milk"')
        print(f"  shown {shown * 1000:.0f} ms after the request was sent")
        self.shot("04-dispatch-from-another-client")

    def a_rules_dispatch_nests_and_a_row_shows_its_spans(self):
        page = self.page
        add, save = self.row("[data-item='todo.add']"), self.row("[data-item='todo.save']")
        # The stream names the parent: the rule's dispatch is the row right under todo.add, one level in.
        expect(add).to_have_attribute("data-depth", "0")
        expect(save).to_have_attribute("data-depth", "1")
        assert page.evaluate(
            "() => document.querySelector(\"#log li[data-item='todo.add']\").nextElementSibling.dataset.item") == "todo.save"
        save.click()
        expect(page.locator("#detail-meta")).to_contain_text("by a rule, depth 1 (under todo.add")
        # → opens the selected row's span tree, each span with its duration; ← closes it.
        add.click()
        page.locator("#log").focus()
        page.keyboard.press("ArrowRight")
        expect(add).to_have_attribute("aria-expanded", "true")
        spans = add.locator(".spans")
        expect(spans).to_contain_text("dispatch todo.add")
        for step in ("state to lua", "lua", "state from lua", "rule todo.observers[1] todo.save"):
            expect(spans.locator(".span-name", has_text=step).first).to_be_visible()
        # The rule's span ends after its dispatch does: the tree comes again then.
        expect(spans.locator(".span-duration", has_text="running")).to_have_count(0)
        durations = spans.locator(".span-duration").all_text_contents()
        assert durations and all(re.fullmatch(r"[\d.]+ (ns|µs|ms)", text) for text in durations), durations
        # The side effect's own tree came after it started: its await and the Lua around it.
        save.click()
        page.keyboard.press("ArrowRight")
        expect(save.locator(".spans")).to_contain_text("dispatch todo.save")
        expect(save.locator(".spans")).to_contain_text("await ctx.deps.storage")
        self.shot("04b-span-tree-and-nested-rows")
        page.keyboard.press("ArrowLeft")
        expect(save.locator(".spans")).to_have_count(0)
        add.click()
        page.keyboard.press("ArrowLeft")
        expect(add.locator(".spans")).to_have_count(0)

    def broken_plugin_keeps_the_old_version(self):
        page = self.page
        (self.server.plugins / "counter" / "plugin.lua").write_text(BROKEN_COUNTER)
        failure = self.row("[data-type='reload'][data-outcome='failed']")
        expect(failure).to_have_count(1, timeout=15000)
        expect(failure).to_contain_text("counter/plugin.lua:4")
        expect(failure).to_contain_text("v1 keeps serving")
        expect(page.locator("#plugins li[data-plugin='counter']")).to_contain_text("v1")
        status, _ = self.server.request("POST", "/dispatch/counter.increment", {"by": 1})
        assert status == 204, status
        rows = self.row("[data-item='counter.increment'][data-outcome='applied']")
        expect(rows).to_have_count(2)
        expect(rows.last).to_contain_text("counter v1")
        assert self.server.request("GET", "/state?pointer=/counter")[1] == 3
        failure.click()
        self.shot("05-reload-failed-old-version-serving")

    def fixed_plugin_shows_the_new_version(self):
        page = self.page
        (self.server.plugins / "counter" / "plugin.lua").write_text(FIXED_COUNTER)
        expect(self.row("[data-type='reload'][data-outcome='succeeded']")).to_contain_text("v2", timeout=15000)
        expect(page.locator("#plugins li[data-plugin='counter']")).to_contain_text("v2")
        expect(page.locator("#plugins li[data-plugin='counter'] .error")).to_have_count(0)
        page.select_option("#dispatch-item", "counter.increment")
        page.fill("#dispatch-payload", "")
        page.click("#dispatch-send")
        rows = self.row("[data-item='counter.increment'][data-outcome='applied']")
        expect(rows).to_have_count(3)
        expect(rows.last).to_contain_text("counter v2")
        assert self.server.request("GET", "/state?pointer=/counter")[1] == 13
        rows.last.click()
        page.click("#tab-diff")
        expect(page.locator("#detail-diff")).to_contain_text("counter: 3 → 13")
        page.click("#tab-state")
        self.shot("06-reload-fixed-new-version")

    def jump_in_time_runs_no_side_effect(self):
        page = self.page
        saved = self.server.data / "todos.json"
        saved_before = saved.read_text()
        assert "milk" in saved_before, saved_before
        saves = self.row("[data-item='todo.save']")
        saves_before = saves.count()
        page.click("#journal-refresh")
        # Entry 1: the form's first dispatch, before the todo was added.
        entry = page.locator("#journal li[data-id='1']")
        expect(entry).to_contain_text("counter.increment")
        entry.click()
        expect(page.locator("#detail-title")).to_have_text("Entry 1: counter.increment")
        expect(page.locator("#detail-state")).to_contain_text("counter: 2")
        expect(page.locator("#detail-state")).not_to_contain_text("milk")
        self.shot("07-journal-entry")
        page.click("#jump")
        expect(page.locator("#detail-title")).to_have_text("Current state (jumped to entry 1)")
        expect(page.locator("#detail-state")).to_contain_text("counter: 2")
        expect(page.locator("#detail-state")).not_to_contain_text("milk")
        state = self.server.request("GET", "/state")[1]
        assert state.get("counter") == 2 and not state.get("todos"), state
        # No observer rule saw the jump: the list was not saved again, nothing was dispatched after it.
        page.wait_for_timeout(1000)
        assert saves.count() == saves_before, f"{saves.count()} saves after the jump, {saves_before} before"
        assert saved.read_text() == saved_before, saved.read_text()
        expect(page.locator("#journal li.current")).to_have_count(1)
        expect(self.row("[data-item^='TimeTravelItem']")).to_contain_text("jump to entry 1")
        self.shot("08-jumped")

    def exports_the_log_as_json_and_a_spec(self):
        page = self.page
        with page.expect_download() as download:
            page.click("#export-json")
        events = json.loads(Path(download.value.path()).read_text())
        assert [event.get("item") for event in events if event["type"] == "dispatch"][:2] == ["counter.increment", "todo.add"], events
        page.select_option("#spec-plugin", "todo")
        with page.expect_download() as download:
            page.click("#export-spec")
        spec = Path(download.value.path()).read_text()
        assert download.value.suggested_filename == "todo_recorded_spec.lua", download.value.suggested_filename
        assert 'apply_updater(recorded, "todo.add"' in spec, spec

    def the_keyboard_reaches_everything(self):
        page = self.page
        page.keyboard.press("Escape")
        page.locator("body").click(position={"x": 5, "y": 5})
        page.keyboard.press("/")
        expect(page.locator("#search")).to_be_focused()
        page.keyboard.type("todo.add")
        expect(page.locator("#log > li")).to_have_count(1)
        page.fill("#search", "")
        page.locator("#log").focus()
        page.keyboard.press("Home")
        expect(page.locator("#log > li").first).to_have_attribute("aria-selected", "true")
        expect(page.locator("#detail-title")).to_have_text("counter.increment")
        page.keyboard.press("ArrowDown")
        expect(page.locator("#detail-title")).to_have_text("todo.add")
        page.keyboard.press("Escape")
        expect(page.locator("#detail-title")).to_have_text("Current state")
        # Tab reaches the dispatch form's controls, and Enter in the tree folds a node.
        page.locator("#dispatch-item").focus()
        page.keyboard.press("Tab")
        expect(page.locator("#dispatch-payload")).to_be_focused()
        page.locator("#detail-state summary").first.focus()
        page.keyboard.press("Enter")
        expect(page.locator("#detail-state details").first).not_to_have_attribute("open", "")
        self.shot("09-keyboard")

    def without_the_token_it_is_read_only(self):
        context = self.browser.new_context(viewport={"width": 1400, "height": 900})
        page = context.new_page()
        page.goto(self.server.page_url)
        expect(page.locator("#access-status")).to_have_text("read-only")
        expect(page.locator("#dispatch-form")).to_be_hidden()
        expect(page.locator("#read-only")).to_be_visible()
        expect(page.locator("#journal-section")).to_be_hidden()
        expect(page.locator("#connection")).to_have_text("no live log without the token")
        expect(page.locator("#detail-state")).to_contain_text("counter: 2")
        status, problem = self.server.request("POST", "/journal/1/jump", token=False)
        assert status == 401, (status, problem)
        page.screenshot(path=str(SHOTS / "10-read-only.png"))
        context.close()


if __name__ == "__main__":
    sys.exit(main())

"""The page client outside Chromium: the same MCP scenarios in Debian's Firefox ESR (headless) and in WebKitGTK (a
GTK 4 window under a private Xvfb). No WebDriver or CDP anywhere: the browser is a plain child process opened on one
URL, and from then on the bridge is the only driver. One browser process (one tab) per engine for the module; every
test starts by loading its page again in that tab."""

from __future__ import annotations

import re

from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from e2e.engines import ENGINES, Engine
from tests.support import DevServer, McpSession, ok, text_of, wait_until

#: What each engine's navigator.userAgent must say (and Chromium's must not): proof of which engine answered.
USER_AGENT = {"firefox": ("Gecko/", "Firefox/"), "webkit": ("AppleWebKit/", "Safari/")}


@dataclass
class Tab:
    engine: Engine
    page_id: str
    dev: DevServer
    mcp: McpSession

    def url(self, path: str) -> str:
        """A page of the dev server, marked with this engine's name (so its row is told apart in page_list)."""
        return self.dev.url(f"{path}?e={self.engine.name}")

    def call(self, tool: str, **args: object) -> dict:
        return ok(self.mcp.call(tool, {"pageId": self.page_id, **args}))

    def js(self, code: str) -> object:
        return self.call("page_exec", code=code)["result"]

    def load(self, path: str = "/app.html") -> dict:
        """Load `path` in the tab (fresh state) and wait until its client is back under the same pageId."""
        went = self.call("page_navigate", url=self.url(path))
        assert went["pageId"] == self.page_id and went["url"] == self.url(path), went
        return went

    def row(self, page_id: str | None = None) -> dict | None:
        want = page_id or self.page_id
        return next((r for r in self.mcp.pages() if r["pageId"] == want), None)


def snapshot_ref(tree: str, line: str) -> str:
    """The ref of the first snapshot line that starts with `line` (after its indent)."""
    found = re.search(r"^\s*- " + re.escape(line) + r".*?\[ref=([^\]]+)\]", tree, re.M)
    assert found, (line, tree)
    return found.group(1)


def _live_row(mcp: McpSession, marker: str, engine: Engine) -> dict | None:
    if not engine.alive():
        raise AssertionError(f"{engine.name} exited with {engine.proc.returncode}:\n{engine.log_tail()}")
    rows = [r for r in mcp.pages() if marker in r["url"] and r["parent"] is None]
    return rows[0] if rows and rows[0]["state"] == "live" else None


@pytest.fixture(scope="module", params=sorted(ENGINES))
def tab(request: pytest.FixtureRequest, dev: DevServer, mcp: McpSession) -> Iterator[Tab]:
    """One browser of the engine, opened on app.html, its tab connected and live in page_list."""
    engine = ENGINES[request.param]()
    try:
        engine.start(dev.url(f"/app.html?e={engine.name}"))
        row = wait_until(lambda: _live_row(mcp, f"?e={engine.name}", engine), 60, 0.1,
                         what=f"{engine.name}'s tab live in page_list")
        yield Tab(engine, row["pageId"], dev, mcp)
    finally:
        engine.stop()


def test_the_tab_connects_and_page_list_shows_it(tab):
    row = tab.row()
    assert row["url"] == tab.url("/app.html") and row["title"] == "model app" and row["state"] == "live"
    assert row["channel"] == "ws"  # the WebSocket fast path opens in every engine
    agent = tab.js("navigator.userAgent")
    assert all(word in agent for word in USER_AGENT[tab.engine.name]) and "Chrome/" not in agent, agent
    shot = tab.mcp.call("page_screenshot", {"pageId": tab.page_id})  # needs the Chrome extension
    assert shot.is_error and "[not_available]" in text_of(shot)


def test_snapshot_gives_roles_names_and_refs(tab):
    tab.load()
    snap = tab.call("page_snapshot")
    tree = snap["tree"]
    for line in ('heading "Orders"', 'textbox "Customer"', 'combobox "Size" [value="Small"]',
                 'checkbox "Gift wrap"', 'button "Place order"', 'listitem "Pear"', 'button "Shadow button"'):
        assert line in tree, (line, tree)
    assert "hidden text" not in tree and snap["truncated"] is False and snap["title"] == "model app"


def test_act_fills_selects_checks_clicks_and_presses_enter(tab):
    tab.load()
    ref = {m["name"]: m["ref"] for m in tab.call("page_find", role="textbox")["matches"]}["Customer"]
    tab.call("page_act", actions=[{"action": "fill", "ref": ref, "value": "Ada"},
                                  {"action": "select", "selector": "#size", "value": "Large"},
                                  {"action": "check", "selector": "#gift"}])
    done = tab.call("page_act", action="click", text="Place order")
    assert tab.js("document.getElementById('summary').textContent") == "Ada / l / gift"
    assert any("Ada / l / gift" in line for line in done["changed"]), done["changed"]

    tab.js("window.keys = []; for (const t of ['keydown', 'keyup']) "
           "document.getElementById('who').addEventListener(t, (e) => keys.push(t + ':' + e.key)); 1")
    tab.call("page_act", actions=[{"action": "fill", "ref": ref, "value": "Bo"},
                                  {"action": "press", "ref": ref, "key": "Enter"}])
    assert {"keydown:Enter", "keyup:Enter"} <= set(tab.js("window.keys"))
    assert tab.js("document.getElementById('summary').textContent") == "Bo / l / gift"  # Enter submitted the form

    tab.call("page_act", action="click", ref=snapshot_ref(tab.call("page_snapshot")["tree"], 'button "Shadow button"'))
    assert tab.js("document.querySelector('x-card').shadowRoot.getElementById('shadow-out').textContent") == \
        "shadow clicked"


def test_keys_and_typing_send_the_same_events_in_every_engine(tab):
    tab.load()
    tab.js("""window.log = []; const w = document.getElementById('who');
        for (const t of ['keydown', 'keypress', 'keyup', 'beforeinput', 'input', 'change'])
          w.addEventListener(t, (e) => log.push(e instanceof KeyboardEvent
            ? [t, e.key, e.code, e.keyCode, e.which, e.charCode].join(' ')
            : e instanceof InputEvent ? [t, e.inputType, e.data].join(' ') : t));
        1""")
    tab.call("page_act", action="type", selector="#who", value="aB")
    tab.call("page_act", action="press", selector="#who", key="Enter")
    assert tab.js("window.log") == [
        "keydown a KeyA 65 65 0", "keypress a KeyA 97 97 97", "beforeinput insertText a", "input insertText a",
        "keyup a KeyA 65 65 0",
        "keydown B KeyB 66 66 0", "keypress B KeyB 66 66 66", "beforeinput insertText B", "input insertText B",
        "keyup B KeyB 66 66 0",
        "keydown Enter Enter 13 13 0", "keypress Enter Enter 13 13 13", "change", "keyup Enter Enter 13 13 0",
    ]
    assert tab.js("document.getElementById('summary').textContent") == "aB / s"  # Enter submitted the form
    tab.call("page_act", action="click", text="Shadow button")  # a text target inside an open shadow root
    assert tab.js("document.querySelector('x-card').shadowRoot.getElementById('shadow-out').textContent") == \
        "shadow clicked"


def test_wait_sees_async_content_and_times_out_when_it_never_comes(tab):
    tab.load()
    tab.call("page_act", action="click", text="Load more")
    assert tab.call("page_wait", text="Quince", timeout=5)["met"] is True
    tab.call("page_act", action="click", text="Delete all")
    fut = tab.mcp.start("page_wait", {"pageId": tab.page_id, "selector": "dialog[open]", "state": "hidden",
                                      "timeout": 5})
    tab.call("page_act", action="click", text="Yes, delete")
    assert not fut.result(10).is_error
    late = tab.mcp.call("page_wait", {"pageId": tab.page_id, "text": "never there", "timeout": 0.5})
    assert late.is_error and "[wait_timeout]" in text_of(late)


def test_navigate_goes_to_a_page_and_back_under_the_same_page_id(tab):
    tab.load()
    went = tab.call("page_navigate", url="/single.html")
    assert went["pageId"] == tab.page_id and went["reloaded"] and went["title"] == "single page"
    assert went["url"] == tab.dev.url("/single.html")
    back = tab.call("page_navigate", action="back")
    assert back["pageId"] == tab.page_id and back["url"] == tab.url("/app.html") and back["title"] == "model app"
    assert tab.js("document.getElementById('status').textContent") == "ready"
    hashed = tab.call("page_navigate", url="#about")
    assert hashed["reloaded"] is False and hashed["url"].endswith("/app.html?e=" + tab.engine.name + "#about")


def test_navigate_to_a_server_slower_than_the_leave_grace_answers_with_the_new_document(tab):
    tab.load()
    # held back 3.5 s by the server: Firefox drops the old document's channel as the navigation starts, and the old
    # document reconnects after its 3 s grace; it must not pass for the new one
    went = tab.call("page_navigate", url="/single.html?slow=3500")
    assert went["reloaded"] and went["title"] == "single page" and went["url"] == tab.dev.url("/single.html?slow=3500")


def test_console_reports_logs_errors_and_rejections_with_stacks(tab):
    tab.load()
    # the page's own code (an inline script), not code compiled by page_exec: see docs/browsers.md on Firefox
    tab.js("""(() => {
        const s = document.createElement('script');
        s.textContent = `console.log('hello', {a: 1});
            console.error('boom');
            setTimeout(() => { throw new TypeError('late failure'); });
            Promise.reject(new Error('nobody caught me'));`;
        document.head.appendChild(s);
        return 1;
    })()""")
    wanted = ("boom", "Uncaught TypeError: late failure", "Unhandled rejection: Error: nobody caught me")

    def all_arrived():
        out = tab.call("page_console", level="error", stack=True)
        texts = [e["text"] for e in out["entries"]]
        return out if all(w in texts for w in wanted) else None

    errors = wait_until(all_arrived, 10, what="errors in page_console")
    by_text = {e["text"]: e for e in errors["entries"]}
    assert all(by_text[w].get("stack") for w in wanted), errors
    texts = [e["text"] for e in tab.call("page_console")["entries"]]
    assert 'hello {"a":1}' in texts
    assert tab.call("page_console", since=errors["cursor"], level="error")["entries"] == []


def test_network_lists_fetch_and_xhr_with_status_and_failures(tab):
    tab.load()
    tab.js("""(async () => {
        await fetch('/single.html').then(r => r.text());
        await fetch('/missing.json');
        await new Promise((done) => { const x = new XMLHttpRequest(); x.open('GET', '/plain.html');
                                      x.onloadend = done; x.send(); });
        return 1;
    })()""")
    rows = tab.call("page_network")["requests"]
    seen = {(r["kind"], r["url"].rsplit("/", 1)[1], r["status"]) for r in rows}
    assert {("fetch", "single.html", 200), ("fetch", "missing.json", 404), ("xhr", "plain.html", 200)} <= seen, rows
    assert not any("/bridge/" in r["url"] for r in rows)  # the client's own traffic is left out
    failed = tab.call("page_network", failedOnly=True)["requests"]
    assert [r["url"].rsplit("/", 1)[1] for r in failed] == ["missing.json"]
    detail = tab.call("page_network", id=[r for r in rows if r["url"].endswith("/single.html")][0]["id"])
    assert "text/html" in detail["request"]["responseHeaders"]["content-type"]


def test_reload_keeps_the_page_id_and_the_console(tab):
    tab.load()
    tab.js("console.warn('before reload'); window.mark = 'old'; 1")
    again = tab.call("page_navigate", action="reload")
    assert again["pageId"] == tab.page_id and again["reloaded"] and again["url"] == tab.url("/app.html")
    assert tab.js("window.mark === undefined") is True
    texts = [e["text"] for e in tab.call("page_console")["entries"]]
    assert "before reload" in texts and "--- page reloaded or navigated ---" in texts
    # a reload the page does by itself (not through the bridge) comes back under the same id too
    tab.js("window.mark = 'again'; setTimeout(() => location.reload(), 50); 1")
    wait_until(lambda: tab.js("window.mark === undefined && document.readyState === 'complete'"), 15,
               0.1, what="the page to reload by itself")
    assert tab.row()["state"] == "live"


def test_a_navigation_that_goes_nowhere_leaves_the_page_connected(tab):
    tab.load()
    tab.js("window.mark = 'stayed'; 1")
    # 204 No Content: the document stays. Firefox drops the channel anyway when the navigation starts; the client
    # waits for a pagehide that never comes, then reconnects by itself (docs/browsers.md)
    went = tab.call("page_navigate", url="/204", timeout=5)  # no new document comes: it answers at the timeout
    assert went["pageId"] == tab.page_id and went["url"] == tab.url("/app.html") and went["title"] == "model app"
    assert went["reloaded"] is False and "went nowhere" in went["note"]
    assert tab.js("window.mark") == "stayed"
    assert tab.row()["state"] == "live"


def test_an_iframe_shows_as_a_frame_of_the_tab_and_answers(tab):
    tab.load("/framed.html")
    frames = wait_until(lambda: [r for r in tab.mcp.pages()
                                 if r["parent"] == tab.page_id and r["title"] == "model app"], 15, 0.1,
                        what="the iframe listed as a frame")
    frame = frames[0]
    assert frame["pageId"].startswith(tab.page_id.split("/")[0] + "/f") and frame["crossOrigin"] is False
    assert frame["url"] == tab.dev.url("/app.html")
    snap = ok(tab.mcp.call("page_snapshot", {"pageId": frame["pageId"]}))
    assert 'button "Place order"' in snap["tree"]
    ok(tab.mcp.call("page_act", {"pageId": frame["pageId"], "action": "click",
                                 "ref": snapshot_ref(snap["tree"], 'button "Shadow button"')}))
    inner = ok(tab.mcp.call("page_exec", {"pageId": frame["pageId"],
                                          "code": "document.querySelector('x-card').shadowRoot.textContent"}))
    assert inner["result"].endswith("shadow clicked")
    host = tab.call("page_snapshot", includeFrames=True)["tree"]
    assert "[frame=f" in host and 'button "Place order" [ref=f' in host


def test_the_sse_channel_carries_calls_and_navigations_too(tab):
    went = tab.call("page_navigate", url=tab.url("/app.html") + "&channel=sse")
    assert went["pageId"] == tab.page_id and went["title"] == "model app"
    assert wait_until(lambda: (r := tab.row()) and r["state"] == "live" and r["channel"], 10, 0.05,
                      what="the SSE channel") == "sse"
    tab.call("page_act", action="click", text="Load more")
    assert tab.call("page_wait", text="Quince", timeout=5)["met"] is True
    again = tab.call("page_navigate", action="reload")
    assert again["pageId"] == tab.page_id and again["url"].endswith("&channel=sse")
    assert tab.js("document.getElementById('status').textContent") == "ready"
    tab.load()  # back on the WebSocket for whatever runs next
    assert wait_until(lambda: tab.row()["channel"], 10, 0.05, what="the WebSocket") == "ws"


def test_an_act_names_the_error_it_caused_at_the_line_written_in_every_engines_stack_format(tab):
    """Gecko and WebKit write frames as `fn@url:line:col`: the act's answer still says `fn (file:line:col)`."""
    from e2e.test_debugging import PLAIN, written

    tab.load("/errors.html")
    out = tab.call("page_act", action="click", selector="#log")
    assert out["errors"] == [f"Error: logged on purpose at logIt (errors.js:{written(PLAIN, '@logged')[0]}:"
                             + out["errors"][0].rsplit(":", 1)[1]], out
    # a rejection is reported when the engine says it was not handled: Firefox may say so after the act's answer
    tab.call("page_act", action="click", selector="#reject")
    entry = wait_until(lambda: next((e for e in tab.call("page_console", level="error")["entries"]
                                     if "rejected on purpose" in e["text"]), None), 10, 0.1, "the rejection")
    assert entry["at"].startswith(f"rejectLater (errors.js:{written(PLAIN, '@reject')[0]}:"), entry

"""Debugging an app on its dev server, on real Vite 8 and Vite 7 dev servers (e2e/frameworks/react-vite8 and react, HMR on) in real
Chromium through MCP: network idle with Vite's HMR socket open, a fetch-starting click that answers settled at
once, and the loop edit the file -> page_wait update -> act -> check, with a syntax error reported at its line."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from e2e.frameworks.vite import ViteApp

from tests.support import CONNECTED, ok, text_of, wait_until

APP = "src/App.jsx"
SYNC = """      <button id="sync" onClick={async () => { const r = await fetch('/vite.svg?' + Date.now()); setLate('synced ' + r.status) }}>Sync</button>
"""


@pytest.fixture(scope="module", params=["react-vite8", "react"])
def vite(request, bridge, tmp_path_factory) -> Iterator[ViteApp]:
    """Vite 8 (Rolldown: errors carry their position in the message) and Vite 7 (esbuild: in `loc`)."""
    server = ViteApp(request.param, tmp_path_factory.mktemp("devserver"), bridge.client_js()).start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def app(vite, context):
    """The app in a fresh tab, rendered, connected and hooked to Vite's client (page_list shows `updates`)."""
    page = context.new_page()
    page.goto(vite.url())
    page.wait_for_function(CONNECTED + " && !!document.getElementById('counter')", timeout=20000)
    page.page_id = page.evaluate("window.__dbg.pageId")
    yield page
    page.close()


def row(mcp, page_id: str) -> dict:
    """The page's page_list row, once the client said it hooked Vite's client (bounded)."""
    return wait_until(lambda: next((r for r in mcp.pages() if r["pageId"] == page_id and "updates" in r), None), 10,
                      0.1, f"{page_id}'s row to count Vite's updates")


def edit(vite: ViteApp, old: str, new: str) -> str:
    """Replace `old` by `new` in the app file (it must be there); returns the original text."""
    original = vite.file(APP).read_text()
    assert old in original
    vite.write(APP, original.replace(old, new, 1))
    return original


def test_an_idle_vite_page_with_its_hmr_socket_open_is_network_idle_within_a_second(app, mcp):
    sockets = ok(mcp.call("page_network", {"pageId": app.page_id, "devServer": True}))["requests"]
    assert any(r["kind"] == "websocket" and r.get("open") for r in sockets), sockets  # Vite's HMR socket is up
    started = time.monotonic()
    out = ok(mcp.call("page_wait", {"pageId": app.page_id, "networkIdle": True, "timeout": 8}))
    assert out["met"] is True and time.monotonic() - started < 1.0, out


def test_edit_then_wait_for_the_update_then_click_a_fetch_that_answers_settled_at_once(vite, app, mcp):
    before = row(mcp, app.page_id)
    assert before["generation"] >= 1 and before["updates"] >= 0, before
    original = edit(vite, '      <button id="later"', SYNC + '      <button id="later"')
    try:
        waited = ok(mcp.call("page_wait", {"pageId": app.page_id, "update": before["updates"],
                                           "timeout": 20}))
        assert waited["met"] is True and waited["value"]["updates"] == before["updates"] + 1, waited
        assert waited["value"]["reloaded"] is False, waited
        assert waited["pageId"] == app.page_id and waited["generation"] == before["generation"]  # no reload
        assert waited["updates"] == before["updates"] + 1 and waited["updatedAt"] > 0
        started = time.monotonic()
        clicked = ok(mcp.call("page_act", {"pageId": app.page_id, "action": "click", "selector": "#sync"}))
        took = time.monotonic() - started
        assert clicked["requests"]["settled"] is True and clicked["requests"]["started"] >= 1, clicked
        assert any("synced 200" in line for line in clicked["changed"]), clicked
        assert took < 1.0, (took, clicked)
        after = row(mcp, app.page_id)
        assert (after["generation"], after["updates"]) == (before["generation"], before["updates"] + 1)
    finally:
        fixed_update(vite, mcp, app, original, before["updates"] + 1)


def test_a_syntax_error_in_the_edited_file_answers_the_wait_with_its_file_and_line(vite, app, mcp):
    before = row(mcp, app.page_id)
    marker = "  const [late, setLate] = useState(null)\n"
    original = vite.file(APP).read_text()
    line = original[:original.index(marker)].count("\n") + 2  # the broken line comes right after the marker
    edit(vite, marker, marker + "  const broken = (;\n")
    try:
        failed = mcp.call("page_wait", {"pageId": app.page_id, "update": before["updates"],
                                        "timeout": 20})
        text = text_of(failed)
        assert failed.is_error and text.startswith("[update_failed]"), text
        assert f"src/App.jsx:{line}:" in text, (line, text)
        listed = row(mcp, app.page_id)
        assert f"src/App.jsx:{line}:" in listed["updateError"], listed
        cursor = listed["updates"]
    finally:
        vite.write(APP, original)
    # the fix: Vite reloads a page that shows its error overlay (a new generation), or applies it in place
    fixed = fixed_update(vite, mcp, app, original, cursor)
    assert fixed["met"] is True and fixed["pageId"] == app.page_id, fixed
    assert "updateError" not in row(mcp, app.page_id), fixed
    ok(mcp.call("page_wait", {"pageId": app.page_id, "selector": "#counter", "timeout": 20}))


def fixed_update(vite: ViteApp, mcp, app, original: str, updates: int) -> dict:
    """Wait for the update the restored file makes. Vite's file watcher can miss a write that follows the previous
    one shortly after (e2e/test_frameworks.py restore): write it once more if none came."""
    for wait_s in (5, 15):
        vite.write(APP, original)
        out = mcp.call("page_wait", {"pageId": app.page_id, "update": updates, "timeout": wait_s})
        if not out.is_error or not text_of(out).startswith("[wait_timeout]"):
            return ok(out)
    raise AssertionError("no update came for the restored file")


def test_a_reload_counts_as_an_update_and_a_new_generation_under_the_same_page_id(app, mcp):
    before = row(mcp, app.page_id)
    app.reload()  # the human's reload (or Vite's full reload): the tab's next document
    waited = ok(mcp.call("page_wait", {"pageId": app.page_id, "update": before["updates"], "timeout": 20}))
    assert waited["value"] == {**waited["value"], "reloaded": True, "updates": before["updates"] + 1}, waited
    assert waited["pageId"] == app.page_id and waited["generation"] == before["generation"] + 1, waited

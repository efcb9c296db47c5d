"""Trusted input and screenshots through the bridge's own desktop: a real `dbg-bridge serve` with a private desktop
(Xvfb + openbox), Chromium opened on it by desktop_open_url, Material Web's md-dialog (npm, e2e/apps) in that window.
What synthetic events cannot do (Escape as the browser's close request, double-click word selection) page_act does
with XTest input into the window, mapped from the element's box; page_screenshot cuts real pixels from the desktop
without the extension. The baseline is Playwright's real keyboard and mouse on a fresh headless page."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp.types import Implementation

from e2e.corpus import APPS, CorpusServer
from tests.desktop.conftest import png_pixels
from tests.support import CHROMIUM, BridgeProcess, Bridges, McpSession, ok, text_of, wait_until

PAGE = "material-web/index.html"
PAGES = Path(__file__).resolve().parent / "pages"


@pytest.fixture(scope="module")
def desktop_bridge(module_bridge_process: Bridges) -> BridgeProcess:
    return module_bridge_process(name="acting-desktop", env={
        "DBG_DESKTOP_ENABLED": "1", "DBG_DESKTOP_ALLOW": CHROMIUM, "DBG_DESKTOP_BROWSER": CHROMIUM,
        "DBG_DESKTOP_SIZE": "1280x800"})


@pytest.fixture(scope="module")
def client(desktop_bridge: BridgeProcess) -> Iterator[McpSession]:
    session = McpSession(desktop_bridge.mcp_url, desktop_bridge.token)
    yield session
    session.close()


@pytest.fixture(scope="module")
def on_desktop(desktop_bridge: BridgeProcess, client: McpSession) -> Iterator[tuple[str, CorpusServer]]:
    """The Material Web page in a Chromium window on the private desktop: (its pageId, the corpus server)."""
    assert (APPS / "material-web" / "node_modules").is_dir(), "run ./scripts/test.sh (npm ci in e2e/apps/material-web)"
    server = CorpusServer(desktop_bridge.client_js())
    url = server.url(PAGE)
    ok(client.call("desktop_open_url", {"url": url}))

    def connected() -> str | None:
        rows = ok(client.call("page_list"))["pages"]
        return next((r["pageId"] for r in rows if r.get("url") == url and r["pageId"].endswith("/host")), None)

    page_id = wait_until(connected, 30, 0.2, what="the desktop's Chromium tab to connect")
    wait_until(lambda: ok(client.call("page_exec", {"pageId": page_id, "code": "!!customElements.get('md-dialog')"}))
               ["result"], 15, what="Material Web to define md-dialog")
    yield page_id, server
    server.close()


def js(client: McpSession, page_id: str, code: str) -> Any:
    return ok(client.call("page_exec", {"pageId": page_id, "code": code}))["result"]


def test_escape_closes_a_native_dialog_through_real_x_input_when_synthetic_keys_cannot(on_desktop, client, browser):
    page_id, server = on_desktop
    act = lambda **kw: ok(client.call("page_act", {"pageId": page_id, **kw}))  # noqa: E731
    act(action="click", text="Delete pet", exact=True)
    wait_until(lambda: js(client, page_id, "window.opened === 1"), 10, what="the dialog to open")
    got = act(action="press", text="Doggie will be gone for good.", key="Escape")  # trusted: auto
    assert got["done"][0]["input"] == "desktop" and "effect" not in got["done"][0], got
    assert "X input" in got["trusted"]
    assert js(client, page_id, "closedWith") == [""]  # the app saw its dialog closed by the close request
    assert js(client, page_id, "document.getElementById('status').textContent") == "Kept doggie (dismissed)."

    baseline = browser.new_page()
    baseline.goto(server.url(PAGE))
    baseline.wait_for_function("!!customElements.get('md-dialog')")
    baseline.click("#open")
    baseline.wait_for_function("document.getElementById('confirm').open")
    baseline.keyboard.press("Escape")
    baseline.wait_for_function("!document.getElementById('confirm').open")
    assert baseline.evaluate("closedWith") == js(client, page_id, "closedWith")
    baseline.close()


def test_double_click_selects_a_word_through_the_desktop_at_the_elements_place(on_desktop, client, browser):
    page_id, server = on_desktop
    js(client, page_id, "getSelection().removeAllRanges()")
    got = ok(client.call("page_act", {"pageId": page_id, "action": "dblclick", "selector": "#pet"}))
    assert got["done"][0]["input"] == "desktop", got  # synthetic dblclick selected nothing; the real one did
    assert js(client, page_id, "String(getSelection()).trim()") == "Doggie"

    baseline = browser.new_page()
    baseline.goto(server.url(PAGE))
    baseline.dblclick("#pet")
    assert baseline.evaluate("String(getSelection()).trim()") == "Doggie"
    baseline.close()


def test_page_screenshot_without_the_extension_cuts_the_tab_from_the_desktop(on_desktop, client):
    page_id, _ = on_desktop
    whole = client.call("page_screenshot", {"pageId": page_id})
    shot = ok(whole)
    assert shot["via"] == "desktop", shot
    width, height, _ = png_pixels(base64.b64decode(whole.content[0].data))
    vp = js(client, page_id, "[innerWidth, innerHeight, devicePixelRatio]")
    assert (width, height) == (round(vp[0] * vp[2]), round(vp[1] * vp[2]))
    # one element: Material's filled button is its primary colour (#6750A4) edge to edge, text aside
    button = client.call("page_screenshot", {"pageId": page_id, "selector": "#open"})
    w, h, rows = png_pixels(base64.b64decode(button.content[0].data))
    box = js(client, page_id, "(r => [r.width, r.height])(document.getElementById('open').getBoundingClientRect())")
    assert abs(w - box[0]) <= 1 and abs(h - box[1]) <= 1
    channels = len(rows) // (w * h)
    pixels = [tuple(rows[i:i + 3]) for i in range(0, len(rows), channels)]
    purple = sum(1 for p in pixels if abs(p[0] - 0x67) < 24 and abs(p[1] - 0x50) < 24 and abs(p[2] - 0xA4) < 24)
    assert purple > len(pixels) // 2, f"{purple} of {len(pixels)} pixels are the button's colour"


def test_handlers_that_believe_only_real_input_get_it_through_the_desktop(desktop_bridge, on_desktop, client,
                                                                          browser):
    """Last in this module (its tab comes to the front of the desktop's browser): e2e/pages/trusted.html, whose
    click counter and name field take only isTrusted events (a script's value is put back)."""
    pages = CorpusServer(desktop_bridge.client_js(), root=PAGES)
    try:
        url = pages.url("trusted.html")
        ok(client.call("desktop_open_url", {"url": url}))
        page_id = wait_until(lambda: next((r["pageId"] for r in ok(client.call("page_list"))["pages"]
                                           if r.get("url") == url and r["pageId"].endswith("/host")), None),
                             30, 0.2, what="the trusted page's tab to connect")
        # the field puts a script's value back, so the synthetic typing changed nothing: auto sends real keys
        typed = ok(client.call("page_act", {"pageId": page_id, "action": "type", "selector": "#name", "value": "Ada"}))
        assert typed["done"][0]["input"] == "desktop", typed
        # the counter's page says it saw a click (its other line changes), so auto cannot tell a synthetic click
        # failed: trusted: true sends the real one
        clicked = ok(client.call("page_act", {"pageId": page_id, "action": "click", "selector": "#real",
                                              "trusted": True}))
        assert clicked["done"][0]["input"] == "desktop", clicked
        agent = js(client, page_id, "[document.getElementById('real').textContent, "
                                    "document.getElementById('typed').textContent]")
        assert agent == ["Real clicks: 1", "typed: Ada"], agent

        baseline = browser.new_page()
        baseline.goto(pages.url("trusted.html"))
        baseline.click("#real")
        baseline.click("#name")
        baseline.keyboard.type("Ada")
        assert baseline.evaluate("[document.getElementById('real').textContent, "
                                 "document.getElementById('typed').textContent]") == agent
        baseline.close()
    finally:
        pages.close()


def test_the_bridges_own_x_input_aimed_at_a_question_card_is_refused(desktop_bridge, on_desktop, client):
    """The desktop route: page_act's real X input (trusted: auto, after its synthetic click changed nothing) lands
    on a card of the bridge's panel in the desktop's Chromium. The page sees a trusted click, but the bridge was
    sending it: the answer is refused, audited, and the card comes back for the human."""
    page_id, _ = on_desktop
    call = client.start("user_ask", {"pageId": page_id, "question": "Deploy to production?", "kind": "confirm",
                                     "wait": 30})
    wait_until(lambda: js(client, page_id, "!!document.querySelector('dbg-human') && !!document.querySelector("
                                           "'dbg-human').shadowRoot.querySelector('[data-question] button')"),
               10, what="the card in the desktop's page")
    res = client.call("page_act", {"pageId": page_id, "action": "click",
                                   "selector": "dbg-human >>> [data-question] button[data-answer=true]"})
    refused = wait_until(lambda: [r for r in desktop_bridge.audit() if r.get("code") == "bridge_input"], 10,
                         what="the bridge to refuse the answer its own X click caused")
    assert refused[-1]["why"].startswith("the bridge was sending input"), refused
    done = ok(res)["done"][0]
    assert done["input"] == "desktop" and done["effect"] == "none", done  # X input, and it changed nothing
    assert not call.done()
    wait_until(lambda: js(client, page_id, "!!document.querySelector('dbg-human').shadowRoot.querySelector("
                                           "'[data-question] button[data-answer=true]')"), 10,
               what="the card back for the human")
    assert not call.done()
    client.call("user_notify", {"pageId": page_id, "message": "done"})  # the bridge and the page are fine


@pytest.mark.parametrize("mode", ["native", "fallback"])
def test_a_real_drag_through_the_desktop_reorders_a_sortable_list(desktop_bridge, client, mode):
    """trusted: true drag: a real press, moves and release through XTest into the window (Chromium's own HTML5 drag
    and drop in the native list, pointer moves in the fallback one), read from SortableJS's own order."""
    assert (APPS / "sortablejs" / "node_modules").is_dir(), "run ./scripts/test.sh (npm ci in e2e/apps/sortablejs)"
    server = CorpusServer(desktop_bridge.client_js())
    try:
        url = server.url(f"sortablejs/index.html?{mode}")
        ok(client.call("desktop_open_url", {"url": url}))
        page_id = wait_until(lambda: next((r["pageId"] for r in ok(client.call("page_list"))["pages"]
                                           if r.get("url") == url and r["pageId"].endswith("/host")), None),
                             30, 0.2, what="the sortable page's tab to connect")
        wait_until(lambda: js(client, page_id, "!!window.lists"), 15, what="Sortable to load")
        got = ok(client.call("page_act", {"pageId": page_id, "action": "drag", "trusted": True,
                                          "selector": f"#{mode} li[data-id=apples]",
                                          "to": f"#{mode} li[data-id=dates]"}))
        assert got["done"][0]["input"] == "desktop" and "effect" not in got["done"][0], got
        order = js(client, page_id, f"order('{mode}')")
        assert order != "apples,bread,cheese,dates,eggs" and not order.startswith("apples"), order
        assert js(client, page_id, "moves")[0].startswith(f"{mode}: 0 -> "), js(client, page_id, "moves")
    finally:
        server.close()


def test_page_open_opens_a_tab_of_the_agents_own_on_the_desktop_and_keeps_other_agents_out(desktop_bridge, on_desktop,
                                                                                          client):
    """page_open from a tab whose client came by script tag, with the desktop on: a new Chromium on the private
    desktop at the same page, connected by its own script tag, answered as the opener's own tab; another MCP client
    is refused there at once and the opener acts; desktop_quit_app closes it by the pid the answer gave."""
    page_id, server = on_desktop
    out = ok(client.call("page_open", {"pageId": page_id, "timeout": 40}))
    assert out["route"] == "desktop" and out["own"] is True and out["pageId"] != page_id, out
    assert out["url"] == server.url(PAGE) and isinstance(out["pid"], int)
    windows = ok(client.call("desktop_list_apps"))["launched"]
    assert any(a["pid"] == out["pid"] and a["running"] for a in windows), windows
    other = McpSession(desktop_bridge.mcp_url, desktop_bridge.token,
                       client_info=Implementation(name="other-agent", version="1"))
    try:
        busy = other.call("page_exec", {"pageId": out["pageId"], "code": "1"})
        assert busy.is_error and text_of(busy).startswith("[page_busy]") and "own tab" in text_of(busy), text_of(busy)
        assert not other.call("page_exec", {"pageId": page_id, "code": "1"}).is_error  # the first tab is free
    finally:
        other.close()
    assert js(client, out["pageId"], "location.href") == server.url(PAGE)
    quit_ = ok(client.call("desktop_quit_app", {"pid": out["pid"]}))
    assert quit_["exited"] is True, quit_

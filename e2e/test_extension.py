"""The Chrome extension (plugins/extension) in Debian's Chromium, new headless: a site enabled in its popup gets the
bridge's client without any script tag (attach 'extension'), page_screenshot returns real PNGs of the tab taken
with chrome.tabs.captureVisibleTab, whole or cropped to one element, and page_act with trusted: true sends real input
(isTrusted=true) through chrome.debugger."""

from __future__ import annotations

import base64
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest

from e2e.test_command_models import check
from mcp.types import Implementation

from tests.support import CHROMIUM, CHROMIUM_ARGS, CONNECTED, McpSession, ok, text_of, wait_until

EXTENSION = Path(__file__).resolve().parents[1] / "plugins" / "extension"
SCALE = 2  # a real devicePixelRatio of 2, so crops must multiply CSS px by it
RED, GREEN = (255, 0, 0), (0, 160, 0)


def read_png(data: bytes, rows_wanted: int | None = None) -> tuple[int, int, list[bytes], int]:
    """A tiny PNG reader (8-bit RGB/RGBA, no interlace): width, height, the first unfiltered rows (all, or
    `rows_wanted`), bytes per pixel."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour, interlace)
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw, stride, rows, prev = zlib.decompress(idat), width * bpp, [], bytes(width * bpp)
    for y in range(height if rows_wanted is None else min(height, rows_wanted)):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return width, height, rows, bpp


def shot(result) -> tuple[int, int, tuple[int, int, int], dict]:
    """Width, height and centre pixel of a page_screenshot answer, checked against its summary."""
    assert not result.is_error, text_of(result)
    image = next(c for c in result.content if c.type == "image")
    assert image.mime_type == "image/png"
    png = base64.b64decode(image.data)
    height = struct.unpack(">I", png[20:24])[0]
    width, height, rows, bpp = read_png(png, height // 2 + 1)
    summary = result.structured_content
    assert (summary["width"], summary["height"]) == (width, height)
    x = (width // 2) * bpp
    return width, height, tuple(rows[height // 2][x:x + 3]), summary


@pytest.fixture(scope="module")
def chrome(browser, tmp_path_factory) -> Iterator[object]:
    """A persistent Chromium profile with the unpacked extension loaded (headless: new headless runs extensions)."""
    ctx = browser.browser_type.launch_persistent_context(
        str(tmp_path_factory.mktemp("chrome-profile")), executable_path=CHROMIUM, headless=True, no_viewport=True,
        args=[*CHROMIUM_ARGS, f"--disable-extensions-except={EXTENSION}", f"--load-extension={EXTENSION}",
              f"--force-device-scale-factor={SCALE}", "--window-size=640,480"])
    try:
        ctx.worker = ctx.service_workers[0] if ctx.service_workers else ctx.wait_for_event("serviceworker", timeout=10000)
        ctx.ext_id = ctx.worker.url.split("/")[2]
        yield ctx
    finally:
        ctx.close()


def tab_id(chrome, url: str) -> int:
    return chrome.worker.evaluate("async (u) => (await chrome.tabs.query({})).find((t) => t.url === u).id", url)


@pytest.fixture(scope="module")
def site(chrome, dev, bridge):
    """bare.html (no script tag) in a tab, its origin enabled through the extension's popup; `.popup` is the popup
    opened as a tab for that tab, `.page_id` the page's pageId."""
    page = chrome.pages[0] if chrome.pages else chrome.new_page()
    page.goto(dev.url("/bare.html"))
    assert page.evaluate("typeof window.__dbg") == "undefined"
    popup = chrome.new_page()
    popup.goto(f"chrome-extension://{chrome.ext_id}/popup.html?tab={tab_id(chrome, page.url)}")
    popup.wait_for_selector("#origin:text-matches('^http')", timeout=5000)  # selectors: the popup's CSP forbids eval
    assert popup.text_content("#origin") == dev.url("").rstrip("/")
    assert popup.get_attribute("#state", "data-state") == "disabled"
    popup.fill("#bridge", bridge.base)
    popup.click("#bridge-form button")
    popup.wait_for_selector("#bridge-note:text-matches('^Saved')", timeout=5000)
    popup.check("#enabled")  # registers the content script for this origin and reloads the tab
    page.wait_for_function(CONNECTED, timeout=15000)
    page.page_id = page.evaluate("window.__dbg.pageId")
    page.popup = popup
    return page


def test_an_enabled_site_without_a_script_tag_gets_the_client_attached_by_the_extension(site, mcp):
    row = next(r for r in mcp.pages() if r["pageId"] == site.page_id)
    assert row["attach"] == "extension" and row["url"].endswith("/bare.html")
    out = ok(mcp.call("page_exec", {"pageId": site.page_id, "code": "[document.title, document.scripts.length]"}))
    assert out["result"] == ["bare page", 0]  # the client's tag is gone after loading: the nonce is not left in the DOM


def test_the_popup_shows_the_tab_connected_under_its_page_id(site):
    site.popup.wait_for_selector("#state[data-state=connected]", timeout=5000)
    assert f"Connected as {site.page_id}" in site.popup.text_content("#state")
    assert site.popup.is_checked("#enabled")


def test_page_screenshot_is_a_png_of_the_visible_tab_at_device_pixels(site, mcp):
    site.bring_to_front()
    width, height, centre, summary = shot(mcp.call("page_screenshot", {"pageId": site.page_id}))
    inner = site.evaluate("[innerWidth, innerHeight, devicePixelRatio]")
    assert inner[2] == SCALE and summary["scale"] == SCALE
    assert (width, height) == (inner[0] * SCALE, inner[1] * SCALE)
    assert centre == RED  # the page's full-viewport red block, not a blank image
    raw = ok(mcp.call("page_exec", {"pageId": site.page_id, "command": "screenshot"}))["result"]
    check("screenshot", raw)  # the command's own answer, as its result model names it
    assert base64.b64decode(raw["data"]).startswith(b"\x89PNG")


def test_an_element_screenshot_is_that_element_times_device_pixel_ratio(site, mcp):
    site.bring_to_front()
    width, height, centre, _ = shot(mcp.call("page_screenshot", {"pageId": site.page_id, "selector": "#badge"}))
    assert (width, height, centre) == (120 * SCALE, 50 * SCALE, GREEN)
    ref = ok(mcp.call("page_find", {"pageId": site.page_id, "selector": "#badge"}))["matches"][0]["ref"]
    assert shot(mcp.call("page_screenshot", {"pageId": site.page_id, "ref": ref}))[:3] == (120 * SCALE, 50 * SCALE, GREEN)


def test_an_element_in_a_same_origin_frame_is_cropped_at_its_place_in_the_tab(site, dev, mcp):
    site.goto(dev.url("/bare-framed.html"))
    site.wait_for_function(CONNECTED + " && window.__dbg.status().frames.some((f) => f.ready)", timeout=15000)
    site.bring_to_front()
    try:
        frame = site.evaluate("window.__dbg.status().frames[0].frameId")
        page_id = site.page_id.replace("/host", "/" + frame)
        width, height, centre, summary = shot(mcp.call("page_screenshot", {"pageId": page_id, "selector": "#badge"}))
        assert (width, height, centre) == (120 * SCALE, 50 * SCALE, GREEN)
        assert summary["box"] == {"x": 50 + 5 + 40, "y": 80 + 5 + 60, "width": 120, "height": 50}
    finally:
        site.goto(dev.url("/bare.html"))
        site.wait_for_function(CONNECTED, timeout=15000)


def test_a_tab_that_is_not_in_front_cannot_be_captured_and_the_error_says_so(site, mcp):
    site.popup.bring_to_front()
    res = mcp.call("page_screenshot", {"pageId": site.page_id})
    assert res.is_error and "[not_visible]" in text_of(res) and "front" in text_of(res)


def test_a_site_that_is_not_enabled_does_not_get_the_client(site, chrome, dev, mcp):
    other = chrome.new_page()
    try:
        other.goto(dev.url("/bare.html", host="localhost"))  # same server, another origin: not enabled
        same = chrome.new_page()
        same.goto(dev.url("/bare.html"))  # the enabled origin in a new tab: attached (the extension did run)
        same.wait_for_function(CONNECTED, timeout=15000)
        same.close()
        assert other.evaluate("typeof window.__dbg") == "undefined"
        assert not any(r["origin"] == f"http://localhost:{dev.port}" for r in mcp.pages())
    finally:
        other.close()


@pytest.fixture
def trusted_page(site, chrome, dev):
    """e2e/pages/trusted.html (counts only isTrusted clicks, ignores synthetic input) in a new tab of the enabled
    origin, attached by the extension; `.page_id` is set."""
    page = chrome.new_page()
    page.goto(dev.url("/trusted.html"))
    page.wait_for_function(CONNECTED, timeout=15000)
    page.page_id = page.evaluate("window.__dbg.pageId")
    try:
        yield page
    finally:
        page.close()


def text_by_id(page, el_id: str) -> str:
    return page.evaluate("(id) => document.getElementById(id).textContent", el_id)


def test_a_synthetic_click_is_not_counted_by_a_page_that_checks_is_trusted_and_the_answer_says_so(trusted_page, mcp):
    out = ok(mcp.call("page_act", {"pageId": trusted_page.page_id, "action": "click", "selector": "#real"}))
    assert "trusted" not in out["done"][0] and "trusted" not in out  # synthesized (the note says so once a session)
    assert text_by_id(trusted_page, "seen") == "seen 1 click(s), last isTrusted=false"
    assert text_by_id(trusted_page, "real") == "Real clicks: 0"


def test_a_trusted_click_goes_through_the_extension_and_the_page_counts_it(trusted_page, mcp):
    out = ok(mcp.call("page_act", {"pageId": trusted_page.page_id, "action": "click", "text": "Real clicks",
                                   "trusted": True}))
    assert out["done"][0]["trusted"] is True and "untrusted" not in out
    assert any('button "Real clicks: 1"' in line for line in out["changed"]), out["changed"]
    assert text_by_id(trusted_page, "seen") == "seen 1 click(s), last isTrusted=true"


def test_trusted_typing_fills_an_input_that_puts_back_synthetic_input(trusted_page, mcp):
    pid = trusted_page.page_id
    bot = ok(mcp.call("page_act", {"pageId": pid, "action": "type", "selector": "#name", "value": "bot",
                                   "trusted": False}))
    assert trusted_page.evaluate("document.getElementById('name').value") == ""  # put back: not real input
    assert bot["effect"] == "none" and bot["done"][0]["value"] == "", bot  # and the answer says nothing happened
    # trusted: auto (the default): synthetic typing changed nothing, so the same typing went through the extension
    auto = ok(mcp.call("page_act", {"pageId": pid, "action": "type", "selector": "#name", "value": "Ada L."}))
    assert auto["done"][0]["input"] == "extension" and auto["done"][0]["value"] == "Ada L.", auto
    assert trusted_page.evaluate("document.getElementById('name').value") == "Ada L."
    assert text_by_id(trusted_page, "typed") == "typed: Ada L."
    # fill replaces the value, press sends a real key (a batch can mix trusted and synthetic actions)
    out = ok(mcp.call("page_act", {"pageId": pid, "trusted": True, "actions": [
        {"action": "fill", "selector": "#name", "value": "Grace"},
        {"action": "press", "selector": "#name", "key": "Backspace"},
        {"action": "click", "selector": "#real", "trusted": False},
    ]}))
    assert [d.get("trusted", False) for d in out["done"]] == [True, True, False]  # which input each action was
    assert trusted_page.evaluate("document.getElementById('name').value") == "Grac"
    assert text_by_id(trusted_page, "typed") == "typed: Grac"
    assert text_by_id(trusted_page, "real") == "Real clicks: 0"


def test_a_trusted_click_on_a_covered_button_fails_naming_what_a_real_click_would_hit(trusted_page, mcp):
    res = mcp.call("page_act", {"pageId": trusted_page.page_id, "action": "click", "selector": "#under",
                                "trusted": True, "timeout": 3})
    # the actionability check names it before any input is sent (waiting up to the act's timeout for it to clear)
    assert res.is_error and "[obscured]" in text_of(res) and "by div#cover" in text_of(res), text_of(res)


def test_trusted_input_without_the_extension_is_not_available_and_says_how_to_get_it(app, mcp):
    res = mcp.call("page_act", {"pageId": app.page_id, "action": "click", "text": "Load more", "trusted": True})
    assert res.is_error and "[not_available]" in text_of(res), text_of(res)
    assert "plugins/extension" in text_of(res) and "isTrusted=false" in text_of(res)
    assert app.evaluate("document.querySelectorAll('#items li').length") == 3  # nothing was clicked


def test_the_bridges_own_trusted_input_aimed_at_a_card_is_refused_and_a_persons_click_answers_it(trusted_page, mcp):
    """The extension's debugger input is the bridge's, not the human's: an agent's trusted click on a question card
    is refused before it is sent; the card stays open; Playwright's real mouse (a person's hand) answers it."""
    pid = trusted_page.page_id
    call = mcp.start("user_ask", {"pageId": pid, "question": "Deploy to production?", "kind": "confirm", "wait": 30})
    card = trusted_page.locator("dbg-human [data-question]")
    card.wait_for(timeout=10000)
    for target in ({"selector": "dbg-human >>> button[data-answer=true]"}, {"text": "Yes"}):
        res = mcp.call("page_act", {"pageId": pid, "action": "click", "trusted": True, **target})
        assert text_of(res).startswith("[human_only]") and "on the dbg-bridge panel" in text_of(res), text_of(res)
    assert not call.done() and card.count() == 1
    # a person's click. One that lands in the moment right after the bridge's own input is not taken (neither the
    # extension nor the bridge can tell it from that input): the card stays, or comes back, for the next click.
    button = card.locator("button[data-answer=false]")

    def person_clicks() -> bool:
        if button.count():
            button.click(timeout=2000)
        return call.done()

    wait_until(person_clicks, 15, interval=0.1, what="a person's click to answer the card")
    assert ok(call.result(20))["answer"] is False


def test_a_drag_that_only_real_pointer_input_moves_goes_through_the_extension(site, chrome, dev, mcp):
    """e2e/pages/trusted_drag.html: a slider that follows only isTrusted pointer events. The synthetic drag moves
    nothing, so trusted: auto sends a real press, moves and release through chrome.debugger; an HTML5 draggable is
    refused for real input here (the desktop route's) and says so."""
    page = chrome.new_page()
    page.goto(dev.url("/trusted_drag.html"))
    page.wait_for_function(CONNECTED, timeout=15000)
    pid = page.evaluate("window.__dbg.pageId")
    try:
        out = ok(mcp.call("page_act", {"pageId": pid, "action": "drag", "selector": "#thumb", "dx": 200, "dy": 0}))
        assert out["done"][0]["input"] == "extension" and "effect" not in out["done"][0], out
        value = int(page.evaluate("document.getElementById('thumb').getAttribute('aria-valuenow')"))
        assert 40 <= value <= 70, value  # 200 px along a 370 px track
        assert any("Volume" in line for line in out["changed"]), out
        card = mcp.call("page_act", {"pageId": pid, "action": "drag", "selector": "#card", "dx": 0, "dy": 60,
                                     "trusted": True})
        assert card.is_error and "[not_available]" in text_of(card) and "desktop" in text_of(card), text_of(card)
    finally:
        page.close()


def test_an_agent_opens_a_tab_of_its_own_through_the_extension_and_another_agent_is_kept_out_of_it(site, chrome,
                                                                                                  bridge):
    """page_open from the extension's tab: a new window of the same origin in the human's browser (the human's tab
    untouched), its client attached by the extension, answered as the opener's own tab; the opener acts there, a
    second MCP client is refused at once naming the owner, and still acts in the human's tab."""
    editor = McpSession(bridge.mcp_url, bridge.token, client_info=Implementation(name="editor-agent", version="1"))
    terminal = McpSession(bridge.mcp_url, bridge.token, client_info=Implementation(name="terminal-agent", version="1"))
    try:
        out = ok(editor.call("page_open", {"pageId": site.page_id, "url": "/bare.html?agent=editor"}))
        assert out["route"] == "extension" and out["own"] is True and out["pageId"] != site.page_id, out
        assert tab_id(chrome, out["url"])  # a real tab of the browser, as the extension sees it
        # ... and as Playwright sees it (its sync API takes in the new page's event on its next call)
        mine = wait_until(lambda: site.evaluate("0") == 0 and next((p for p in chrome.pages if p.url == out["url"]),
                                                                   None), what="the new window in Playwright")
        assert mine.evaluate("window.__dbg.pageId") == out["pageId"]
        assert site.url.endswith("/bare.html")  # the human's tab stayed where it was
        acted = ok(editor.call("page_exec", {"pageId": out["pageId"],
                                             "code": "document.getElementById('who').textContent = 'editor'"}))
        assert acted["result"] == "editor" and mine.text_content("#who") == "editor"
        busy = terminal.call("page_exec", {"pageId": out["pageId"], "code": "1"})
        assert busy.is_error and text_of(busy).startswith(
            f"[page_busy] Tab {out['pageId'].split('/')[0]} is another agent's own tab: 'editor-agent 1'"), text_of(busy)
        assert not terminal.call("page_exec", {"pageId": site.page_id, "code": "1"}).is_error
        # the page's own answer to the `open` command, against its result model
        raw = site.evaluate("(u) => window.__dbg.commands.open({url: u}, {role: 'host', frameId: 'host'})",
                            site.url + "?raw")
        assert isinstance(check("open", raw).windowId, int)
        other = editor.call("page_open", {"pageId": site.page_id, "url": "https://example.com/"})
        assert other.is_error and text_of(other).startswith("[bad_arguments] page_open opens tabs of the page's own "
                                                            "origin"), text_of(other)
        mine.close()
    finally:
        editor.close()
        terminal.close()

"""Acting like a person on pages nobody here wrote (e2e/apps, from npm, pinned): CodeMirror 6 on Chromium's
EditContext, Material Web's md-dialog (a native <dialog> closed by the browser's close request), Bootstrap 5's modal
(which ignores a click while it is still opening). Each task is done by MCP tools only, then again with Playwright's
real mouse and keyboard on a fresh page as the baseline, and both are read from the app's own state."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from e2e.corpus import APPS, CorpusServer
from tests.support import ok, open_page, text_of

PAGES = Path(__file__).resolve().parent / "pages"
DOC = "function add(a, b) {\n  return a + b;\n}\n"


@pytest.fixture(scope="module")
def corpus(bridge) -> Iterator[CorpusServer]:
    for app in ("codemirror", "material-web", "bootstrap"):
        assert (APPS / app / "node_modules").is_dir(), f"run ./scripts/test.sh (npm ci in e2e/apps/{app})"
    server = CorpusServer(bridge.client_js())
    yield server
    server.close()


def slow_api(path: str) -> Any:
    """A backend that answers after a while (server-side, so the page's load and its requests take that long)."""
    if path.startswith("/api/slow-2s"):
        time.sleep(2)  # a subresource that holds the document's parse (a script) or its load event (an image)
        return {}
    if path.startswith("/api/slow-frame"):
        time.sleep(0.4)
        return {"frame": True}
    if path.startswith("/api/slow-save"):
        time.sleep(0.3)
        fields = [kv for kv in path.split("?", 1)[1].split("&") if kv.split("=", 1)[1]]
        return {"fields": len(fields), "name": dict(kv.split("=", 1) for kv in fields).get("name", "")}
    return None


@pytest.fixture(scope="module")
def own_pages(bridge) -> Iterator[CorpusServer]:
    server = CorpusServer(bridge.client_js(), root=PAGES, api=slow_api)
    yield server
    server.close()


def act(mcp: Any, page: Any, **kw: Any) -> dict[str, Any]:
    return ok(mcp.call("page_act", {"pageId": page.page_id, **kw}))


# ---- CodeMirror 6 on EditContext: typing, Control+End, Control+z ------------------------------------------------

def test_codemirror_on_edit_context_takes_typing_at_the_end_and_undo_like_a_person(corpus, context, mcp):
    page = open_page(context, corpus.url("codemirror/index.html"))
    page.wait_for_function("window.cm")
    assert page.evaluate("window.cmUsesEditContext") is True  # Chromium's EditContext, not contenteditable
    act(mcp, page, action="press", selector=".cm-content", key="Control+End")
    typed = act(mcp, page, action="type", selector=".cm-content", value="console.log(add(1, 2));")
    agent_doc = page.evaluate("cm.state.doc.toString()")
    assert agent_doc == DOC + "console.log(add(1, 2));"
    assert typed["done"][0]["value"].endswith("console.log(add(1, 2));")  # what the editor holds now
    assert "effect" not in typed
    undone = act(mcp, page, action="press", selector=".cm-content", key="Control+z")
    assert page.evaluate("cm.state.doc.toString()") == DOC
    assert undone["changed"], undone  # the line went away

    baseline = context.new_page()
    baseline.goto(corpus.url("codemirror/index.html"))
    baseline.wait_for_function("window.cm")
    baseline.click(".cm-content")
    baseline.keyboard.press("Control+End")
    baseline.keyboard.type("console.log(add(1, 2));")
    assert baseline.evaluate("cm.state.doc.toString()") == agent_doc
    baseline.keyboard.press("Control+z")
    assert baseline.evaluate("cm.state.doc.toString()") == DOC


def test_fill_replaces_an_edit_context_editors_whole_text(corpus, context, mcp):
    page = open_page(context, corpus.url("codemirror/index.html"))
    page.wait_for_function("window.cm")
    filled = act(mcp, page, action="fill", selector=".cm-editor", value="const x = 1;")  # the wrapper: retargeted
    assert page.evaluate("cm.state.doc.toString()") == "const x = 1;"
    assert filled["done"][0]["value"] == "const x = 1;"


# ---- Material Web md-dialog: Escape is a close request ------------------------------------------------------------

def test_escape_on_a_native_dialog_says_synthetic_input_cannot_close_it_here(corpus, context, mcp):
    page = open_page(context, corpus.url("material-web/index.html"))
    page.wait_for_function("!!customElements.get('md-dialog')")
    act(mcp, page, action="click", text="Delete pet", exact=True)
    page.wait_for_function("window.opened === 1")  # its opening animation's changes are not the key's
    got = act(mcp, page, action="press", text="Doggie will be gone for good.", key="Escape")
    assert got["effect"] == "none", got
    why = got["done"][0]["why"]
    assert "close request" in why and "extension" in why and "desktop_open_url" in why, why
    assert page.evaluate("document.getElementById('confirm').open") is True  # the app agrees: still open
    act(mcp, page, action="click", text="Cancel", exact=True)
    page.wait_for_function("!document.getElementById('confirm').open")
    assert page.evaluate("closedWith") == ["cancel"]

    baseline = context.new_page()
    baseline.goto(corpus.url("material-web/index.html"))
    baseline.wait_for_function("!!customElements.get('md-dialog')")
    baseline.click("#open")
    baseline.wait_for_function("document.getElementById('confirm').open")
    baseline.keyboard.press("Escape")  # a real key: the browser's close request closes it
    baseline.wait_for_function("!document.getElementById('confirm').open")
    assert baseline.evaluate("closedWith") == [""]


# ---- Bootstrap 5: actionability against a modal's transitions -----------------------------------------------------

def bootstrap(context: Any, corpus: CorpusServer) -> Any:
    page = open_page(context, corpus.url("bootstrap/index.html"))
    page.wait_for_function("!!window.bootstrap")
    return page


def test_a_click_waits_until_the_opening_modal_is_stable_so_bootstrap_takes_it(corpus, context, mcp):
    page = bootstrap(context, corpus)
    # forced, the Save click lands while the modal is still sliding in: Bootstrap ignores it, and the answer says so
    forced = act(mcp, page, actions=[{"action": "click", "text": "Add pet", "exact": True},
                                     {"action": "fill", "selector": "#pet-name", "value": "Rex"},
                                     {"action": "click", "selector": "#save", "force": True}])
    assert forced["done"][2]["effect"] == "none", forced
    assert page.evaluate("[window.saved, document.getElementById('add').classList.contains('show')]") == [[], True]
    act(mcp, page, action="click", text="Cancel", exact=True)
    page.wait_for_function("!document.getElementById('add').classList.contains('show') && !document.querySelector('.modal-backdrop')")
    # checked: the same batch waits for the Save button to stop moving, and the app saves
    got = act(mcp, page, actions=[{"action": "click", "text": "Add pet", "exact": True},
                                  {"action": "fill", "selector": "#pet-name", "value": "Rex"},
                                  {"action": "click", "selector": "#save"}])
    assert "effect" not in got["done"][2], got
    page.wait_for_function("window.saved.length === 1")
    assert page.evaluate("window.saved") == ["Rex"]

    baseline = bootstrap(context, corpus)
    baseline.click("text=Add pet")
    baseline.fill("#pet-name", "Rex")
    baseline.click("#save")  # Playwright waits for stable too
    baseline.wait_for_function("window.saved.length === 1")
    assert baseline.evaluate("window.saved") == page.evaluate("window.saved")


def test_failed_checks_are_named_errors_saying_what_was_seen(corpus, context, mcp):
    page = bootstrap(context, corpus)
    disabled = mcp.call("page_act", {"pageId": page.page_id, "action": "click", "text": "Delete all", "timeout": 3})
    assert disabled.is_error and text_of(disabled).startswith("[not_enabled]"), text_of(disabled)
    moving = mcp.call("page_act", {"pageId": page.page_id, "action": "click", "text": "New arrivals", "timeout": 3})
    assert moving.is_error and text_of(moving).startswith("[not_stable]"), text_of(moving)
    act(mcp, page, action="click", text="Add pet", exact=True)
    page.wait_for_function("document.getElementById('add').classList.contains('show')")
    covered = mcp.call("page_act", {"pageId": page.page_id, "action": "click", "text": "Add pet", "exact": True,
                                    "timeout": 3})
    assert covered.is_error and text_of(covered).startswith("[obscured]"), text_of(covered)
    assert "by div#add" in text_of(covered)  # the modal's own layer over the page
    forced = act(mcp, page, action="click", text="Add pet", exact=True, force=True)  # force skips the checks
    assert forced["done"][0]["action"] == "click"


def test_scroll_moves_the_nearest_scrolling_container_as_a_wheel_does_and_says_when_it_cannot(corpus, context, mcp):
    page = bootstrap(context, corpus)
    got = act(mcp, page, action="scroll", text="Adoption 2", exact=True, value="200")
    scrolled = got["done"][0]["scrolled"]
    assert scrolled["element"].startswith("div#log") and scrolled["dy"] > 0, got
    assert page.evaluate("document.getElementById('log').scrollTop") == scrolled["dy"]
    assert page.evaluate("scrollY") == 0  # the page did not move
    act(mcp, page, action="scroll", text="Adoption 2", exact=True, value="-5000")
    stuck = act(mcp, page, action="scroll", text="Adoption 2", exact=True, value="-100")
    assert stuck["effect"] == "none" and stuck["done"][0]["scrolled"]["dy"] == 0, stuck

    baseline = bootstrap(context, corpus)
    box = baseline.get_by_text("Adoption 2", exact=True).bounding_box()
    baseline.mouse.move(box["x"] + 5, box["y"] + 5)
    baseline.mouse.wheel(0, 200)
    baseline.wait_for_function("document.getElementById('log').scrollTop > 0")
    assert baseline.evaluate("scrollY") == 0  # a real wheel scrolls the same container, not the page


# ---- navigation waits for load and a quiet DOM; answers worth their characters ---------------------------------

def test_navigate_answers_after_load_so_an_onload_list_is_there(own_pages, context, mcp):
    page = open_page(context, own_pages.url("acting.html"))
    went = ok(mcp.call("page_navigate", {"pageId": page.page_id, "action": "reload"}))
    assert went["reloaded"] and went["waited"].startswith("load"), went
    found = ok(mcp.call("page_find", {"pageId": page.page_id, "text": "Polly"}))
    assert found["total"] == 1  # rendered by window.onload, after the slow frame
    assert page.evaluate("document.readyState") == "complete"


def test_navigate_waits_for_what_wait_until_names(own_pages, context, mcp):
    page = open_page(context, own_pages.url("plain.html"))

    def went_to(name: str, until: str) -> tuple[dict[str, Any], str]:
        went = ok(mcp.call("page_navigate", {"pageId": page.page_id, "url": own_pages.url(name), "waitUntil": until}))
        state = ok(mcp.call("page_exec", {"pageId": page.page_id, "code": "return document.readyState"}))["result"]
        return went, state

    went, state = went_to("slow-image.html", "domcontentloaded")
    assert went["waited"].startswith("domcontentloaded") and state == "interactive", (went, state)  # image pending
    went, state = went_to("slow-image.html", "load")
    assert went["waited"].startswith("load") and state == "complete", (went, state)
    went, state = went_to("slow-script.html", "commit")
    assert went["waited"].startswith("commit") and state == "loading", (went, state)  # the parser waits for a script
    assert page.evaluate("document.getElementById('after')") is None


def test_each_failed_check_is_named_with_what_was_seen(own_pages, context, mcp):
    page = open_page(context, own_pages.url("checks.html"))

    def refused(**kw: Any) -> str:
        got = mcp.call("page_act", {"pageId": page.page_id, "timeout": 3, **kw})
        assert got.is_error, got
        return text_of(got)

    hidden = refused(action="click", selector="#hidden")
    assert hidden.startswith("[not_visible]") and "visibility: hidden" in hidden, hidden
    assert refused(action="type", selector="#ro", value="x").startswith("[not_editable]")
    assert "read-only" in refused(action="fill", selector="#ro", value="x")
    plain = refused(action="type", selector="#plain", value="x")
    assert plain.startswith("[not_editable]") and "<div> is not a text field" in plain, plain
    assert page.evaluate("document.getElementById('ro').value") == "fixed"
    # an element that is removed while the act waits for it to show (a re-render): named at once, not at the timeout
    ok(mcp.call("page_exec", {"pageId": page.page_id,
                              "code": "setTimeout(() => document.getElementById('gone').remove(), 1000); return 1"}))
    started = time.monotonic()
    gone = text_of(mcp.call("page_act", {"pageId": page.page_id, "action": "click", "selector": "#gone", "timeout": 15}))
    assert gone.startswith("[not_attached]") and "page_snapshot" in gone, gone
    assert time.monotonic() - started < 10


def test_a_batch_of_fills_answers_a_short_line_each_and_a_submit_waits_for_its_request(own_pages, context, mcp):
    page = open_page(context, own_pages.url("acting.html"))
    fields = {"name": "Rex", "email": "rex@example.org", "phone": "555-0100", "city": "Ghent", "note": "Likes walks"}
    got = act(mcp, page, actions=[{"action": "fill", "selector": f"[name={k}]", "value": v} for k, v in fields.items()])
    assert [d["value"] for d in got["done"]] == list(fields.values())
    assert got["changed"] == [], got  # each field said once, in its done line
    sent = act(mcp, page, action="click", text="Send", exact=True)
    assert sent["requests"]["started"] == 1 and sent["requests"]["settled"], sent
    assert any("Saved 5 fields for Rex" in line for line in sent["changed"]), sent  # the answer has the result
    assert any("Adopt another" in line for line in sent["changed"]), sent  # and what appeared because of it


# ---- AG Grid (the reading corpus' virtualised grid): a scroll over a cell moves the grid, as a wheel does ----------

def test_scroll_over_a_virtualised_grid_cell_scrolls_the_grid_like_a_wheel(corpus, context, mcp):
    assert (APPS / "ag-grid" / "node_modules").is_dir(), "run ./scripts/test.sh (npm ci in e2e/apps/ag-grid)"
    page = open_page(context, corpus.url("ag-grid/index.html"))
    page.wait_for_function("window.gridApi && document.querySelector('.ag-row')")
    got = act(mcp, page, action="scroll", text="Model 2", exact=True, value="600")
    assert "effect" not in got and got["done"][0]["scrolled"]["dy"] > 0, got
    agent_first = page.evaluate("gridApi.getFirstDisplayedRowIndex()")
    assert agent_first > 2  # the grid's own state: rows further down are the ones it renders now (10 kept above)
    assert got["done"][0]["scrolled"]["element"].startswith("div.ag-body-viewport")

    baseline = context.new_page()
    baseline.goto(corpus.url("ag-grid/index.html"))
    baseline.wait_for_function("window.gridApi && document.querySelector('.ag-row')")
    box = baseline.get_by_text("Model 2", exact=True).bounding_box()
    baseline.mouse.move(box["x"] + 5, box["y"] + 5)
    baseline.mouse.wheel(0, 600)
    baseline.wait_for_function("gridApi.getFirstDisplayedRowIndex() > 2")
    assert baseline.evaluate("gridApi.getFirstDisplayedRowIndex()") == agent_first  # the same rows as a real wheel


def test_an_act_answers_once_what_it_caused_has_rendered(own_pages, context, mcp):
    """e2e/pages/lazy.html: the header flips at once and the panel renders 40 ms later (a debounce): the click
    answers once the DOM is still, so its `changed` has the panel and a find right after it sees it."""
    page = open_page(context, own_pages.url("lazy.html"))
    for _ in range(3):
        opened = act(mcp, page, action="click", text="Order 1042")
        assert any("Reorder" in line for line in opened["changed"]), opened
        assert ok(mcp.call("page_find", {"pageId": page.page_id, "text": "Two leashes"}))["total"] == 1
        closed = act(mcp, page, action="click", text="Order 1042")
        assert any(line.startswith("- ") and "Reorder" in line for line in closed["changed"]), closed


def test_a_double_click_is_two_press_release_clicks_then_dblclick_as_a_persons(own_pages, context, mcp):
    page = open_page(context, own_pages.url("clicks.html"))
    act(mcp, page, action="dblclick", selector="#cell", trusted=False)
    agent = page.evaluate("seen")
    assert agent == ["mousedown:1", "mouseup:1", "click:1", "mousedown:2", "mouseup:2", "click:2", "dblclick:2"], agent

    baseline = context.new_page()
    baseline.goto(own_pages.url("clicks.html"))
    baseline.dblclick("#cell")
    assert baseline.evaluate("seen") == agent


def test_hits_across_shadow_roots_reach_a_slotted_label_and_name_a_veil_in_a_hosts_shadow(own_pages, context, mcp):
    """e2e/pages/shadow_hits.html: the inner <button> of a custom element is clicked through its slotted label (the
    document's hit there is the custom element); a light-DOM button under its host's own shadow veil is obscured."""
    page = open_page(context, own_pages.url("shadow_hits.html"))
    page.wait_for_function("!!customElements.get('x-veiled')")
    assert page.evaluate("(() => { const b = document.getElementById('pay').shadowRoot.querySelector('button');"
                         " const r = b.getBoundingClientRect();"
                         " return document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2).id; })()") == "pay"
    act(mcp, page, action="click", selector="#pay >>> button")
    assert page.evaluate("document.getElementById('log').textContent") == "paid"
    veiled = mcp.call("page_act", {"pageId": page.page_id, "action": "click", "selector": "#under", "timeout": 3})
    assert veiled.is_error and text_of(veiled).startswith("[obscured]") and "div.veil" in text_of(veiled), text_of(veiled)

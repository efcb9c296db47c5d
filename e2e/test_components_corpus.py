"""Acting on the component web, on apps nobody here wrote (e2e/apps, from npm, pinned): a Shoelace button (a custom
element whose <button> is in its shadow root with the label slotted in), a SortableJS list in its HTML5 drag-and-drop
mode and in its pointer fallback mode, a Jspreadsheet CE sheet (a selected cell takes typed keys; a double-click opens
its editor), a Leaflet map (a focus stop with controls inside; panned by drag and by arrow keys). Each task is done by
MCP tools only, then with Playwright's real mouse and keyboard on a fresh page as the baseline, and both are read from
the app's own state."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest

from e2e.corpus import APPS, CorpusServer
from tests.support import McpSession, ok, open_page, text_of

APPS_USED = ("shoelace", "sortablejs", "jspreadsheet", "leaflet")


@pytest.fixture(scope="module")
def corpus(bridge) -> Iterator[CorpusServer]:
    for app in APPS_USED:
        assert (APPS / app / "node_modules").is_dir(), f"run ./scripts/test.sh (npm ci in e2e/apps/{app})"
    server = CorpusServer(bridge.client_js())
    yield server
    server.close()


def act(mcp: McpSession, page: Any, **kw: Any) -> dict[str, Any]:
    return ok(mcp.call("page_act", {"pageId": page.page_id, **kw}))


def ref_of(mcp: McpSession, page: Any, line: str, detailed: bool = False) -> str:
    """The ref on the lean (or detailed) snapshot's line that matches `line` (a regex)."""
    tree = ok(mcp.call("page_snapshot", {"pageId": page.page_id, **({"detailed": True} if detailed else {})}))["tree"]
    for row in tree.splitlines():
        if re.search(line, row):
            found = re.search(r"\[ref=(e\d+(?:@[a-z]{2})?)\]", row)
            assert found, row
            return found.group(1)
    raise AssertionError(f"no line matches {line!r} in:\n{tree}")


def fresh(context: Any, corpus: CorpusServer, path: str, ready: str) -> Any:
    """The baseline's page: the same app, no agent."""
    page = context.new_page()
    page.goto(corpus.url(path))
    page.wait_for_function(ready)
    return page


# ---- Shoelace: a custom element's button, its label slotted in --------------------------------------------------

SHOELACE = ("shoelace/index.html", "window.ready === true")


def test_a_custom_element_button_is_clicked_through_its_slotted_label_at_once(corpus, context, mcp):
    page = open_page(context, corpus.url(SHOELACE[0]))
    page.wait_for_function(SHOELACE[1])
    ref = ref_of(mcp, page, r'button "Review order"')
    t0 = time.monotonic()
    clicked = act(mcp, page, action="click", ref=ref)
    took = time.monotonic() - t0
    assert "effect" not in clicked, clicked
    assert took < 3, f"the click waited {took:.1f} s"  # no wait on its own host as a cover
    agent = page.evaluate("[window.reviews, document.getElementById('status').textContent]")
    assert agent == [1, "Reviewing the order for Ada Lovelace."], agent
    # the point the click aims at is over the slotted label: the document's hit there is the custom element itself
    assert page.evaluate("""(() => { const b = document.getElementById('review').shadowRoot.querySelector('button');
        const r = b.getBoundingClientRect(); return document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2).id; })()""") == "review"

    baseline = fresh(context, corpus, *SHOELACE)
    baseline.get_by_role("button", name="Review order").click()
    assert baseline.evaluate("[window.reviews, document.getElementById('status').textContent]") == agent


# ---- SortableJS: HTML5 drag and drop, and its pointer fallback ----------------------------------------------------

SORTABLE = ("sortablejs/index.html", "!!window.lists")


@pytest.mark.parametrize("mode", ["native", "fallback"])
def test_a_sortable_list_item_is_dragged_onto_another_and_the_list_reorders(corpus, context, mcp, mode):
    page = open_page(context, corpus.url(SORTABLE[0]))
    page.wait_for_function(SORTABLE[1])
    before = page.evaluate(f"order('{mode}')")
    assert before == "apples,bread,cheese,dates,eggs"
    tree = ok(mcp.call("page_snapshot", {"pageId": page.page_id}))["tree"]
    items = re.findall(r'listitem "(\w+)" \[ref=(e\d+)\]', tree)
    half = items[:5] if mode == "native" else items[5:]
    refs = dict(half)
    dragged = act(mcp, page, action="drag", ref=refs["Apples"], to=refs["Dates"])
    agent = page.evaluate(f"order('{mode}')")
    assert agent != before, dragged
    assert "effect" not in dragged, dragged
    assert dragged["done"][0]["drag"] == ("html5" if mode == "native" else "pointer"), dragged
    assert page.evaluate("moves") == [f"{mode}: 0 -> 3"], page.evaluate("moves")
    assert dragged["done"][0]["place"] == "4 of 5 (was 1)", dragged  # the list reorders without a changed line

    baseline = fresh(context, corpus, *SORTABLE)
    if mode == "native":  # Chromium's own drag and drop, started by Playwright's mouse
        baseline.drag_and_drop(f"#{mode} li[data-id=apples]", f"#{mode} li[data-id=dates]")
    else:  # the fallback follows pointer moves: a hand's several, not one jump
        src = baseline.locator(f"#{mode} li[data-id=apples]").bounding_box()
        dst = baseline.locator(f"#{mode} li[data-id=dates]").bounding_box()
        baseline.mouse.move(src["x"] + src["width"] / 2, src["y"] + src["height"] / 2)
        baseline.mouse.down()
        baseline.mouse.move(dst["x"] + dst["width"] / 2, dst["y"] + dst["height"] / 2, steps=10)
        # Sortable samples the pointer every 50 ms in this mode: a hand rests on the spot until the item is there
        baseline.wait_for_function("document.querySelector('#fallback li[data-id=apples]').previousElementSibling"
                                   ".dataset.id === 'dates'")
        baseline.mouse.up()
    assert baseline.evaluate(f"order('{mode}')") == agent
    assert baseline.evaluate("moves") == [f"{mode}: 0 -> 3"]


def test_a_drag_that_moves_nothing_says_so_with_what_to_try(corpus, context, mcp):
    page = open_page(context, corpus.url(SORTABLE[0]))
    page.wait_for_function(SORTABLE[1])
    # a heading is no list item: Sortable ignores a drag from it, and nothing moves
    got = act(mcp, page, action="drag", text="Native drag and drop", dx=0, dy=120)
    assert got["effect"] == "none", got
    why = got["done"][0]["why"]
    assert "moved nothing" in why and "desktop" in why, why
    assert page.evaluate("order('native')") == "apples,bread,cheese,dates,eggs"


# ---- Jspreadsheet CE: typing into a selected cell, a double-click opening its editor ------------------------------

SHEET = ("jspreadsheet/index.html", "!!(window.sheets && window.sheets[0] && window.sheets[0].getValue)")


def test_a_selected_spreadsheet_cell_takes_typing_and_a_double_click_edits_the_right_cell(corpus, context, mcp):
    page = open_page(context, corpus.url(SHEET[0]))
    page.wait_for_function(SHEET[1])
    tree = ok(mcp.call("page_snapshot", {"pageId": page.page_id}))["tree"]
    empty = re.search(r'row: 4 \[ref=e\d+\] \| "" \[ref=(e\d+)\]', tree)
    assert empty, tree
    typed = act(mcp, page, action="type", ref=empty.group(1), value="Groceries")
    assert "effect" not in typed, typed
    assert typed["done"][0]["value"] == "Groceries", typed  # the grid's own editor holds it
    assert "clicked" in typed["done"][0], typed
    act(mcp, page, action="press", ref=empty.group(1), key="Enter")
    food = ref_of(mcp, page, r"row: 2 .*\| 300 \[ref=")
    amount = re.search(r"300 \[ref=(e\d+)\]", ok(mcp.call("page_snapshot", {"pageId": page.page_id}))["tree"]).group(1)
    assert food
    opened = act(mcp, page, action="dblclick", ref=amount)
    assert "effect" not in opened, opened
    assert page.evaluate("!!document.querySelector('.editor input, .jss_worksheet input, td.editor input')"), "no editor"
    act(mcp, page, action="type", ref=amount, value="5")
    act(mcp, page, action="press", ref=amount, key="Enter")
    agent = page.evaluate("[cell('A4'), cell('B2'), cell('A2')]")
    assert agent[0] == "Groceries" and str(agent[1]) == "3005" and agent[2] == "Food", agent

    baseline = fresh(context, corpus, *SHEET)
    baseline.click("td[data-x='0'][data-y='3']")
    baseline.keyboard.type("Groceries")
    baseline.keyboard.press("Enter")
    baseline.dblclick("td[data-x='1'][data-y='1']")
    baseline.keyboard.press("End")
    baseline.keyboard.type("5")
    baseline.keyboard.press("Enter")
    assert baseline.evaluate("[cell('A4'), cell('B2'), cell('A2')]") == agent


def test_typing_into_what_takes_no_keys_is_refused_at_once(corpus, context, mcp):
    page = open_page(context, corpus.url(SORTABLE[0]))
    page.wait_for_function(SORTABLE[1])
    t0 = time.monotonic()
    got = mcp.call("page_act", {"pageId": page.page_id, "action": "type", "selector": "section + section h2", "value": "x"})
    took = time.monotonic() - t0
    assert got.is_error and text_of(got).startswith("[not_editable]"), text_of(got)
    assert "focused nothing and changed nothing" in text_of(got)
    assert took < 0.8, f"refused after {took:.2f} s"
    t0 = time.monotonic()
    filled = mcp.call("page_act", {"pageId": page.page_id, "action": "fill", "selector": "section + section h2", "value": "x"})
    assert filled.is_error and text_of(filled).startswith("["), text_of(filled)
    assert time.monotonic() - t0 < 0.8


# ---- Leaflet: a map panned by drag and by arrow keys through its ref ----------------------------------------------

MAP = ("leaflet/index.html", "!!window.map")
CENTRE = "[map.getCenter().lat, map.getCenter().lng]"


def test_a_map_is_panned_by_drag_and_by_arrow_keys_through_its_ref(corpus, context, mcp):
    page = open_page(context, corpus.url(MAP[0]))
    page.wait_for_function(MAP[1])
    ref = ref_of(mcp, page, r'clickable "Map of the meeting place"')
    assert ref_of(mcp, page, r'clickable "Map of the meeting place"', detailed=True)  # the detailed snapshot too
    start = page.evaluate(CENTRE)
    dragged = act(mcp, page, action="drag", ref=ref, dx=-200, dy=0)
    assert "effect" not in dragged, dragged
    page.wait_for_function("!map._panAnim || !map._panAnim._inProgress")
    after_drag = page.evaluate(CENTRE)
    assert after_drag[1] > start[1] + 0.001, (start, after_drag)  # dragged left: the view went east
    pressed = act(mcp, page, action="press", ref=ref, key="ArrowDown")
    assert "effect" not in pressed, pressed
    assert page.evaluate(f"map.getCenter().lat < {after_drag[0]} - 0.001")  # the pan's animation ended before the answer
    assert any(line.startswith("+ paragraph: Centre:") for line in pressed["changed"]), pressed  # where it went

    baseline = fresh(context, corpus, *MAP)
    baseline.bring_to_front()  # a real key goes to the window in front
    box = baseline.locator("#map").bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    b_start = baseline.evaluate(CENTRE)
    baseline.mouse.move(x, y)
    baseline.mouse.down()
    baseline.mouse.move(x - 200, y, steps=10)
    baseline.mouse.up()
    baseline.wait_for_function("!map._panAnim || !map._panAnim._inProgress")  # its inertia ignores keys
    b_drag = baseline.evaluate(CENTRE)
    assert b_drag[1] > b_start[1] + 0.001
    baseline.keyboard.press("ArrowDown")  # the map has the focus from the press
    baseline.wait_for_function(f"map.getCenter().lat < {b_drag[0]} - 0.001")

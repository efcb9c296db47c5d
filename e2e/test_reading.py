"""Text as a person reads it, and open shadow roots, in page_find, page_act, page_wait and page_snapshot."""

import re

import pytest

from tests.support import ok, open_page, text_of


@pytest.fixture
def page(context, dev):
    return open_page(context, dev.url("/read.html"))


def test_text_split_across_elements_matches_and_the_innermost_element_answers(page, mcp):
    ok(mcp.call("page_act", {"pageId": page.page_id, "action": "click", "text": "Count is 3"}))
    waited = ok(mcp.call("page_wait", {"pageId": page.page_id, "text": "Count is 4", "timeout": 5}))
    assert waited["met"]
    left = ok(mcp.call("page_find", {"pageId": page.page_id, "text": "2 items left"}))
    assert left["total"] == 1 and left["matches"][0]["name"] == "2 items left"
    assert page.evaluate(f"window.__dbg && document.getElementById('left') !== null")
    two = ok(mcp.call("page_find", {"pageId": page.page_id, "text": "2", "exact": True}))
    assert [m["role"] for m in two["matches"]] == ["strong"]


def test_zero_width_and_soft_hyphen_are_ignored_in_text_and_names(page, mcp):
    pet = ok(mcp.call("page_find", {"pageId": page.page_id, "text": "/pet/{petId}"}))
    assert [(m["role"], m["name"]) for m in pet["matches"]] == [("link", "/pet/{petId}")]
    refresh = ok(mcp.call("page_find", {"pageId": page.page_id, "role": "button", "text": "Refresh list"}))
    assert refresh["total"] == 1 and refresh["matches"][0]["name"] == "Refresh list"


def test_exact_and_regex_text(page, mcp):
    assert ok(mcp.call("page_find", {"pageId": page.page_id, "text": "count is", "exact": True}))["total"] == 0
    by_re = ok(mcp.call("page_find", {"pageId": page.page_id, "regex": r"^Count is \d+$"}))
    assert [m["role"] for m in by_re["matches"]] == ["button"]
    slash = ok(mcp.call("page_act", {"pageId": page.page_id, "action": "click", "text": "/^count is \\d$/i"}))
    assert slash["done"][0]["action"] == "click"
    assert page.evaluate("document.getElementById('n').textContent") == "4"


def test_wait_for_text_that_appears_later(page, mcp):
    page.evaluate("setTimeout(() => { document.getElementById('late').hidden = false; }, 200)")
    out = ok(mcp.call("page_wait", {"pageId": page.page_id, "text": "saved 4 files", "timeout": 5}))
    assert out["met"]
    gone = mcp.call("page_wait", {"pageId": page.page_id, "text": "never there", "timeout": 0.3})
    assert gone.is_error and "[wait_timeout]" in text_of(gone)


def test_lookups_enter_open_shadow_roots(page, mcp):
    found = ok(mcp.call("page_find", {"pageId": page.page_id, "text": "Deep go"}))
    assert [(m["role"], m["name"]) for m in found["matches"]] == [("button", "Deep go")]
    ok(mcp.call("page_act", {"pageId": page.page_id, "actions": [
        {"action": "fill", "text": "Deep name", "value": "far"},
        {"action": "click", "text": "Deep go"},
    ]}))
    assert ok(mcp.call("page_wait", {"pageId": page.page_id, "text": "went far", "timeout": 5}))["met"]
    by_sel = ok(mcp.call("page_find", {"pageId": page.page_id, "selector": "input.deep"}))
    assert by_sel["total"] == 1 and by_sel["matches"][0]["name"] == "Deep name"
    ok(mcp.call("page_act", {"pageId": page.page_id, "action": "fill", "selector": "x-panel >>> section input", "value": "near"}))
    assert page.evaluate("document.getElementById('panel').shadowRoot.getElementById('deep').value") == "near"
    assert ok(mcp.call("page_wait", {"pageId": page.page_id, "selector": "#deep-out", "timeout": 5}))["met"]
    bad = mcp.call("page_find", {"pageId": page.page_id, "selector": "x-panel >>> "})
    assert bad.is_error and "[bad_selector]" in text_of(bad)


def test_snapshot_puts_slotted_nodes_at_their_slot(page, mcp):
    tree = text_of(mcp.call("page_snapshot", {"pageId": page.page_id}))
    lines = tree.splitlines()
    title = next(i for i, line in enumerate(lines) if 'heading "Panel title"' in line)
    body = next(i for i, line in enumerate(lines) if "slotted body" in line)
    deep = next(i for i, line in enumerate(lines) if 'textbox "Deep name"' in line)
    assert title < body < deep
    assert sum("slotted body" in line for line in lines) == 1
    assert 'button "Count is 3"' in tree and 'link "/pet/{petId}"' in tree


def test_a_source_lookup_inside_a_shadow_root_names_the_custom_element(page, mcp):
    found = ok(mcp.call("page_find", {"pageId": page.page_id, "text": "Deep go"}))
    src = ok(mcp.call("page_source", {"pageId": page.page_id, "ref": found["matches"][0]["ref"]}))
    assert src["via"] == "custom-element" and "<x-panel>" in src["components"][-1] and "no source positions" in src["note"]


def test_the_lean_snapshot_gives_refs_to_what_can_be_acted_on_and_detailed_to_every_role(page, mcp):
    lean = text_of(mcp.call("page_snapshot", {"pageId": page.page_id}))
    assert re.search(r'- button "Count is 3" \[ref=e\d+\]', lean)  # bare refs: the header's document only
    assert re.search(r'- heading "Panel title"$', lean, re.M)  # no ref on what is only read, no level
    assert "- row: Apple | 3" in lean and re.search(r'- row: Pear button "Eat" \[ref=e\d+\] \| 1', lean)  # one line a row
    card = re.search(r'- clickable \[ref=(e\d+)\]: Open card', lean)
    assert card  # a div with a pointer cursor and no role is still something to click
    ok(mcp.call("page_act", {"pageId": page.page_id, "action": "click", "ref": card.group(1)}))
    assert page.evaluate("document.getElementById('out').textContent") == "card opened"
    detailed = text_of(mcp.call("page_snapshot", {"pageId": page.page_id, "detailed": True}))
    assert re.search(r'- heading "Panel title" \[level=2\] \[ref=e\d+@[a-z]{2}\]', detailed)
    assert re.search(r'- cell "Apple" \[ref=e\d+@[a-z]{2}\]', detailed) and len(lean) < len(detailed)

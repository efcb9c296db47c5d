"""page_snapshot, page_find and page_act on a real page: refs, framework-visible values, loud stale refs."""


from tests.support import CONNECTED, McpSession, ok, text_of


def ref_of(snapshot_text: str, needle: str) -> str:
    line = next(line for line in snapshot_text.splitlines() if needle in line)
    return line.split("[ref=")[1].split("]")[0]


def test_snapshot_lists_roles_names_states_and_refs_but_not_hidden_text(app, mcp):
    text = text_of(mcp.call("page_snapshot", {"pageId": app.page_id}))
    assert 'heading "Orders"' in text and '[level=1]' not in text  # levels: detailed only
    assert 'textbox "Customer"' in text and 'combobox "Size" [value="Small"]' in text
    assert 'checkbox "Gift wrap"' in text and 'button "Place order"' in text
    assert 'button "Shadow button"' in text  # open shadow roots are walked
    assert "hidden text" not in text
    assert len(text) < 3000


def test_interactive_only_and_max_chars_keep_the_answer_small(app, mcp):
    full = text_of(mcp.call("page_snapshot", {"pageId": app.page_id}))
    small = text_of(mcp.call("page_snapshot", {"pageId": app.page_id, "interactiveOnly": True}))
    assert len(small) < len(full) and "listitem" not in small and 'button "Load more"' in small
    cut = ok(mcp.call("page_snapshot", {"pageId": app.page_id, "maxChars": 200}))
    assert cut["truncated"] and "more element(s) over maxChars=200" in cut["tree"]


def test_fill_select_check_and_click_submit_the_form_and_report_the_change(app, bridge):
    fresh = McpSession(bridge.mcp_url, bridge.token, "legacy")  # a session of its own: the input note is said once
    try:
        out = ok(fresh.call("page_act", {"pageId": app.page_id, "actions": [
            {"action": "fill", "text": "Customer", "value": "Ada"},
            {"action": "select", "selector": "#size", "value": "Large"},
            {"action": "check", "text": "Gift wrap"},
            {"action": "click", "text": "Place order"},
        ]}))
        again = ok(fresh.call("page_act", {"pageId": app.page_id, "action": "focus", "text": "Customer"}))
    finally:
        fresh.close()
    assert [d["action"] for d in out["done"]] == ["fill", "select", "check", "click"]
    assert any("Ada / l / gift" in line for line in out["changed"])
    assert "isTrusted=false" in out["untrusted"] and "untrusted" not in again
    assert app.evaluate("document.getElementById('summary').textContent") == "Ada / l / gift"


def test_click_through_a_dialog_by_ref(app, mcp):
    opened = ok(mcp.call("page_act", {"pageId": app.page_id, "action": "click", "text": "Delete all"}))
    yes = ref_of("\n".join(opened["changed"]), 'button "Yes, delete"')
    done = ok(mcp.call("page_act", {"pageId": app.page_id, "action": "click", "ref": yes}))
    assert any("deleted" in line for line in done["changed"])
    assert app.evaluate("document.getElementById('confirm').open") is False


def test_a_ref_to_a_removed_element_fails_as_stale_and_never_hits_another(app, mcp):
    text = text_of(mcp.call("page_snapshot", {"pageId": app.page_id, "detailed": True}))
    plum = ref_of(text, 'listitem "Plum"')
    app.evaluate("document.querySelector('#items li:last-child').remove()")
    res = mcp.call("page_act", {"pageId": app.page_id, "action": "click", "ref": plum})
    assert res.is_error and "[stale_ref]" in text_of(res) and "new page_snapshot" in text_of(res)


def test_a_ref_from_before_a_reload_is_stale(app, mcp):
    button = ref_of(text_of(mcp.call("page_snapshot", {"pageId": app.page_id})), 'button "Load more"')
    app.reload()
    app.wait_for_function(CONNECTED, timeout=10000)
    assert app.evaluate("window.__dbg.pageId") == app.page_id
    res = mcp.call("page_act", {"pageId": app.page_id, "action": "click", "ref": button})
    assert res.is_error and "[stale_ref]" in text_of(res) and "reloaded" in text_of(res)


def test_an_ambiguous_text_target_lists_the_candidates(app, mcp):
    res = mcp.call("page_act", {"pageId": app.page_id, "action": "click", "text": "e"})
    assert res.is_error and "[ambiguous_target]" in text_of(res) and "Pass one ref, or nth" in text_of(res)


def test_find_by_role_text_regex_and_selector(app, mcp):
    buttons = ok(mcp.call("page_find", {"pageId": app.page_id, "role": "button"}))
    assert {m["name"] for m in buttons["matches"]} >= {"Place order", "Load more", "Delete all"}
    by_text = ok(mcp.call("page_find", {"pageId": app.page_id, "text": "pear"}))
    assert [m["name"] for m in by_text["matches"]] == ["Pear"]
    by_regex = ok(mcp.call("page_find", {"pageId": app.page_id, "regex": "^P(ear|lum)$"}))
    assert {m["name"] for m in by_regex["matches"]} == {"Pear", "Plum"}
    by_sel = ok(mcp.call("page_find", {"pageId": app.page_id, "selector": "nav a"}))
    assert [m["role"] for m in by_sel["matches"]] == ["link", "link"]
    bad = mcp.call("page_find", {"pageId": app.page_id, "selector": "[[["})
    assert bad.is_error and "[bad_selector]" in text_of(bad)


LEAN = """<div id="lean"><header><button>Menu</button></header>
<span>Colour</span><select aria-label="Colour"><option>Red</option></select>
<button aria-expanded="false">More</button>
<div style="display:flex;width:0"><button aria-label="Copy" style="width:0;padding:0;border:0"></button></div></div>"""


def test_the_lean_snapshot_leaves_out_landmark_lines_collapsed_states_repeated_labels_and_controls_of_no_size(app, mcp):
    app.evaluate("html => document.body.insertAdjacentHTML('beforeend', html)", LEAN)
    try:
        lean = text_of(mcp.call("page_snapshot", {"pageId": app.page_id, "root": "#lean"}))
        detailed = text_of(mcp.call("page_snapshot", {"pageId": app.page_id, "root": "#lean", "detailed": True}))
    finally:
        app.evaluate("document.getElementById('lean').remove()")
    head, *lines = lean.splitlines()
    assert head.startswith(app.page_id + " · http") and "elements" not in head  # counted only when cut
    assert lines[0].startswith('- button "Menu" [ref=') and "banner" not in lean
    assert "Colour\n" not in lean and '- combobox "Colour" [value="Red"] [ref=' in lean
    assert '- button "More" [ref=' in lean and "collapsed" not in lean
    assert "Copy" not in lean
    assert "- banner" in detailed and 'button "More" [collapsed]' in detailed and 'button "Copy"' in detailed

"""Reading as a person reads, in real Chromium (e2e/pages/reading.html): inline content inside its sentence with the
controls in place, code lines as lines, names from content through presentation wrappers, every editable element in
the lean snapshot, cut text that says how to read the rest; page_list's order; page_network without dev-server
noise."""

from __future__ import annotations

import re

import pytest

from tests.support import ok, open_page, text_of


@pytest.fixture
def page(context, dev):
    return open_page(context, dev.url("/reading.html"))


def trees(mcp, page_id: str) -> dict[str, str]:
    return {mode: text_of(mcp.call("page_snapshot", {"pageId": page_id, "detailed": mode == "detailed"}))
            for mode in ("lean", "detailed")}


def test_inline_elements_stay_inside_their_sentence_and_inline_controls_keep_their_refs_in_place(page, mcp):
    for mode, tree in trees(mcp, page.page_id).items():
        assert "- paragraph: The quick brown fox." in tree, mode
        assert "- paragraph: Edit utils.js below, then H2O and x2 stay." in tree, mode
        m = re.search(r'- paragraph: Read the link "docs" \[ref=(e\d+(?:@\w+)?)\] first, then press '
                      r'button "Run" \[ref=(e\d+(?:@\w+)?)\] to start\.', tree)
        assert m, mode
        assert "text: quick" not in tree and "- code" not in tree and "text: utils.js" not in tree
        # whitespace as rendered: a span laid out as a block is a line of its own
        assert re.search(r"- text: one\n- text: two\n- text: three", tree), mode
    ok(mcp.call("page_act", {"pageId": page.page_id, "action": "click", "ref": m.group(2)}))  # the ref in the line works
    assert page.evaluate("document.getElementById('run').textContent") == "Ran"


def test_a_code_editors_lines_read_as_its_lines_punctuation_and_indentation_kept(page, mcp):
    for mode, tree in trees(mcp, page.page_id).items():
        lines = tree.splitlines()
        at = next(i for i, line in enumerate(lines) if 'textbox "Code"' in line)
        assert lines[at + 1:at + 5] == ["  - text: function add(a, b) {", "  - text:   return a + b;",
                                        "  - text: }", "  - text: }"], mode


def test_cells_rows_tabs_and_options_are_named_from_content_through_presentation_wrappers(page, mcp):
    t = trees(mcp, page.page_id)
    assert re.search(r"- row: Make \[ref=e\d+\] \| Price \[ref=e\d+\]", t["lean"])
    assert re.search(r"- row: Toyota \[ref=e\d+\] \| 35000 \[ref=e\d+\]", t["lean"])
    assert re.search(r"- row: Ford \[ref=e\d+\] \| 32000 \[ref=e\d+\]", t["lean"])
    for mode, tree in t.items():
        assert 'tab "Overview" [selected]' in tree and 'tab "Details"' in tree, mode
        assert 'option "Red"' in tree and 'option "Blue"' in tree, mode
    assert 'row "Toyota 35000"' in t["detailed"] and 'gridcell "Toyota"' in t["detailed"]
    assert '- text: Toyota' not in t["detailed"]  # the name says it: no second line of the same words
    cells = ok(mcp.call("page_find", {"pageId": page.page_id, "role": "gridcell", "text": "Ford"}))
    assert [m["name"] for m in cells["matches"]] == ["Ford"]
    assert ok(mcp.call("page_find", {"pageId": page.page_id, "role": "row", "text": "Ford 32000"}))["total"] == 1


def test_the_lean_snapshot_keeps_every_editable_element_whatever_its_size(page, mcp):
    sizes = page.evaluate("['zero', 'ec', 'ce'].map((id) => document.getElementById(id).getBoundingClientRect().width)")
    assert sizes == [0, 0, 0]
    assert page.evaluate("'EditContext' in window ? !!document.getElementById('ec').editContext : true")
    lean = trees(mcp, page.page_id)["lean"]
    for name in ("Hidden input", "Edit context host", "Empty editable"):
        assert re.search(rf'- textbox "{name}" \[ref=e\d+\]', lean), name


def test_cut_text_names_the_ref_that_reads_the_rest_and_page_find_reads_it_whole(page, mcp):
    whole = page.evaluate("document.getElementById('long').textContent").strip()
    for mode, tree in trees(mcp, page.page_id).items():
        m = re.search(r"- text: Body lorem[^\n]*…\(\+([\d,]+) chars: page_find ref=(e\d+)\)", tree)
        assert m, mode
        read = ok(mcp.call("page_find", {"pageId": page.page_id, "ref": m.group(2)}))["matches"][0]
        assert read["text"] == " ".join(whole.split()) and read["text"].endswith("THE END")
        shown = re.search(r"- text: (Body lorem[^\n]*)…\(", tree).group(1)
        assert len(shown) + int(m.group(1).replace(",", "")) == len(read["text"])  # the count is what was left out
    cell = re.search(r"content-length: 116 [^\n]*…\(\+[\d,]+ chars: page_find ref=(e\d+)\)", trees(mcp, page.page_id)["lean"])
    assert cell  # a long table cell says it too
    read = ok(mcp.call("page_find", {"pageId": page.page_id, "ref": cell.group(1)}))["matches"][0]
    assert read["text"].endswith("LAST")
    # a long value found by text is shown whole (up to the answer's cap), not cut at the name's 100 characters
    found = ok(mcp.call("page_find", {"pageId": page.page_id, "text": "THE END"}))["matches"]
    assert len(found) == 1 and found[0]["text"].endswith("THE END") and len(found[0]["text"]) == len(" ".join(whole.split()))


def test_a_cut_line_inside_a_frame_names_a_ref_the_tab_reads_it_by(page, mcp):
    tree = text_of(mcp.call("page_snapshot", {"pageId": page.page_id, "includeFrames": True}))
    m = re.search(r"- paragraph: Frame notes: [^\n]*…\(\+[\d,]+ chars: page_find ref=(f\d+:e\d+)\)", tree)
    assert m, tree[-600:]
    read = ok(mcp.call("page_find", {"pageId": page.page_id, "ref": m.group(1)}))
    assert read["pageId"] != page.page_id and read["matches"][0]["text"].endswith("FRAME END")


def test_page_list_lists_live_tabs_first_most_recently_active_first_and_reservations_after(context, dev, bridge, mcp):
    first, second = (open_page(context, dev.url("/reading.html")) for _ in range(2))
    # a flood of registrations from this origin that never connect (a broken client, say)
    flood = first.evaluate("""async (base) => {
      const ids = [];
      for (let i = 0; i < 12; i++) {
        const res = await fetch(base + '/bridge/register', {method: 'POST', headers: {'Content-Type': 'text/plain'},
          body: JSON.stringify({v: 1, url: location.href, title: 'flood ' + i, origin: location.origin})});
        ids.push((await res.json()).instanceId);
      }
      return ids;
    }""", bridge.base)
    assert len(set(flood)) == 12
    ok(mcp.call("page_exec", {"pageId": first.page_id, "code": "1 + 1"}))  # the first tab spoke last
    tabs = [r["pageId"].split("/")[0] for r in ok(mcp.call("page_list", {"limit": 2}))["pages"] if r["parent"] is None]
    assert tabs == [first.page_id.split("/")[0], second.page_id.split("/")[0]]
    ok(mcp.call("page_exec", {"pageId": second.page_id, "code": "2 + 2"}))
    out = ok(mcp.call("page_list", {"limit": 1000}))
    order = [r["pageId"].split("/")[0] for r in out["pages"] if r["parent"] is None]
    assert order[:2] == [second.page_id.split("/")[0], first.page_id.split("/")[0]]
    assert set(flood) <= set(order) and min(order.index(i) for i in flood) > 1


def test_page_network_hides_dev_server_noise_counts_it_and_shows_it_when_asked(page, mcp):
    page.evaluate("""async () => {
      const quiet = (p) => p.then((r) => r.text(), () => '');
      await Promise.all(['/@vite/client', '/src/App.jsx', '/src/main.js?t=1712345678901',
        '/node_modules/.vite/deps/react.js?v=0a1b2c3d', '/main.1a2b.hot-update.json', '/api/items?t=12']
        .map((u) => quiet(fetch(u))));
      await quiet(fetch('/', {headers: {Accept: 'text/x-vite-ping'}}));
      try { new WebSocket('ws://127.0.0.1:9/', 'vite-hmr'); } catch (_) { /* refused later */ }
      await quiet(fetch('data:application/json,' + encodeURIComponent(JSON.stringify({rows: 'x'.repeat(9000)}))));
    }""")
    out = ok(mcp.call("page_network", {"pageId": page.page_id}))
    urls = [r["url"] for r in out["requests"]]
    assert [u.split("/", 3)[-1] if u.startswith("http") else u[:21] for u in urls] == ["api/items?t=12", "data:application/json"]
    assert out["devServerHidden"] == 7
    everything = ok(mcp.call("page_network", {"pageId": page.page_id, "devServer": True}))
    assert len(everything["requests"]) == 9 and "devServerHidden" not in everything
    body = ok(mcp.call("page_network", {"pageId": page.page_id, "id": out["requests"][-1]["id"]}))["request"]
    assert len(body["responseBody"]) == 9000 + len('{"rows":""}')  # a long answer the agent asked for, whole

"""Reading tasks on apps nobody here wrote (e2e/apps, pinned): a virtualised data grid (AG Grid Community), a code
editor on contenteditable (CodeMirror 5, inputStyle contenteditable) and a rich-text editor whose body is a
same-origin iframe (TinyMCE). Each task is done by MCP tools only, then by Playwright's real input on a fresh page as
the baseline; both are checked against the app's own state."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from e2e.corpus import APPS, CorpusServer
from tests.support import ok, open_page, text_of

REF = re.compile(r" \[ref=[^\]]+\]")


@pytest.fixture(scope="module")
def corpus(bridge) -> Iterator[CorpusServer]:
    for app in ("ag-grid", "codemirror5", "tinymce"):
        assert (APPS / app / "node_modules").is_dir(), f"run ./scripts/test.sh (npm ci in e2e/apps/{app})"
    server = CorpusServer(bridge.client_js())
    yield server
    server.close()


def snapshot(mcp: Any, page_id: str, **kw: Any) -> str:
    return text_of(mcp.call("page_snapshot", {"pageId": page_id, **kw}))


# ---- AG Grid: sort by price, read the most expensive cars -------------------------------------------------------

PRICES = sorted((20000 + (i * 7919) % 80000 for i in range(2000)), reverse=True)


def grid_rows(tree: str) -> list[list[str]]:
    """The body rows of the lean snapshot, each as its cells' text (refs taken out)."""
    rows = [line.split("- row: ", 1)[1] for line in tree.splitlines() if "- row: " in line]
    return [[REF.sub("", cell).strip() for cell in row.split(" | ")] for row in rows]


def app_rows(page: Any, n: int) -> list[list[str]]:
    """The first n rows as the grid itself has them sorted (its API, not its DOM)."""
    return page.evaluate("n => Array.from({length: n}, (_, i) => gridApi.getDisplayedRowAtIndex(i).data)"
                         ".map((d) => [d.make, d.model, String(d.price)])", n)


def test_ag_grid_sort_by_price_and_read_the_top_rows_by_mcp_and_by_playwright(corpus, context, mcp):
    page = open_page(context, corpus.url("ag-grid/index.html"))
    page.wait_for_selector(".ag-row")
    tree = snapshot(mcp, page.page_id)
    header, first = grid_rows(tree)[:2]
    assert header == ["Make", "Model", "Price"] and first == ["Toyota", "Model 1", "20000"]  # cells carry their text
    price = re.search(r"\| Price \[ref=(e\d+)\]", tree).group(1)
    for _ in range(2):  # ascending, then descending
        ok(mcp.call("page_act", {"pageId": page.page_id, "action": "click", "ref": price}))
    assert ok(mcp.call("page_wait", {"pageId": page.page_id, "text": str(PRICES[0]), "timeout": 10}))["met"]
    read = grid_rows(snapshot(mcp, page.page_id))[1:4]
    assert [int(r[2]) for r in read] == PRICES[:3]
    assert read == app_rows(page, 3)  # what the agent read is what the grid holds, in its order

    baseline = context.new_page()
    baseline.goto(corpus.url("ag-grid/index.html"))
    for _ in range(2):
        baseline.get_by_role("columnheader", name="Price").click()  # real mouse
    baseline.wait_for_function("gridApi.getDisplayedRowAtIndex(0).data.price === %d" % PRICES[0])
    assert app_rows(baseline, 3) == read
    baseline.close()


# ---- CodeMirror 5 (contenteditable): read the file as its lines ---------------------------------------------------

def editor_lines(tree: str) -> list[str]:
    """The text lines under the editor's textbox line, indentation as rendered."""
    lines = tree.splitlines()
    at = next(i for i, line in enumerate(lines) if line.lstrip().startswith("- textbox"))
    indent = len(lines[at]) - len(lines[at].lstrip()) + 2
    out = []
    for line in lines[at + 1:]:
        if not line.startswith(" " * indent + "- text: "):
            break
        out.append(line[indent + len("- text: "):])
    return out


def test_codemirror_lines_read_as_the_editor_holds_them_by_mcp_and_by_playwright(corpus, context, mcp):
    page = open_page(context, corpus.url("codemirror5/index.html"))
    value = [line for line in page.evaluate("editor.getValue()").split("\n") if line.strip()]
    assert page.evaluate("document.querySelector('.CodeMirror-code').isContentEditable")
    for detailed in (False, True):
        read = editor_lines(snapshot(mcp, page.page_id, detailed=detailed))
        assert read == value  # every line in order, punctuation-only lines (`}`) and indentation kept
    found = ok(mcp.call("page_find", {"pageId": page.page_id, "text": "TODO"}))
    assert [(m["name"], m["context"]) for m in found["matches"]] == [
        ("// TODO: round to cents", "return sum; // TODO: round to cents")]  # the comment, in its line

    baseline = context.new_page()
    baseline.goto(corpus.url("codemirror5/index.html"))
    shown = [t.replace("\u200b", "") for t in baseline.locator(".CodeMirror-line").all_inner_texts()]
    assert [t for t in shown if t.strip()] == value == read
    baseline.close()


# ---- TinyMCE (body in a same-origin iframe): read the notes, find the link ----------------------------------------

def test_tinymce_body_reads_as_sentences_with_links_in_place_by_mcp_and_by_playwright(corpus, context, mcp):
    page = open_page(context, corpus.url("tinymce/index.html"))
    page.wait_for_function("window.editorReady === true")
    tree = snapshot(mcp, page.page_id, includeFrames=True)
    paragraphs = [REF.sub("", line.split("- paragraph: ", 1)[1]) for line in tree.splitlines() if "- paragraph: " in line]
    # the app's own text of its paragraphs, each link read in place as `link "its text"`
    held = page.evaluate("""Array.from(tinymce.activeEditor.getBody().querySelectorAll('p')).map((p) =>
        Array.from(p.childNodes).map((n) => n.nodeName === 'A' ? 'link "' + n.textContent + '"' : n.textContent).join(''))""")
    assert paragraphs == held
    assert paragraphs[0] == 'The quick brown fox link "jumps" over the lazy dog.'
    link = re.search(r'link "jumps" \[ref=(f\d+:e\d+)\]', tree).group(1)  # a ref into the iframe, read from the tab
    found = ok(mcp.call("page_find", {"pageId": page.page_id, "ref": link}))
    assert found["matches"][0]["role"] == "link" and found["matches"][0]["name"] == "jumps"

    baseline = context.new_page()
    baseline.goto(corpus.url("tinymce/index.html"))
    baseline.wait_for_function("window.editorReady === true")
    body = baseline.frame_locator("#doc_ifr").locator("body")
    assert body.locator("p").first.inner_text() == "The quick brown fox jumps over the lazy dog."
    assert body.get_by_role("link", name="jumps").get_attribute("href") == "https://example.com/fox"
    baseline.close()

"""Typing into editors nobody here wrote (e2e/apps, pinned): CodeMirror 5 on contenteditable, CodeMirror 5 on its
default hidden textarea (textarea-backed: the editor polls what the textarea holds) and TinyMCE, whose editable
body is a same-origin iframe. Each task is done by MCP tools only, then again with Playwright's real keyboard on a
fresh page as the baseline, and both are read from the editor's own state (its API, not its DOM).
(CodeMirror 6 on EditContext is typed into in e2e/test_acting_corpus.py.)"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from e2e.corpus import APPS, CorpusServer
from tests.support import ok, open_page, text_of

ADDED = " // checked"


@pytest.fixture(scope="module")
def corpus(bridge) -> Iterator[CorpusServer]:
    for app in ("codemirror5", "tinymce"):
        assert (APPS / app / "node_modules").is_dir(), f"run ./scripts/test.sh (npm ci in e2e/apps/{app})"
    server = CorpusServer(bridge.client_js())
    yield server
    server.close()


def act(mcp: Any, page_id: str, **kw: Any) -> dict[str, Any]:
    return ok(mcp.call("page_act", {"pageId": page_id, **kw}))


def test_codemirror5_on_contenteditable_takes_typing_at_the_end_by_mcp_and_by_playwright(corpus, context, mcp):
    page = open_page(context, corpus.url("codemirror5/index.html"))
    before = page.evaluate("editor.getValue()")
    assert page.evaluate("document.querySelector('.CodeMirror-code').isContentEditable")
    act(mcp, page.page_id, action="press", selector=".CodeMirror-code", key="Control+End")
    typed = act(mcp, page.page_id, action="type", selector=".CodeMirror-code", value=ADDED)
    agent = page.evaluate("editor.getValue()")
    assert agent == before + ADDED, agent  # CodeMirror's own model has it, at the end
    assert "effect" not in typed, typed

    baseline = context.new_page()
    baseline.goto(corpus.url("codemirror5/index.html"))
    baseline.click(".CodeMirror-code")
    baseline.keyboard.press("Control+End")
    baseline.keyboard.type(ADDED)
    assert baseline.evaluate("editor.getValue()") == agent
    baseline.close()


def test_codemirror5_on_its_hidden_textarea_takes_typing_and_a_fill_by_mcp_and_by_playwright(corpus, context, mcp):
    page = open_page(context, corpus.url("codemirror5/textarea.html"))
    assert page.evaluate("editor.getInputField().tagName") == "TEXTAREA"
    act(mcp, page.page_id, action="press", selector=".CodeMirror textarea", key="Control+End")
    typed = act(mcp, page.page_id, action="type", selector=".CodeMirror textarea", value=" and a third")
    page.wait_for_function("editor.getValue().endsWith(' and a third')", timeout=5000)  # the editor polls its input
    agent = page.evaluate("editor.getValue()")
    assert agent == "first line\nsecond line and a third", agent
    assert "effect" not in typed, typed

    baseline = context.new_page()
    baseline.goto(corpus.url("codemirror5/textarea.html"))
    baseline.click(".CodeMirror-lines")
    baseline.keyboard.press("Control+End")
    baseline.keyboard.type(" and a third")
    assert baseline.evaluate("editor.getValue()") == agent
    baseline.close()


def test_tinymce_body_in_its_iframe_takes_typing_at_the_end_by_mcp_and_by_playwright(corpus, context, mcp):
    page = open_page(context, corpus.url("tinymce/index.html"))
    page.wait_for_function("window.editorReady === true")
    tree = text_of(mcp.call("page_snapshot", {"pageId": page.page_id, "includeFrames": True}))
    body = re.search(r"- textbox[^\n]*\[ref=(f\d+:e\d+)\]", tree)
    assert body, tree  # the iframe's editable body, as a ref read from the tab
    typed = act(mcp, page.page_id, action="type", ref=body.group(1), value=" The end.")
    agent = page.evaluate("tinymce.activeEditor.getContent({format: 'text'})")
    assert agent.replace("\xa0", " ").endswith("New export menu The end."), agent  # at the end of the last item
    assert "effect" not in typed, typed

    baseline = context.new_page()
    baseline.goto(corpus.url("tinymce/index.html"))
    baseline.wait_for_function("window.editorReady === true")
    frame_body = baseline.frame_locator("#doc_ifr").locator("body")
    frame_body.click()
    baseline.keyboard.press("Control+End")
    baseline.keyboard.type(" The end.")
    assert baseline.evaluate("tinymce.activeEditor.getContent({format: 'text'})") == agent
    baseline.close()

"""File choosers, which synthetic input cannot open: page_act upload hands files from the bridge's --upload-dir to a
page's file input as a pick in the chooser would (input, change, File objects the page reads), after the human's
consent, which is answered in the cockpit only (the page's own scripts share the world of any card in the page);
paths outside the folder, dotfiles and a bridge without the folder are refused by name. The baseline is a person's
pick through Playwright's file chooser after a real click."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support import BridgeProcess, DevServer, McpSession, ok, open_page, text_of

SHOWN = "Array.from(document.querySelectorAll('#out li'), (li) => li.textContent)"  # what the page read of the files


@pytest.fixture(scope="module")
def lab(tmp_path_factory, module_bridge_process) -> Iterator[tuple[BridgeProcess, DevServer, McpSession, Path]]:
    """A bridge that takes uploads from one folder and asks the human before handing them over."""
    files = tmp_path_factory.mktemp("uploads")
    (files / "notes.txt").write_text("first notes")
    (files / "data.csv").write_text("a,b\n1,2")
    (files / ".env").write_text("TOKEN=secret")
    proc = module_bridge_process("--upload-dir", str(files), name="upload", env={"DBG_NO_CONSENT": "0"})
    dev = DevServer(proc.client_js())
    session = McpSession(proc.mcp_url, proc.token)
    yield proc, dev, session, files
    session.close()
    dev.close()


def upload(mcp: McpSession, page: Any, files: list[str], **kw: Any) -> Any:
    return mcp.call("page_act", {"pageId": page.page_id, "action": "upload", "selector": "label.button",
                                 "files": files, **kw})


def cockpit_card(context: Any, proc: BridgeProcess) -> Any:
    """The consent card in the bridge's cockpit (the only place an upload is answered)."""
    cockpit = context.new_page()
    cockpit.goto(proc.base + "/#sessions")
    card = cockpit.locator("#question-cards .card.consent")
    card.wait_for(timeout=10000)
    return card


def answered(mcp: McpSession, proc: BridgeProcess, context: Any, page: Any, selector: str, answer: str) -> Any:
    """An upload of notes.txt to `selector`, the consent answered `answer` in the cockpit; the call's result."""
    call = mcp.start("page_act", {"pageId": page.page_id, "action": "upload", "selector": selector,
                                  "files": ["notes.txt"]})
    card = cockpit_card(context, proc)
    card.locator(f"button[data-answer={answer}]").click()
    return call.result(20)


def test_upload_hands_the_files_to_the_input_behind_a_label_after_consent_like_a_pick(lab, context):
    proc, dev, mcp, files = lab
    page = open_page(context, dev.url("/upload.html"))
    call = mcp.start("page_act", {"pageId": page.page_id, "action": "upload", "selector": "label.button",
                                  "files": ["notes.txt", str(files / "data.csv")]})
    card = cockpit_card(context, proc)
    assert "notes.txt (11 bytes)" in card.locator("pre").text_content()  # the human sees what would be handed over
    assert page.locator("dbg-human .card.consent").count() == 0  # no card in the page: a note pointing there
    card.locator("button[data-answer='Allow once']").click()
    done = ok(call.result(20))["done"][0]
    assert done["files"] == ["notes.txt (11 bytes)", "data.csv (7 bytes)"], done
    page.wait_for_function("window.picked && window.picked.length === 2")
    agent = page.evaluate(SHOWN)
    assert agent == ["notes.txt: first notes", "data.csv: a,b\n1,2"]
    assert any(r.get("action") == "upload" and r.get("decision") == "Allow once" for r in proc.audit())

    baseline = context.new_page()
    baseline.goto(dev.url("/upload.html"))
    with baseline.expect_file_chooser() as chooser:
        baseline.click("label.button")  # a real click opens the chooser; the person picks the same files
    chooser.value.set_files([str(files / "notes.txt"), str(files / "data.csv")])
    baseline.wait_for_function("window.picked && window.picked.length === 2")
    assert baseline.evaluate(SHOWN) == agent
    baseline.close()


def test_a_denied_upload_hands_over_nothing(lab, context):
    proc, dev, mcp, _ = lab
    page = open_page(context, dev.url("/upload.html"))
    res = answered(mcp, proc, context, page, "#pick", "Deny")
    assert res.is_error and "[consent_denied]" in text_of(res), text_of(res)
    assert page.evaluate("document.getElementById('pick').files.length") == 0


def test_paths_outside_the_folder_and_secret_looking_files_are_refused_before_asking(lab, context, tmp_path):
    _, dev, mcp, files = lab
    page = open_page(context, dev.url("/upload.html"))
    outside = tmp_path / "elsewhere.txt"
    outside.write_text("not for pages")
    for name in (str(outside), "../" + outside.name, "/etc/passwd"):
        res = upload(mcp, page, [name])
        assert res.is_error and text_of(res).startswith("[upload_refused]"), text_of(res)
    res = upload(mcp, page, [".env"])
    assert res.is_error and text_of(res).startswith("[upload_refused]") and "secret" in text_of(res), text_of(res)
    assert page.locator("dbg-human .card.consent").count() == 0  # refused before the human was asked
    assert page.evaluate("document.getElementById('pick').files.length") == 0


def test_an_upload_to_something_that_is_not_a_file_input_names_the_inputs_the_page_has(lab, context):
    proc, dev, mcp, _ = lab
    page = open_page(context, dev.url("/upload.html"))
    res = answered(mcp, proc, context, page, "h1", "'Allow once'")
    message = text_of(res)
    assert res.is_error and message.startswith("[bad_action]") and "<h1>" in message, message
    assert "The page has these file inputs: e" in message, message
    assert page.evaluate("document.getElementById('pick').files.length") == 0


def test_a_bridge_without_an_upload_folder_says_how_to_turn_uploads_on(bridge, dev, context, mcp):
    page = open_page(context, dev.url("/upload.html"))
    res = mcp.call("page_act", {"pageId": page.page_id, "action": "upload", "selector": "#pick", "files": ["a.txt"]})
    assert res.is_error and text_of(res).startswith("[upload_not_allowed]") and "--upload-dir" in text_of(res)


def test_page_exec_command_act_takes_the_same_road_and_cannot_bring_its_own_file_contents(lab, context):
    proc, dev, mcp, _ = lab
    page = open_page(context, dev.url("/upload.html"))
    own = [[{"name": "forged.txt", "type": "text/plain", "data": "Zm9yZ2Vk"}]]
    res = mcp.call("page_exec", {"pageId": page.page_id, "command": "act",
                                 "params": {"action": "upload", "selector": "#pick", "uploads": own}})
    assert res.is_error and text_of(res).startswith("[invalid_argument]") and "files" in text_of(res), text_of(res)
    call = mcp.start("page_exec", {"pageId": page.page_id, "command": "act",
                                   "params": {"action": "upload", "selector": "#pick", "files": ["notes.txt"]}})
    card = cockpit_card(context, proc)  # the upload consent, as on page_act
    assert "notes.txt (11 bytes)" in card.locator("pre").text_content()
    card.locator("button[data-answer=Deny]").click()
    assert "[consent_denied]" in text_of(call.result(20))
    assert page.evaluate("document.getElementById('pick').files.length") == 0

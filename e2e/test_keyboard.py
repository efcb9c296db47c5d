"""press and type send keys as Chromium does for a US layout: legacy codes, keypress, beforeinput/input, implicit
submission, Tab focus."""

import pytest

from tests.support import ok, open_page


@pytest.fixture
def page(context, dev):
    return open_page(context, dev.url("/read.html"))


def act(mcp, page, **kw):
    return ok(mcp.call("page_act", {"pageId": page.page_id, **kw}))


def test_enter_sends_keydown_keypress_keyup_with_key_code_13(page, mcp):
    act(mcp, page, action="press", selector="#keys", key="Enter")
    assert page.evaluate("window.keyLog") == [
        ["keydown", "Enter", "Enter", 13, 13, 0], ["keypress", "Enter", "Enter", 13, 13, 13],
        ["keyup", "Enter", "Enter", 13, 13, 0]]


def test_type_sends_each_character_as_a_key_with_beforeinput_and_input_and_change_on_enter(page, mcp):
    act(mcp, page, action="type", selector="#keys", value="aB")
    assert page.evaluate("window.keyLog") == [
        ["keydown", "a", "KeyA", 65, 65, 0], ["keypress", "a", "KeyA", 97, 97, 97],
        ["beforeinput", "insertText", "a"], ["input", "insertText", "a"], ["keyup", "a", "KeyA", 65, 65, 0],
        ["keydown", "B", "KeyB", 66, 66, 0], ["keypress", "B", "KeyB", 66, 66, 66],
        ["beforeinput", "insertText", "B"], ["input", "insertText", "B"], ["keyup", "B", "KeyB", 66, 66, 0]]
    assert page.evaluate("document.getElementById('keys').value") == "aB"
    act(mcp, page, action="press", selector="#keys", key="Backspace")
    assert page.evaluate("document.getElementById('keys').value") == "a"
    page.evaluate("window.keyLog.length = 0")
    act(mcp, page, action="press", selector="#keys", key="Enter")
    assert ["change"] in page.evaluate("window.keyLog")


def test_a_prevented_keydown_types_nothing(page, mcp):
    page.evaluate("document.getElementById('keys').addEventListener('keydown', (e) => { if (e.key === 'x') e.preventDefault(); })")
    act(mcp, page, action="type", selector="#keys", value="xyx")
    assert page.evaluate("document.getElementById('keys').value") == "y"


def test_enter_submits_a_form_the_way_a_browser_does(page, mcp):
    act(mcp, page, action="press", selector="#only", key="Enter")  # one field, no button: submits
    act(mcp, page, action="press", selector="#first", key="Enter")  # two fields, no button: nothing
    act(mcp, page, action="press", selector="#q", key="Enter")  # default button disabled: nothing
    assert page.evaluate("window.submits") == ["single"]
    page.evaluate("document.getElementById('go').disabled = false")
    act(mcp, page, action="press", selector="#q", key="Enter")  # the default button is clicked
    assert page.evaluate("window.submits") == ["single", "withbutton:go"]


def test_enter_in_a_textarea_adds_a_line_and_submits_nothing(page, mcp):
    act(mcp, page, action="type", selector="#area", value="one\ntwo")
    assert page.evaluate("document.getElementById('area').value") == "one\ntwo"


def test_tab_and_shift_tab_move_focus(page, mcp):
    act(mcp, page, action="press", selector="#first", key="Tab")
    assert page.evaluate("document.activeElement.id") == "second"
    act(mcp, page, action="press", selector="#second", key="Shift+Tab")
    assert page.evaluate("document.activeElement.id") == "first"


def test_space_on_a_button_clicks_it_and_an_unknown_key_is_a_named_error(page, mcp):
    act(mcp, page, action="press", selector="#count", key="Space")
    assert page.evaluate("document.getElementById('n').textContent") == "4"
    bad = mcp.call("page_act", {"pageId": page.page_id, "action": "press", "selector": "#keys", "key": "Hyper"})
    assert bad.is_error and "[bad_key]" in bad.content[0].text

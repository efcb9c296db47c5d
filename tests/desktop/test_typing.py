"""Typing that arrives, read back from the field it went to: GTK 4 (gnome-text-editor 43), GTK 3 and Qt 6 (qt6ct's
dialog), fresh and after what a person does in between (a header-bar popover opened and closed, a dialog, a focus
change), with capitals, digits, punctuation, non-ASCII (keysyms the keymap lacks) and a newline. A field that cannot
hold what was sent is `[not_typed]`, never ok."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any

import pytest

from bridge.desktop.errors import DesktopError
from bridge.desktop.selectors import Selector
from tests.desktop.conftest import GTK_APP
from tests.desktop.test_real_apps import doubler  # noqa: F401 - fixture
from tests.support import CHROMIUM

LINE = ["Hello", "abc 123", "bar K gtk4 line 06385e", "Caps ABC; !@#$%^&*()_+-=[]{}|\\:\"'<>,.?/~`",
        "é Ü ß € ✓ 日本"]
TEXT = [*LINE, "two\nlines"]


@pytest.fixture
def launched(desk) -> Iterator[Any]:
    pids: list[int] = []

    def start(argv: list[str]) -> dict[str, Any]:
        got = desk("desktop_launch_app", argv=argv, timeout=30)
        pids.append(got["app"]["pid"])
        desk.wait_accessible(got["app"]["pid"])
        return got["windows"][0]

    yield start
    for pid in pids:
        try:
            desk("desktop_quit_app", pid=pid, timeout=3)
        except DesktopError:
            pass


def typed(desk, window: dict[str, Any], target: Selector, value: str, **args: Any) -> dict[str, Any]:
    out = desk("desktop_type_text", value=value, target=target, window=window["id"], **args)
    assert out["verified"] is True and out["input"] == "keyboard" and "retried" not in out, out  # the keys arrived
    return out


def test_gtk4_text_view_takes_every_string_fresh_and_after_the_header_bar_menu_closed_with_escape(desk, launched,
                                                                                                  monkeypatch):
    monkeypatch.setattr(desk.service.settings, "desktop_allow", ["gnome-text-editor"])
    win = launched(["gnome-text-editor", "--standalone", "--ignore-session", "--new-window"])
    view = Selector(role="text")
    for value in TEXT:
        assert typed(desk, win, view, value, replace=True)["value"] == value
    for value in TEXT:
        # a person's sequence: the menu opened with the pointer, closed with Escape (GTK 4 then focuses its button)
        desk("desktop_click", target=Selector(role="button", name="Menu", ordinal=-1), window=win["id"])
        desk("desktop_press_key", key="Escape", window=win["id"])
        out = typed(desk, win, view, value, replace=True)
        assert out["value"] == value and out["input"] == "keyboard", out
    out = typed(desk, win, view, " and more")  # no replace: inserted where the caret is (the end)
    assert out["value"] == TEXT[-1] + " and more"


def test_gtk3_entry_takes_every_string_fresh_after_a_dialog_and_after_a_focus_change(desk, launched):
    win = launched([*GTK_APP, "--title", "Typing GTK 3"])
    entry = Selector(role="textbox", name="Your name")
    for value in LINE:
        assert typed(desk, win, entry, value, replace=True)["value"] == value
    desk("desktop_click", target=Selector(role="button", name="Open dialog"), window=win["id"])
    dialog = desk("desktop_wait_for_window", title="Confirm", timeout=5)["windows"][0]
    desk("desktop_click", target=Selector(role="button", name="OK"), window=dialog["id"])
    desk("desktop_wait_for_window", title="Confirm", state="gone", timeout=5)
    for value in LINE:
        desk("desktop_click", target=Selector(role="button", name="Greet"), window=win["id"])  # focus elsewhere
        assert typed(desk, win, entry, value, replace=True)["value"] == value


def test_qt6_dialog_line_edit_takes_every_string(desk, launched, monkeypatch):
    monkeypatch.setattr(desk.service.settings, "desktop_allow", ["qt6ct"])
    win = launched(["qt6ct"])
    desk("desktop_click", target=Selector(role="tab", name="Style Sheets"), window=win["id"])
    desk("desktop_click", target=Selector(role="button", name="Create"), window=win["id"])
    field = Selector(role="textbox")
    dialog = desk("desktop_wait_for_element", target=field, pid=win["pid"], timeout=5)["matches"][0]
    for value in LINE:
        out = desk("desktop_type_text", value=value, ref=dialog["ref"], replace=True)
        assert out["verified"] is True and out["value"] == value and "retried" not in out, out
    desk("desktop_press_key", key="Escape", ref=dialog["ref"])


def test_a_field_that_keeps_less_than_was_sent_is_not_typed_with_what_it_holds(desk, launched):
    win = launched([*GTK_APP, "--title", "Typing short", "--max-length", "5"])
    err = desk.error("desktop_type_text", value="abcdefgh", target=Selector(role="textbox", name="Short"),
                     window=win["id"], replace=True)
    assert err.code == "not_typed", err
    text = str(err)
    assert "'abcdefgh'" in text and "holds 'abcde'" in text and "keyboard:" in text and "action:" in text, text


def test_typing_follows_a_keymap_changed_under_it(desk, launched):
    """The human switches to a German layout (y and z swapped, @ on AltGr+q): every character still arrives."""
    import subprocess

    win = launched([*GTK_APP, "--title", "Typing German"])
    env = desk.service.backend.session.env
    entry = Selector(role="textbox", name="Your name")
    assert typed(desk, win, entry, "before", replace=True)["value"] == "before"  # the bridge read the US map
    subprocess.run(["setxkbmap", "-layout", "de"], env=env, check=True, timeout=10)
    try:
        for value in ("yz@ü{}", "Zürich & Quay 42 #~"):
            out = typed(desk, win, entry, value, replace=True)
            assert out["value"] == value and out["input"] == "keyboard" and "retried" not in out, out
    finally:
        subprocess.run(["setxkbmap", "-layout", "us"], env=env, check=True, timeout=10)


def test_a_chromium_text_field_takes_every_string_and_the_page_holds_it(desk, doubler, monkeypatch):  # noqa: F811
    """Web content through Chromium's accessibility tree: the same strings into a page's <input>, replacing what it
    held, each read back from the field; the page's own value then doubles to the result line."""
    monkeypatch.setattr(desk.service.settings, "desktop_allow", [CHROMIUM])
    monkeypatch.setattr(desk.service.settings, "desktop_browser", CHROMIUM)
    pid = desk("desktop_open_url", url=doubler, timeout=40)["app"]["pid"]
    try:
        win = desk("desktop_wait_for_window", title="Doubler", pid=pid, timeout=30)["windows"][0]
        field = Selector(role="textbox", name="Quantity")
        desk("desktop_wait_for_element", target=field, window=win["id"], timeout=20)
        for value in LINE:
            assert typed(desk, win, field, value, replace=True)["value"] == value
        assert typed(desk, win, field, "21", replace=True)["value"] == "21"
        desk("desktop_click", target=Selector(role="button", name="Double it"), window=win["id"])
        got = desk("desktop_wait_for_element", target=Selector(role="label", name="Result: 42"), window=win["id"],
                   timeout=5)
        assert got["count"] == 1  # the page's own value was the last string typed
    finally:
        desk("desktop_quit_app", pid=pid, timeout=5)

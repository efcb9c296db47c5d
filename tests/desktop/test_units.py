"""Desktop pieces that need no display: selectors and role aliases, key chords, layouts, settings, registration."""

from __future__ import annotations

import pytest

from bridge.desktop.errors import DesktopError
from bridge.desktop.keyboard.keys import parse_chord
from bridge.desktop.selectors import Selector, matcher, nearest, pick, roles_for
from bridge.settings import Settings, SettingsError, load_settings
from bridge.tools import TOOLS, enabled_tools
from bridge.tools.desktop import layout_frames

NODES = [
    {"ref": "a1@x", "role": "push button", "name": "OK", "states": ["enabled", "showing"]},
    {"ref": "a2@x", "role": "push button", "name": "Cancel", "states": ["showing"]},
    {"ref": "a3@x", "role": "text", "name": "Search", "states": ["enabled", "editable"]},
    {"ref": "a4@x", "role": "check box", "name": "Remember me", "states": ["enabled", "checked"]},
    {"ref": "a5@x", "role": "label", "name": "Ready  to go", "states": []},
]


def names(sel: dict) -> list[str]:
    m = matcher(Selector(**sel))
    return [n["name"] for n in NODES if m(n)]


def test_role_aliases_cover_aria_atspi_and_macos_names():
    assert names({"role": "button"}) == names({"role": "AXButton"}) == names({"role": "push button"}) == ["OK",
                                                                                                          "Cancel"]
    assert names({"role": "textbox"}) == names({"role": "entry"}) == names({"role": "text"}) == ["Search"]
    assert names({"role": "checkbox"}) == names({"role": "AXCheckBox"}) == ["Remember me"]
    assert "pushbutton" in roles_for("PushButton")


def test_names_match_exactly_by_part_or_by_regex_and_states_filter():
    assert names({"name": "ok"}) == ["OK"]  # case and spacing ignored
    assert names({"name": "ready to go"}) == ["Ready  to go"]
    assert names({"name_contains": "MEMBER"}) == ["Remember me"]
    assert names({"name_regex": "^C"}) == ["Cancel"] and names({"name_regex": "(?i)^c"}) == ["Cancel"]
    assert names({"role": "button", "states": ["enabled"]}) == ["OK"]
    assert names({"role": "button", "states": ["!enabled"]}) == ["Cancel"]


def test_pick_returns_one_or_fails_as_ambiguous_or_no_match_with_candidates():
    buttons = NODES[:2]
    assert pick(Selector(role="button", ordinal=1), buttons, NODES, "x")["name"] == "Cancel"
    assert pick(Selector(role="button", ordinal=-1), buttons, NODES, "x")["name"] == "Cancel"
    with pytest.raises(DesktopError) as info:
        pick(Selector(role="button"), buttons, NODES, "window 1")
    assert info.value.code == "ambiguous" and "a1@x" in str(info.value) and "a2@x" in str(info.value)
    with pytest.raises(DesktopError) as info:
        pick(Selector(role="button", name="Canel"), [], NODES, "window 1")
    assert info.value.code == "no_match" and "Cancel" in str(info.value)
    with pytest.raises(DesktopError) as info:
        pick(Selector(role="button", ordinal=5), buttons, NODES, "x")
    assert info.value.code == "no_match" and "out of range" in str(info.value)
    assert nearest(Selector(name="Serch"), NODES)[0]["name"] == "Search"


def test_selectors_reject_unknown_fields_and_bad_regexes():
    with pytest.raises(ValueError):
        Selector(role="button", label="OK")  # type: ignore[call-arg]
    with pytest.raises(DesktopError) as info:
        matcher(Selector(name_regex="("))
    assert info.value.code == "bad_arguments"
    nested = Selector.model_validate({"role": "button", "within": {"role": "dialog", "name": "Confirm"}})
    assert isinstance(nested.within, Selector) and "within={role='dialog'" in nested.describe()


def test_key_chords_parse_and_refuse_empty_parts():
    assert parse_chord("ctrl+shift+t") == ["ctrl", "shift", "t"]
    assert parse_chord("ctrl++") == ["ctrl", "plus"] and parse_chord("+") == ["+"]
    assert parse_chord(" alt + F4 ") == ["alt", "F4"]
    with pytest.raises(DesktopError):
        parse_chord("ctrl+")


def test_layouts_tile_the_work_area():
    area = {"x": 0, "y": 20, "width": 1000, "height": 600}
    assert layout_frames("side_by_side", 2, area, 0) == [{"x": 0, "y": 20, "width": 500, "height": 600},
                                                         {"x": 500, "y": 20, "width": 500, "height": 600}]
    assert layout_frames("stacked", 3, area, 0)[2] == {"x": 0, "y": 420, "width": 1000, "height": 200}
    grid = layout_frames("grid", 5, area, 10)
    assert len(grid) == 5 and grid[3] == {"x": 0, "y": 325, "width": 326, "height": 295}
    cascade = layout_frames("cascade", 3, area, 0)
    assert cascade[1]["x"] - cascade[0]["x"] == 32 and cascade[0]["width"] == 600


def test_desktop_settings_come_from_env_and_flags_and_are_checked(tmp_path):
    env = {"DBG_CONFIG_DIR": str(tmp_path), "DBG_DESKTOP_ALLOW": "gedit, /usr/bin/xterm",
           "DBG_DESKTOP_ENABLED": "0", "DBG_DESKTOP_DISPLAY": ":3"}
    s = load_settings({}, env)
    assert s.desktop_allow == ["gedit", "/usr/bin/xterm"] and s.desktop_enabled is False and s.desktop_display == ":3"
    assert Settings().desktop_display == "private" and Settings().desktop_backend == "auto"
    for bad in ({"desktop_display": "elsewhere"}, {"desktop_size": "big"}, {"desktop_backend": "beos"}):
        with pytest.raises(SettingsError):
            load_settings(bad, {"DBG_CONFIG_DIR": str(tmp_path)})
    from bridge.cli.entry import build_parser

    args = build_parser().parse_args(["serve", "--desktop-allow", "gedit,kate", "--desktop-display", ":1"])
    assert args.desktop_allow == ["gedit", "kate"] and args.desktop_display == ":1"


def test_the_family_is_registered_only_when_turned_on():
    desktop = {t.name for t in TOOLS if t.name.startswith("desktop_")}
    assert len(desktop) == 26  # desktop_read_text joined the 25
    assert desktop <= {t.name for t in enabled_tools(Settings(desktop_enabled=True))}
    assert not desktop & {t.name for t in enabled_tools(Settings())}  # off by default
    assert not desktop & {t.name for t in enabled_tools(Settings(desktop_enabled=False))}
    kinds = {t.name: t.annotations for t in TOOLS if t.name in desktop}
    assert kinds["desktop_screenshot"].read_only_hint and kinds["desktop_list_windows"].read_only_hint
    assert kinds["desktop_click"].destructive_hint and not kinds["desktop_click"].read_only_hint
    assert not kinds["desktop_resize_window"].destructive_hint and not kinds["desktop_resize_window"].read_only_hint


def test_importing_the_tools_loads_no_platform_library():
    import subprocess
    import sys

    code = ("import sys, bridge.tools, bridge.desktop; "
            "print([m for m in sys.modules if m.split('.')[0] in ('Xlib', 'gi', 'mss')])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_open_url_takes_http_urls_only_and_builds_a_throwaway_profile_argv():
    from bridge.desktop.browser import browser_argv, check_url

    assert check_url(" https://example.com/a?b=1 ") == "https://example.com/a?b=1"
    for bad in ("file:///etc/passwd", "javascript:alert(1)", "about:blank", "http://", "http://a b", "-x",
                "http://a\nb", "chrome://version"):
        with pytest.raises(DesktopError) as info:
            check_url(bad)
        assert info.value.code == "bad_arguments", bad
    argv = browser_argv("/usr/bin/chromium", "http://x/", "/tmp/p")
    assert argv[0] == "/usr/bin/chromium" and argv[-1] == "http://x/" and "--user-data-dir=/tmp/p" in argv
    assert browser_argv("firefox", "http://x/", "/tmp/p") == ["firefox", "-no-remote", "-new-instance", "-profile",
                                                              "/tmp/p", "http://x/"]
    assert browser_argv("surf", "http://x/", "/tmp/p") == ["surf", "http://x/"]


def test_keysyms_become_the_key_names_and_characters_the_tools_take():
    from Xlib import XK

    from bridge.desktop.x11.record import describe_key

    def key(*names: str) -> dict:
        return describe_key([XK.string_to_keysym(n) for n in names])

    assert key("a", "A") == {"key": "a", "chars": ["a", "A", None, None], "modifier": None}
    assert key("Return")["key"] == "Enter" and key("Return")["chars"][0] is None
    assert key("BackSpace")["key"] == "Backspace" and key("Prior")["key"] == "PageUp" and key("F5")["key"] == "F5"
    assert key("plus")["key"] == "plus" and key("space")["chars"][0] == " "
    assert key("Control_L")["modifier"] == "ctrl" and key("ISO_Level3_Shift")["modifier"] == "altgr"
    assert describe_key([0x1002713, 0x1002713])["chars"][:2] == ["✓", "✓"]  # a spare keycode XTest mapped


class FakeDesktop:
    """Just enough of a backend for the recorder: two windows, elements by point, a focused field."""

    def __init__(self) -> None:
        self.wins = [self.win(1, "Main", True)]
        self.focused: dict | None = {"ref": "e1", "role": "text", "name": "Name", "window": 1, "states": []}
        self.nodes = {(10, 10): {"ref": "b1", "role": "push button", "name": "OK", "actions": ["click"], "window": 1,
                                 "states": []},
                      (20, 20): {"ref": "e1", "role": "text", "name": "Name", "window": 1, "states": []}}

    @staticmethod
    def win(wid: int, title: str, active: bool) -> dict:
        return {"id": wid, "title": title, "pid": 7, "active": active, "mapped": True, "state": ["normal"],
                "frame": {"x": 0, "y": 0, "width": 500, "height": 500}}

    def windows(self) -> list[dict]:
        return [dict(w) for w in self.wins]

    def element_at(self, window: dict, x: int, y: int) -> dict | None:
        node = self.nodes.get((x, y))
        return {"node": node, "ancestors": []} if node else None

    def focused_element(self, window: dict) -> dict | None:
        return self.focused

    def candidates(self, **kw: object) -> list[dict]:
        roles = kw["roles"]
        return [n for n in self.nodes.values() if n["role"].replace(" ", "") in roles]

    def record_start(self, sink: object) -> None:
        self.sink = sink

    def record_stop(self) -> None:
        pass


def test_the_recorder_turns_raw_input_into_steps():
    from concurrent.futures import Future

    from bridge.desktop.recording.recorder import Recording

    fake = FakeDesktop()

    def submit(fn):
        fut: Future = Future()
        fut.set_result(fn(fake))
        return fut

    rec = Recording(submit, 30)
    rec.begin(fake)
    t = rec.started

    def key(name: str, chars: list | None = None, modifier: str | None = None, down: bool = True) -> None:
        fake.sink({"kind": "key", "down": down, "key": name, "chars": chars or [None] * 4, "modifier": modifier,
                   "t": t})

    def press(name: str, ch: str | None = None) -> None:
        key(name, [ch, ch.upper() if ch else None, None, None])
        key(name, [ch, None, None, None], down=False)

    def click(x: int, y: int, button: int = 1, dt: float = 0.0) -> None:
        for down in (True, False):
            fake.sink({"kind": "button", "down": down, "button": button, "x": x, "y": y, "t": t + dt})

    click(20, 20)  # into the field, then type with a correction
    for ch in "Bobx":
        press(ch, ch)
    press("Backspace")
    key("Shift_L", modifier="shift")
    press("1", "1")  # shift held: no character at that level → '1' upper is '1'
    key("Shift_L", modifier="shift", down=False)
    press("Tab")
    press("Tab")  # merged: repeat 2
    key("Control_L", modifier="ctrl")
    press("s", "s")
    key("Control_L", modifier="ctrl", down=False)
    fake.sink({"kind": "tool", "active": True, "t": t})
    click(10, 10)  # the bridge's own click: left out
    fake.sink({"kind": "tool", "active": False, "t": t})
    click(10, 10, dt=1.0)
    click(10, 10, dt=1.1)  # a double click
    click(300, 300, button=3, dt=2.0)  # nothing there: coordinates
    for button in (5, 5, 4, 5):
        fake.sink({"kind": "button", "down": True, "button": button, "x": 50, "y": 60, "t": t + 3})
    fake.wins = [fake.win(1, "Main", False), fake.win(2, "Dialog", True)]  # a window opened and took focus
    press("Escape")
    fake.sink({"kind": "button", "down": True, "button": 1, "x": 5, "y": 5, "t": t + 4})
    fake.sink({"kind": "button", "down": False, "button": 1, "x": 200, "y": 100, "t": t + 4})
    out = rec.stop()
    got = [(s["tool"], s["arguments"]) for s in out["steps"]]
    field = {"role": "text", "name": "Name"}
    assert got == [
        ("desktop_click", {"target": field, "window": "Main"}),
        ("desktop_type_text", {"value": "Bob1", "target": field, "window": "Main"}),
        ("desktop_press_key", {"key": "Tab", "window": "Main", "repeat": 2}),
        ("desktop_hotkey", {"keys": "ctrl+s", "window": "Main"}),
        ("desktop_double_click", {"target": {"role": "push button", "name": "OK"}, "window": "Main"}),
        ("desktop_right_click", {"x": 300, "y": 300}),
        ("desktop_scroll", {"x": 50, "y": 60, "dy": 2, "dx": 0}),
        ("desktop_wait_for_window", {"title": "Dialog", "state": "active"}),
        ("desktop_press_key", {"key": "Escape", "window": "Dialog"}),
        ("desktop_drag", {"start": {"x": 5, "y": 5}, "end": {"x": 200, "y": 100}}),
    ]
    assert out["endedBy"] == "stop" and out["redacted"] == 0 and out["skipped"] == 0

    # typing into a password field (found by focus) keeps no character
    fake.focused = {"ref": "p1", "role": "password text", "name": "Password", "window": 2, "states": []}
    rec = Recording(submit, 30)
    rec.begin(fake)
    for ch in "hunter2":
        press(ch, ch)
    out = rec.stop()
    assert [s["arguments"]["value"] for s in out["steps"]] == ["<redacted>"] and out["redacted"] == 1
    assert "hunter2" not in repr(out) and "hunter2" not in repr(vars(rec))


def test_the_desktop_passes_to_the_human_at_their_input_and_back_after_the_idle_period(monkeypatch):
    from bridge.desktop import control

    now = [1000.0]
    monkeypatch.setattr(control.time, "monotonic", lambda: now[0])
    changes: list[dict] = []
    c = control.Control(30, changes.append)
    c.require_agent("Clicking", "cockpit")
    c.human_input("pointer")
    c.human_input("key")  # already theirs: no second change
    assert c.current() == "human" and [s["holder"] for s in changes] == ["human"]
    with pytest.raises(DesktopError) as info:
        c.require_agent("Clicking", "http://127.0.0.1:1/#desktop")
    assert info.value.code == "user_control" and "after 30 s without their input" in str(info.value)
    now[0] += 29
    c.human_input("pointer")  # still busy: the idle period starts again
    now[0] += 29
    assert c.current() == "human"
    now[0] += 1
    assert c.current() == "agent" and changes[-1]["reason"] == "no input from the human for 30 s"
    never = control.Control(0, changes.append)
    never.human_input("key")
    now[0] += 10_000
    assert never.current() == "human" and never.hand_back() and not never.hand_back()


def test_the_cockpit_says_whether_the_desktop_tools_are_on_and_how_to_turn_them_on(tmp_path):
    from starlette.testclient import TestClient

    from bridge.server.app import create_app

    for enabled, says in ((False, "--desktop-enabled"), (True, "on (auto, private)")):
        app = create_app(Settings(config_dir=tmp_path, port=8000, no_audit=True, desktop_enabled=enabled), None)
        with TestClient(app, base_url="http://127.0.0.1:8000") as http:
            page = http.get("/").text
        fact = page.split('id="fact-desktop">', 1)[1].split("</dd>", 1)[0]
        assert says in fact, fact

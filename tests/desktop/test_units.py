"""Desktop pieces that need no display: selectors and role aliases, key chords, layouts, settings, registration."""

from __future__ import annotations

import pytest

from bridge.desktop.errors import DesktopError
from bridge.desktop.keys import parse_chord
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
    from bridge.cli import build_parser

    args = build_parser().parse_args(["serve", "--desktop-allow", "gedit,kate", "--desktop-display", ":1"])
    assert args.desktop_allow == ["gedit", "kate"] and args.desktop_display == ":1"


def test_turning_the_family_off_unregisters_its_tools():
    desktop = {t.name for t in TOOLS if t.name.startswith("desktop_")}
    assert len(desktop) == 22
    assert desktop <= {t.name for t in enabled_tools(Settings())}
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

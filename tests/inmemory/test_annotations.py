"""Every tool's hints are exact and pinned here: readOnly, destructive, idempotent, openWorld as a client reads
them (the spec's defaults where a hint is absent: not read-only, destructive, not idempotent, open world)."""

from __future__ import annotations

from bridge.tools import TOOLS

#: name -> (read-only, destructive, idempotent, open world)
EXPECTED = {
    "page_list": (True, False, True, False), "page_exec": (False, True, False, True),
    "page_snapshot": (True, False, True, False), "page_find": (True, False, True, False),
    "page_act": (False, True, False, False), "page_wait": (True, False, True, False),
    "page_navigate": (False, True, False, True), "page_console": (True, False, True, False),
    "page_vitals": (True, False, True, False),
    "page_network": (True, False, True, False), "page_source": (True, False, True, False),
    "page_highlight": (False, False, False, False), "page_screenshot": (True, False, True, False),
    # opens a window of the page's own origin: changes what the browser shows, harms nothing (bridge/tools/page/open_tab.py)
    "page_open": (False, False, False, False),
    # a page's own tool may do anything on its origin, whatever the page says (bridge/tools/page/webmcp.py)
    "page_tools": (True, False, True, False), "page_call_tool": (False, True, False, True),
    "user_ask": (False, False, False, False), "user_notify": (False, False, False, False),
    # marking items seen or done twice leaves them as once: not read-only, but harmless to repeat
    "inbox": (False, False, True, False),
    # a run acts with every tool, through their own consent rules
    "agent_run": (False, True, False, True),
    "desktop_status": (True, False, True, False), "desktop_launch_app": (False, False, False, False),
    "desktop_open_url": (False, False, False, True), "desktop_list_apps": (True, False, True, False),
    "desktop_quit_app": (False, True, False, False), "desktop_list_windows": (True, False, True, False),
    "desktop_window_state": (False, False, True, False), "desktop_activate_window": (False, False, True, False),
    "desktop_resize_window": (False, False, True, False), "desktop_arrange_windows": (False, False, True, False),
    "desktop_click": (False, True, False, False), "desktop_double_click": (False, True, False, False),
    "desktop_right_click": (False, True, False, False), "desktop_drag": (False, True, False, False),
    "desktop_scroll": (False, False, False, False), "desktop_type_text": (False, True, False, False),
    "desktop_press_key": (False, True, False, False), "desktop_hotkey": (False, True, False, False),
    "desktop_screenshot": (True, False, True, False), "desktop_read_text": (True, False, True, False),
    "desktop_accessibility_tree": (True, False, True, False), "desktop_find_elements": (True, False, True, False),
    "desktop_wait_for_window": (True, False, True, False), "desktop_wait_for_element": (True, False, True, False),
    "desktop_start_recording": (False, False, False, False), "desktop_stop_recording": (False, False, False, False),
    "skill_list": (True, False, True, False), "skill_run": (False, True, False, True),
}


def effective(tool) -> tuple[bool, bool, bool, bool]:
    a = tool.wire_annotations
    read_only = bool(a.read_only_hint)
    # the spec gives destructive/idempotent meaning only when not read-only; a read-only tool neither destroys
    # nor changes anything, so repeating it is harmless
    destructive = False if read_only else (True if a.destructive_hint is None else a.destructive_hint)
    idempotent = True if read_only else bool(a.idempotent_hint)
    open_world = True if a.open_world_hint is None else a.open_world_hint
    return read_only, destructive, idempotent, open_world


def test_every_tool_s_hints_are_pinned():
    assert {t.name for t in TOOLS} == set(EXPECTED), "a tool was added or removed: pin its hints here"
    wrong = {t.name: effective(t) for t in TOOLS if effective(t) != EXPECTED[t.name]}
    assert wrong == {}


def test_hints_go_out_without_titles_and_read_only_tools_carry_no_meaningless_hints():
    for tool in TOOLS:
        a = tool.wire_annotations
        assert a.title is None and a.read_only_hint is not None and a.open_world_hint is not None, tool.name
        if a.read_only_hint:
            assert a.destructive_hint is None and a.idempotent_hint is None, tool.name
        else:
            assert a.destructive_hint is not None and a.idempotent_hint is not None, tool.name

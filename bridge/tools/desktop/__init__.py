"""desktop_* tools: windows, input, screenshots and accessibility trees of the desktop around the web app.

A private Xvfb desktop by default (started on the first call); an attached display (desktop_display=':N') allows the
read-only tools only until the human grants consent. Every answer that acts says how it found its target (`method`:
accessibility | ocr | coordinates) and how it acted (`input`: pointer | keyboard | action). Each handler gets the
bridge's Desktop (built in the app's lifespan), nothing else.
"""

from __future__ import annotations

from typing import Any

from bridge.desktop.errors import DesktopError
from bridge.desktop.service import Desktop
from bridge.tools.base import Tool, acting, read_only
from bridge.tools.outputs import obj
from bridge.tools.desktop.apps import (
    desktop_launch_app,
    desktop_list_apps,
    desktop_open_url,
    desktop_quit_app,
    desktop_status,
)
from bridge.tools.desktop.elements import desktop_accessibility_tree, desktop_find_elements, desktop_wait_for_element
from bridge.tools.desktop.input import (
    desktop_click,
    desktop_double_click,
    desktop_drag,
    desktop_hotkey,
    desktop_press_key,
    desktop_right_click,
    desktop_scroll,
    desktop_type_text,
)
from bridge.tools.desktop.recording import desktop_start_recording, desktop_stop_recording
from bridge.tools.desktop.screen import desktop_read_text, desktop_screenshot
from bridge.tools.desktop.windows import (
    desktop_activate_window,
    desktop_arrange_windows,
    desktop_list_windows,
    desktop_resize_window,
    desktop_wait_for_window,
    desktop_window_state,
    layout_frames,
)


def the_desktop(state: Any) -> Desktop:
    """What a desktop tool's handler gets: the Desktop the app's lifespan put on the bridge's state."""
    desk = state.desktop
    if desk is None:
        raise DesktopError("This bridge has no desktop running (it starts with the bridge's HTTP app; desktop tools "
                           "are off when desktop_enabled=false).", code="desktop_unavailable")
    return desk


def _tool(handler: Any, annotations: Any, output: dict[str, Any]) -> Tool:
    return Tool(handler, annotations, scope=the_desktop, output=output)


WINDOW = "?obj"
POINTER = obj("x:num", "y:num", "method:str", input="str")


TOOLS = [
    _tool(desktop_status, read_only("Desktop status"),
          obj("inputUntil:num", "recording:?obj", backend="str", mode="str", input="str", control="obj")),
    _tool(desktop_launch_app, acting("Launch a desktop app", destructive=False),
          obj("accessible:any", "note:str", app="obj", windows="list")),
    _tool(desktop_open_url, acting("Open a URL in a desktop browser", destructive=False, open_world=True),
          obj("windows:list", url="str", browser="str")),
    _tool(desktop_list_apps, read_only("List desktop apps"),
          obj(launched="list", others="list")),
    _tool(desktop_quit_app, acting("Quit a desktop app"),
          obj("exited:any", "app:any", pid="?int", how="str", closedWindows="list")),
    _tool(desktop_list_windows, read_only("List desktop windows"),
          obj("count:int", "active:any", windows="list", screen="any")),
    _tool(desktop_window_state, acting("Set a window's state", destructive=False, idempotent=True),
          obj(window=WINDOW)),
    _tool(desktop_activate_window, acting("Activate a window", destructive=False, idempotent=True),
          obj(window=WINDOW, activated="bool")),
    _tool(desktop_resize_window, acting("Move or resize a window", destructive=False, idempotent=True),
          obj("note:str", window=WINDOW, requested="obj")),
    _tool(desktop_arrange_windows, acting("Arrange windows", destructive=False, idempotent=True),
          obj(layout="str", windows="list")),
    _tool(desktop_click, acting("Click on the desktop"),
          POINTER),
    _tool(desktop_double_click, acting("Double-click on the desktop"),
          POINTER),
    _tool(desktop_right_click, acting("Right-click on the desktop"),
          POINTER),
    _tool(desktop_drag, acting("Drag on the desktop"),
          POINTER),
    _tool(desktop_scroll, acting("Scroll on the desktop", destructive=False),
          obj("dx:num", "dy:num", input="str")),
    _tool(desktop_type_text, acting("Type text on the desktop"),
          obj("value:any", "focus:str", "retried:list", "note:str", typed="int", verified="bool", input="str")),
    _tool(desktop_press_key, acting("Press a key on the desktop"),
          obj("keys:str", "repeat:int", input="str")),
    _tool(desktop_hotkey, acting("Press a hotkey on the desktop"),
          obj("keys:str", "repeat:int", input="str")),
    _tool(desktop_screenshot, read_only("Desktop screenshot"),
          obj("window:any", width="int", height="int", scale="num", origin="obj", bytes="int", format="str", ms="num")),
    _tool(desktop_read_text, read_only("Read text on the desktop (OCR)"),
          obj("window:any", "element:obj", text="str", lines="list", wordCount="int", truncated="bool",
              origin="obj", size="obj", method="str", ms="num")),
    _tool(desktop_accessibility_tree, read_only("Desktop accessibility tree"),
          obj(nodes="list", count="int", truncated="bool", scope="str")),
    _tool(desktop_find_elements, read_only("Find desktop elements"),
          obj("nearest:any", count="int", matches="list", scope="str")),
    _tool(desktop_wait_for_window, read_only("Wait for a window"),
          obj(state="str", windows="list", ms="num")),
    _tool(desktop_wait_for_element, read_only("Wait for a desktop element"),
          obj("note:str", state="str", matches="list", count="int", ms="num")),
    _tool(desktop_start_recording, acting("Start recording desktop input", destructive=False),
          obj(recording="bool", maxSeconds="num", since="num")),
    _tool(desktop_stop_recording, acting("Stop recording desktop input", destructive=False),
          obj("file:str", "errors:list", "replay:str", steps="list", count="int")),
]

__all__ = ["TOOLS", "layout_frames", "the_desktop", *(t.name for t in TOOLS)]

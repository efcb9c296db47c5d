"""The one interface every desktop backend implements. Backends are plain synchronous objects: the bridge calls them
from one worker thread, so they may hold toolkit connections that are not thread-safe.

Windows, nodes and apps are plain dicts so tools can return them as they are:
  window  {id, pid, title, class, bounds, frame, active, state[], mapped, type, z, transientFor?}
  node    {ref, role, name, states[], bounds|None, actions[]?, value?, description?, pid, window?, depth?}
  app     {pid, argv, running, exitCode?, startedAt}
Bounds are {x, y, width, height} in screen coordinates.

Two members are optional (read with getattr): `alive()`, False once the desktop died (the next call restarts it), and
`input_settle`, the seconds its apps may take to apply input before a read-back counts it lost (default 2).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable


@dataclass
class Shot:
    """A screenshot: PNG bytes, its size in image pixels, the screen position of its top-left pixel, and the scale
    (image pixels per screen coordinate; 1.0 on X11). `words`: the text on it when the backend knows it already
    ({text, line, conf, bounds} in screen coordinates, as bridge/desktop/ocr.py reads them); None: OCR reads it."""

    png: bytes
    width: int
    height: int
    origin: tuple[int, int]
    scale: float
    words: list[dict[str, Any]] | None = None


@runtime_checkable
class DesktopBackend(Protocol):
    name: str

    # ---- lifecycle ---------------------------------------------------------------------------
    def start(self) -> None:
        """Bring up the private desktop or attach to the configured display; raise DesktopError if impossible."""

    def stop(self) -> None:
        """Stop launched apps and everything the backend started; safe to call twice."""

    def info(self) -> dict[str, Any]:
        """display, private (bool), screen {width, height}, scale, windowManager, accessibility (bool), ..."""

    # ---- windows -----------------------------------------------------------------------------
    def windows(self) -> list[dict[str, Any]]:
        """Every managed window, topmost first."""

    def work_area(self) -> dict[str, int]:
        """The part of the screen windows may use (without panels)."""

    def activate_window(self, wid: int) -> bool:
        """Raise and focus; True once the window manager reports it active."""

    def move_resize_window(self, wid: int, frame: dict[str, int]) -> dict[str, Any] | None:
        """Place the window's outer frame at these bounds; return the window as it settled (None if gone)."""

    def set_window_state(self, wid: int, state: str) -> None:
        """maximized | minimized | fullscreen | above | normal."""

    def close_window(self, wid: int) -> None:
        """Ask the app to close the window (like its close button)."""

    # ---- input -------------------------------------------------------------------------------
    def click(self, x: int, y: int, button: str, count: int, modifiers: list[str]) -> None: ...

    def drag(self, x1: int, y1: int, x2: int, y2: int, button: str) -> None: ...

    def scroll(self, x: int, y: int, dx: int, dy: int) -> None: ...

    def type_text(self, text: str) -> None: ...

    def chord(self, keys: list[str]) -> None:
        """Press keys in order, release in reverse: ['ctrl', 'shift', 't']."""

    def pointer(self) -> tuple[int, int]: ...

    # ---- recording ---------------------------------------------------------------------------
    def record_start(self, sink: Callable[[dict[str, Any]], None]) -> None:
        """Capture the input that happens on the display (on a thread of its own) and hand each event to `sink` in
        order: {kind: key, down, key, chars, modifier} | {kind: button, down, button, x, y} | {kind: tool, active}
        (see bridge/desktop/x11/record.py). Returns once capturing runs."""

    def record_stop(self) -> None:
        """Stop capturing; every event captured so far has reached the sink when this returns."""

    def mark_tool_input(self) -> None:
        """Toggle 'the bridge's own input' in a running capture (called before and after a tool acts), so a
        recording keeps only the human's input."""

    def watch_hands(self, on_human: Callable[[str], None]) -> None:
        """Watch the display for input the bridge did not send (the human's) and call on_human('pointer' | 'button'
        | 'key', or 'pointer or key' where the compositor does not say which) for it, from a thread of its own, until stop(). The bridge's own input is what mark_tool_input
        brackets."""

    def window_at(self, x: int, y: int) -> dict[str, Any] | None:
        """The topmost visible window whose frame holds the point."""

    # ---- screen ------------------------------------------------------------------------------
    def screenshot(self, region: dict[str, int] | None) -> Shot: ...

    # ---- accessibility -----------------------------------------------------------------------
    def accessible_pids(self) -> set[int]:
        """Processes that expose an accessibility tree."""

    def elements(self, *, pid: int | None, window: dict[str, Any] | None, within: str | None, depth: int,
                 max_nodes: int, include_hidden: bool, full: bool) -> tuple[list[dict[str, Any]], bool]:
        """Nodes in tree order with a `depth` key, and whether max_nodes cut the walk short. `full` adds bounds,
        actions and values (slower)."""

    def candidates(self, *, pid: int | None, window: dict[str, Any] | None, within: str | None,
                   roles: list[str] | None) -> list[dict[str, Any]]:
        """Showing nodes (ref, role, name, states) of these roles (normalized, e.g. 'pushbutton'; None = any) in tree
        order: what a selector is matched against. Cheaper than `elements` where the toolkit can filter."""

    def element(self, ref: str) -> dict[str, Any]:
        """A fresh full node for a ref; DesktopError(code='stale_ref') once its element is gone."""

    def element_at(self, window: dict[str, Any], x: int, y: int) -> dict[str, Any] | None:
        """Hit test: {node, ancestors} for the deepest showing element of the window under the point, or None."""

    def focused_element(self, window: dict[str, Any]) -> dict[str, Any] | None:
        """The full node that has keyboard focus in the window, or None."""

    def element_action(self, ref: str, prefer: Iterable[str]) -> str:
        """Run the element's accessible action (the first of `prefer` it has); return the action's name."""

    def element_focus(self, ref: str) -> bool: ...

    def element_set_text(self, ref: str, text: str) -> bool: ...

    # ---- launch ------------------------------------------------------------------------------
    def launch(self, argv: list[str], allow: list[str], cwd: str | None) -> dict[str, Any]:
        """Start an allowlisted program (argv, never a shell) as the bridge's child; return its app row."""

    def temp_dir(self, prefix: str) -> str:
        """A private directory removed when the desktop stops (e.g. a browser profile)."""

    def apps(self) -> list[dict[str, Any]]: ...

    def app_log(self, pid: int) -> str: ...

    def stop_app(self, pid: int) -> dict[str, Any] | None:
        """Terminate a launched app (and its children); None if the bridge did not launch it."""

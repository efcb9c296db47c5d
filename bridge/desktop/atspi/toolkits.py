"""Where toolkits answer AT-SPI differently, made alike in one place: states, names and coordinates.

Each rule below names the toolkit and version that showed the quirk. GTK 3 (3.24) is the reference: it reports
`showing`/`enabled` and screen coordinates. Runs inside the AT-SPI helper (bridge/desktop/atspi/host.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import gi

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi, GLib

HIDDEN = -2147483648  # extents AT-SPI reports for nodes that are not laid out
NOISE_STATES = {"opaque", "single-line", "vertical", "horizontal", "selectable-text", "has-tooltip", "resizable",
                "stale", "supports-autocompletion", "truncated", "has-popup"}
TYPE_NAME = re.compile(r"(Gtk|Adw)[A-Z][A-Za-z]+")


@dataclass(frozen=True)
class Toolkit:
    name: str  # as the app reports it: 'GTK' (4), 'gtk' (3), 'Qt'
    version: str

    @property
    def gtk4(self) -> bool:
        return self.name.lower() == "gtk" and self.version.startswith("4.")

    @property
    def qt(self) -> bool:
        return self.name.lower() == "qt"


UNKNOWN = Toolkit("", "")


def toolkit_of(app: Any) -> Toolkit:
    try:
        return Toolkit(app.get_toolkit_name() or "", app.get_toolkit_version() or "")
    except GLib.Error:
        return UNKNOWN


@dataclass
class Frame:
    """Where one top-level's nodes are: its toolkit, the scale and offset that turn its extents into screen
    coordinates (screen = extent * scale + offset), and its own area on screen (what a GTK 4 node must overlap to
    count as showing)."""

    toolkit: Toolkit = UNKNOWN
    dx: int = 0
    dy: int = 0
    scale: int = 1  # device pixels per toolkit pixel
    area: dict[str, int] | None = None
    _shown: dict[int, bool] = field(default_factory=dict)


def raw_bounds(acc: Any, frame: Frame) -> dict[str, int] | None:
    try:
        if "Component" not in acc.get_interfaces():
            return None
        e = acc.get_extents(Atspi.CoordType.SCREEN)
    except GLib.Error:
        return None
    if e.x == HIDDEN or e.y == HIDDEN:
        return None
    k = frame.scale
    return {"x": e.x * k + frame.dx, "y": e.y * k + frame.dy, "width": e.width * k, "height": e.height * k}


def frame_for(top: Any, toolkit: Toolkit, window: dict[str, Any] | None) -> Frame:
    """The frame of a top-level accessible shown in an X window (None: unknown, extents taken as they come).

    GTK 4.8 (Debian 12: gnome-calculator 43, gnome-text-editor 43) reports every node's extents relative to its
    top-level, in SCREEN coordinates as in WINDOW ones (a button at 16,385 in a window at 457,164; the top-level
    itself at 0,0): a top-level that says it sits at 0,0 in both coordinate types while its X window does not is read
    as window-relative, and the window's client origin is added. GTK 3 reports WINDOW extents of its frame relative
    to the client area (-1,-20) and Qt 6.4 reports screen positions in both, so neither is taken for relative."""
    frame = Frame(toolkit)
    try:
        if "Component" not in top.get_interfaces():
            return frame
        s = top.get_extents(Atspi.CoordType.SCREEN)
        w = top.get_extents(Atspi.CoordType.WINDOW)
    except GLib.Error:
        return frame
    if window is not None and s.width > 0:
        frame.scale = scale_of(window, s.width)
    if window is not None and frame.scale > 1:
        # Scaled, each toolkit maps its own pixels to the screen differently (GTK 3 divides screen positions by the
        # scale; Qt 6.4 keeps each monitor's origin and divides the offset from it): measure from the top-level,
        # whose position on screen the X window gives (its frame for GTK 3, its client area for Qt and GTK 4).
        k = frame.scale
        anchor = min((window["frame"], window["bounds"]), key=lambda a: abs(a["width"] - s.width * k))
        frame.dx, frame.dy = anchor["x"] - s.x * k, anchor["y"] - s.y * k
    elif window is not None and (s.x, s.y) == (w.x, w.y) == (0, 0):
        frame.dx, frame.dy = window["bounds"]["x"], window["bounds"]["y"]
    if s.x != HIDDEN:
        k = frame.scale
        frame.area = {"x": s.x * k + frame.dx, "y": s.y * k + frame.dy, "width": s.width * k, "height": s.height * k}
    return frame


def scale_of(window: dict[str, Any], width: int) -> int:
    """The scale between a top-level's extents and its X window: 2 when the window is twice as wide.

    GTK 3.24, GTK 4.8 and Qt 6.4 all report extents in their own (logical) pixels when told to scale (GDK_SCALE=2,
    QT_SCALE_FACTOR=2): a GTK 3 entry at 120,36 sits at 240,72 on screen, 800 px wide for 400. Whole scales only
    (GTK's are)."""
    ratio = max(window["bounds"]["width"], window["frame"]["width"]) / width
    k = round(ratio)
    return k if k >= 2 and abs(ratio - k) < 0.1 * k else 1


def _overlaps(b: dict[str, int] | None, area: dict[str, int] | None) -> bool:
    if not b or b["width"] <= 0 or b["height"] <= 0:
        return False
    if area is None:
        return True
    return b["x"] < area["x"] + area["width"] and area["x"] < b["x"] + b["width"] and \
        b["y"] < area["y"] + area["height"] and area["y"] < b["y"] + b["height"]


def states(acc: Any, frame: Frame) -> list[str]:
    """The node's states, with `enabled` and `showing` as GTK 3 would report them."""
    try:
        raw = [s for s in (Atspi.StateType(x).value_nick for x in acc.get_state_set().get_states())
               if s not in NOISE_STATES]
    except GLib.Error:
        return ["defunct"]
    have = set(raw)
    # GTK 4.8 reports `sensitive` and never `enabled`: in GTK 3 and Qt 6 the two come together.
    if "sensitive" in have and "enabled" not in have:
        raw.append("enabled")
    # GTK 4.8 reports `visible` but `showing` only on the top-level: a visible node with a size that overlaps its
    # top-level's area counts as showing (GTK 3's `visible` without `showing` does mean hidden, so GTK 4 only).
    if frame.toolkit.gtk4 and "showing" not in have and "visible" in have and \
            _overlaps(raw_bounds(acc, frame), frame.area):
        raw.append("showing")
    # Qt 6.4 leaves the items of a closed combo box's popup list `showing` (at 0,0, 707 px wide) under a list that
    # is not: a `transient` node shows only if its parent does.
    if frame.toolkit.qt and "transient" in have and "showing" in have and not _parent_showing(acc, frame):
        raw.remove("showing")
    return raw


def worth_walking(acc: Any, frame: Frame) -> bool:
    """Whether a walk goes into this node: showing, or for GTK 4 just `visible` (judging its bounds too would cost
    an extents call per node; nodes that turn out not to show are left out where they are listed)."""
    if not frame.toolkit.gtk4:
        return "showing" in states(acc, frame)
    try:
        return acc.get_state_set().contains(Atspi.StateType.VISIBLE)
    except GLib.Error:
        return False


def _parent_showing(acc: Any, frame: Frame) -> bool:
    try:
        parent = acc.get_parent()
        if parent is None:
            return True
        key = hash(parent)
        if key not in frame._shown:
            frame._shown[key] = parent.get_state_set().contains(Atspi.StateType.SHOWING)
        return frame._shown[key]
    except GLib.Error:
        return False


def name(acc: Any, frame: Frame) -> str:
    """The accessible name, without GTK 4's doubling and type-name fallbacks."""
    try:
        n = acc.get_name() or ""
    except GLib.Error:
        return ""
    if not frame.toolkit.gtk4 or not n:
        return n
    # GTK 4.8 names a button by its label twice over ('1 1', '× ×', 'mod mod'): halve it when its label says so.
    half = len(n) // 2
    if len(n) % 2 == 1 and n[half] == " " and n[:half] == n[half + 1:] and _label_of(acc) == n[:half]:
        return n[:half]
    # GTK 4.8 falls back to the widget's type name ('GtkButton' for the π button, 'AdwGizmo', 'GtkMenuButton'):
    # that is no name; a button whose only content is a label takes the label's text, as in GTK 3.
    if TYPE_NAME.fullmatch(n):
        return _label_of(acc) or ""
    return n


def _label_of(acc: Any) -> str | None:
    try:
        if acc.get_child_count() != 1:
            return None
        kid = acc.get_child_at_index(0)
        if kid is None or kid.get_role() != Atspi.Role.LABEL:
            return None
        return kid.get_name() or None
    except GLib.Error:
        return None

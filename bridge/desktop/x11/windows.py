"""Windows on an X11 display through EWMH, by hand with python-xlib: list, activate, move/resize, state, close.

Window ids are reused as soon as an app exits, so nothing here caches by id: every call reads the display afresh, and
a window that vanishes mid-read (BadWindow) is simply left out.
"""

from __future__ import annotations

import time
from typing import Any

from Xlib import X, Xatom
from Xlib import display as xdisplay
from Xlib import error as xerror
from Xlib.protocol import event as xevent


STATE_NAMES = {
    "_NET_WM_STATE_MAXIMIZED_VERT": "maximized_vert", "_NET_WM_STATE_MAXIMIZED_HORZ": "maximized_horz",
    "_NET_WM_STATE_HIDDEN": "minimized", "_NET_WM_STATE_FULLSCREEN": "fullscreen", "_NET_WM_STATE_ABOVE": "above",
    "_NET_WM_STATE_BELOW": "below", "_NET_WM_STATE_STICKY": "sticky", "_NET_WM_STATE_SHADED": "shaded",
    "_NET_WM_STATE_MODAL": "modal", "_NET_WM_STATE_DEMANDS_ATTENTION": "demands_attention",
    "_NET_WM_STATE_SKIP_TASKBAR": "skip_taskbar",
}
_XERRORS = (xerror.BadWindow, xerror.BadDrawable, xerror.BadMatch, xerror.BadValue, xerror.XError)


class Windows:
    """EWMH reads and requests on one display connection (use it from one thread)."""

    def __init__(self, d: xdisplay.Display) -> None:
        self.d = d
        self.root = d.screen().root
        self._atoms: dict[str, int] = {}
        self._names: dict[int, str] = {}
        self._xres = d.has_extension("X-Resource")

    def atom(self, name: str) -> int:
        if name not in self._atoms:
            self._atoms[name] = self.d.intern_atom(name)
        return self._atoms[name]

    def atom_name(self, atom: int) -> str:
        if atom not in self._names:
            self._names[atom] = self.d.get_atom_name(atom)
        return self._names[atom]

    def _prop(self, win: Any, name: str, type_: int = X.AnyPropertyType) -> Any:
        try:
            p = win.get_full_property(self.atom(name), type_)
        except _XERRORS:
            return None
        return p.value if p is not None else None

    # ---- reading ---------------------------------------------------------------------------

    def screen_size(self) -> tuple[int, int]:
        s = self.d.screen()
        return s.width_in_pixels, s.height_in_pixels

    def work_area(self) -> tuple[int, int, int, int]:
        v = self._prop(self.root, "_NET_WORKAREA")
        if v is not None and len(v) >= 4:
            return int(v[0]), int(v[1]), int(v[2]), int(v[3])
        w, h = self.screen_size()
        return 0, 0, w, h

    def wm_name(self) -> str | None:
        check = self._prop(self.root, "_NET_SUPPORTING_WM_CHECK")
        if not check:
            return None
        name = self._prop(self.d.create_resource_object("window", int(check[0])), "_NET_WM_NAME")
        return _text(name) if name is not None else "unknown"

    def xft_scale(self) -> float:
        """Xft.dpi / 96 from the root window's resources (what GTK and Qt read on X11), 1.0 when unset."""
        res = self._prop(self.root, "RESOURCE_MANAGER", Xatom.STRING)
        for line in (_text(res) if res is not None else "").splitlines():
            key, _, value = line.partition(":")
            if key.strip() == "Xft.dpi":
                try:
                    return round(float(value) / 96, 2)
                except ValueError:
                    break
        return 1.0

    def stacking(self) -> list[int]:
        """Managed client windows, bottom to top."""
        v = self._prop(self.root, "_NET_CLIENT_LIST_STACKING")
        if v is None:
            v = self._prop(self.root, "_NET_CLIENT_LIST")
        return [int(w) for w in (v or [])]

    def active(self) -> int | None:
        v = self._prop(self.root, "_NET_ACTIVE_WINDOW")
        return int(v[0]) if v is not None and len(v) and v[0] else None

    def info(self, wid: int, z: int | None = None, active: int | None = None) -> dict[str, Any] | None:
        """One window's facts, or None if it is gone."""
        win = self.d.create_resource_object("window", wid)
        try:
            attrs = win.get_attributes()
            geo = win.get_geometry()
            pos = win.translate_coords(self.root, 0, 0)
        except _XERRORS:
            return None
        title = self._prop(win, "_NET_WM_NAME")
        if title is None:
            title = self._prop(win, "WM_NAME")
        cls = self._prop(win, "WM_CLASS", Xatom.STRING)
        pid = self._prop(win, "_NET_WM_PID", Xatom.CARDINAL)
        if pid is None or not len(pid):
            pid = self._xres_pid(wid)
        states = [STATE_NAMES.get(self.atom_name(a), self.atom_name(a).lower())
                  for a in (self._prop(win, "_NET_WM_STATE", Xatom.ATOM) or [])]
        if "maximized_vert" in states and "maximized_horz" in states:
            states = [s for s in states if not s.startswith("maximized_")] + ["maximized"]
        wtype = self._prop(win, "_NET_WM_WINDOW_TYPE", Xatom.ATOM)
        extents = self._prop(win, "_NET_FRAME_EXTENTS", Xatom.CARDINAL)
        left, right, top, bottom = (int(e) for e in extents) if extents is not None and len(extents) == 4 else (0,) * 4
        x, y = -pos.x, -pos.y
        transient = self._prop(win, "WM_TRANSIENT_FOR", Xatom.WINDOW)
        cls_parts = _text(cls).split("\0") if cls is not None else []
        out: dict[str, Any] = {
            "id": wid,
            "pid": int(pid[0]) if pid is not None and len(pid) else None,
            "title": _text(title) if title is not None else "",
            "class": cls_parts[1] if len(cls_parts) > 1 else (cls_parts[0] if cls_parts else None),
            "bounds": {"x": x, "y": y, "width": geo.width, "height": geo.height},
            "frame": {"x": x - left, "y": y - top, "width": geo.width + left + right,
                      "height": geo.height + top + bottom},
            "active": wid == (active if active is not None else self.active()),
            "state": states or ["normal"],
            "mapped": attrs.map_state == X.IsViewable,
            "type": (self.atom_name(wtype[0]).replace("_NET_WM_WINDOW_TYPE_", "").lower()
                     if wtype is not None and len(wtype) else "normal"),
        }
        if transient is not None and len(transient) and transient[0]:
            out["transientFor"] = int(transient[0])
        if z is not None:
            out["z"] = z
        return out

    def _xres_pid(self, wid: int) -> list[int] | None:
        """The pid of the client that created the window, from the X server itself (X-Resource), for toolkits that
        set no _NET_WM_PID (Tk, xterm)."""
        if not self._xres:
            return None
        try:
            from Xlib.ext import res

            reply = self.d.res_query_client_ids([{"client": wid, "mask": res.LocalClientPIDMask}])
        except _XERRORS:
            return None
        for item in reply.ids:
            if item.spec.mask & res.LocalClientPIDMask and item.value:
                return [int(item.value[0])]
        return None

    def list(self) -> list[dict[str, Any]]:
        """Every managed window, topmost first; z counts from 0 at the top."""
        order = self.stacking()
        active = self.active()
        out = []
        for z, wid in enumerate(reversed(order)):
            info = self.info(wid, z, active)
            if info is not None:
                out.append(info)
        return out

    def top_at(self, x: int, y: int, windows: list[dict[str, Any]] | None = None) -> dict[str, Any] | None:
        """The topmost visible window whose frame holds the point."""
        for w in windows if windows is not None else self.list():
            f = w["frame"]
            if w["mapped"] and "minimized" not in w["state"] and \
                    f["x"] <= x < f["x"] + f["width"] and f["y"] <= y < f["y"] + f["height"]:
                return w
        return None

    # ---- requests --------------------------------------------------------------------------

    def _client_message(self, wid: int, name: str, data: list[int]) -> None:
        data = (data + [0] * 5)[:5]
        ev = xevent.ClientMessage(window=self.d.create_resource_object("window", wid), client_type=self.atom(name),
                                  data=(32, data))
        self.root.send_event(ev, event_mask=X.SubstructureRedirectMask | X.SubstructureNotifyMask)
        self.d.flush()

    def _wait(self, check: Any, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while True:
            if check():
                return True
            if time.monotonic() > deadline:
                return False
            time.sleep(0.005)

    def activate(self, wid: int, timeout: float = 2.0) -> bool:
        """Ask the window manager to raise and focus the window (restoring it if minimized)."""
        self._client_message(wid, "_NET_ACTIVE_WINDOW", [2, X.CurrentTime, 0])

        def done() -> bool:  # active, and (coming back from minimized) shown again
            info = self.info(wid)
            return info is None or (info["active"] and "minimized" not in info["state"] and info["mapped"])

        return self._wait(done, timeout)

    def _settle(self, wid: int, quiet: float = 0.06, timeout: float = 1.0) -> None:
        """Wait until the window's geometry stops changing (the WM sets a state before the app has resized)."""
        def geometry() -> Any:
            info = self.info(wid)
            return info and (info["frame"], info["bounds"])

        last, since, end = geometry(), time.monotonic(), time.monotonic() + timeout
        while time.monotonic() < end:
            time.sleep(0.01)
            now = geometry()
            if now != last:
                last, since = now, time.monotonic()
            elif time.monotonic() - since >= quiet:
                return

    def set_state(self, wid: int, state: str, timeout: float = 2.0) -> None:
        """maximized | minimized | fullscreen | above | normal (undo the others)."""
        add, remove = 1, 0
        maxi = [self.atom("_NET_WM_STATE_MAXIMIZED_VERT"), self.atom("_NET_WM_STATE_MAXIMIZED_HORZ")]
        if state == "minimized":
            ev = xevent.ClientMessage(window=self.d.create_resource_object("window", wid),
                                      client_type=self.atom("WM_CHANGE_STATE"), data=(32, [3, 0, 0, 0, 0]))
            self.root.send_event(ev, event_mask=X.SubstructureRedirectMask | X.SubstructureNotifyMask)
            self.d.flush()
            self._wait(lambda: "minimized" in ((self.info(wid) or {}).get("state") or ["minimized"]), timeout)
            return
        if state == "maximized":
            self._client_message(wid, "_NET_WM_STATE", [add, *maxi, 2])
            self._wait(lambda: "maximized" in ((self.info(wid) or {}).get("state") or ["maximized"]), timeout)
            self._settle(wid)
            return
        if state in ("fullscreen", "above"):
            self._client_message(wid, "_NET_WM_STATE", [add, self.atom(f"_NET_WM_STATE_{state.upper()}"), 0, 2])
            self._wait(lambda: state in ((self.info(wid) or {}).get("state") or [state]), timeout)
            self._settle(wid)
            return
        # normal: leave fullscreen/maximized/above and come back from minimized
        for atoms in ([self.atom("_NET_WM_STATE_FULLSCREEN"), 0], maxi, [self.atom("_NET_WM_STATE_ABOVE"), 0]):
            self._client_message(wid, "_NET_WM_STATE", [remove, *atoms, 2])
        info = self.info(wid)
        if info and "minimized" in info["state"]:
            self.activate(wid, timeout)
        self._wait(lambda: set((self.info(wid) or {}).get("state") or ["normal"]) <= {"normal", "modal",
                                                                                        "demands_attention",
                                                                                        "skip_taskbar", "sticky"},
                   timeout)
        self._settle(wid)

    def move_resize(self, wid: int, frame: dict[str, int], timeout: float = 2.0) -> dict[str, Any] | None:
        """Place the window so its outer frame has these bounds; returns its facts once it settled there (or the
        nearest it got: apps may keep a minimum size)."""
        info = self.info(wid)
        if info is None:
            return None
        if any(s in info["state"] for s in ("maximized", "maximized_vert", "maximized_horz", "fullscreen")):
            self.set_state(wid, "normal", timeout)
            info = self.info(wid) or info
        extra_w = info["frame"]["width"] - info["bounds"]["width"]
        extra_h = info["frame"]["height"] - info["bounds"]["height"]
        width = max(1, frame["width"] - extra_w)
        height = max(1, frame["height"] - extra_h)
        flags = (1 << 8) | (1 << 9) | (1 << 10) | (1 << 11) | (2 << 12) | X.NorthWestGravity
        self._client_message(wid, "_NET_MOVERESIZE_WINDOW", [flags, frame["x"], frame["y"], width, height])

        def geometry() -> tuple[int, ...] | None:
            now = self.info(wid)
            if now is None:
                return None
            return (now["frame"]["x"], now["frame"]["y"], now["bounds"]["width"], now["bounds"]["height"])

        wanted = (frame["x"], frame["y"], width, height)
        initial = last = geometry()
        changed_at = started = time.monotonic()
        while True:
            now = geometry()
            t = time.monotonic()
            if now is None or now == wanted:
                break
            if now != last:
                last, changed_at = now, t
            # the app answered with another size (a minimum size) and holds it; or it ignored the request
            if (now != initial and t - changed_at > 0.3) or (now == initial and t - started > 1.0) \
                    or t - started > timeout:
                break
            time.sleep(0.005)
        return self.info(wid)

    def close(self, wid: int) -> None:
        """Ask politely (like the title bar's close button): the app may show a dialog instead of closing."""
        self._client_message(wid, "_NET_CLOSE_WINDOW", [X.CurrentTime, 2])


def _text(value: Any) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)

"""The Wayland (wlroots) backend: a private headless sway or the sway session the bridge runs in. Windows from the
compositor's tree, pointer input through sway's seat commands, keys through `wtype` (virtual keyboard), screenshots
through `grim` (screencopy), AT-SPI trees placed with the window geometry from IPC."""

from __future__ import annotations

import contextlib
import importlib.util
import os
import struct
import subprocess
import tempfile
from collections.abc import Callable
from typing import Any

from bridge.desktop import ocr
from bridge.desktop.apps import Apps, LaunchedApps
from bridge.desktop.atspi.elements import AtspiElements
from bridge.desktop.backend import Shot
from bridge.desktop.errors import DesktopError
from bridge.desktop.keyboard.keys import KEY_ALIASES, MODIFIERS
from bridge.desktop.wayland import session as sessions
from bridge.desktop.wayland.ipc import GET_SEATS, Ipc

BUTTONS = {"left": "button1", "middle": "button2", "right": "button3"}
#: desktop key names -> wtype's modifier names
WTYPE_MODIFIERS = {"ctrl": "ctrl", "control": "ctrl", "shift": "shift", "alt": "alt", "option": "alt",
                   "super": "logo", "meta": "logo", "win": "logo", "cmd": "logo", "command": "logo", "altgr": "altgr"}


def parse_size(text: str) -> tuple[int, int]:
    w, h = (int(n) for n in text.lower().split("x")[:2])
    return w, h


def png_size(png: bytes) -> tuple[int, int]:
    if png[:8] != b"\x89PNG\r\n\x1a\n":
        raise DesktopError("grim did not write a PNG.", code="desktop_error")
    return struct.unpack(">II", png[16:24])


def keysym_name(key: str) -> str:
    """A key name as wtype's -k takes it (an XKB keysym name): 'Return', 'F5', 'a', 'plus'."""
    low = key.lower()
    if low in KEY_ALIASES:
        return KEY_ALIASES[low]
    if len(key) == 1:
        if key.isalnum() and key.isascii():
            return key
        from bridge.desktop.keyboard.keysyms import keysym_name as named

        code = ord(key)
        sym = code if 0x20 <= code <= 0xFF else 0x01000000 | code
        return named(sym) or f"U{code:04X}"
    return key


HUMAN_INPUT = ("watched: the compositor's idle notifications (seat input the bridge did not send, after a 5 ms "
               "pause, is the human's)")


#: Why desktop_start_recording refuses here (measured on sway 1.7 with GTK 3: docs/desktop.md, "Wayland (wlroots)").
RECORDING_GAP = (
    "Recording the human's input is not available on the Wayland backend: no Wayland client sees another client's "
    "input or where the pointer is, and the accessibility events that remain cannot stand in for it: typing shows "
    "(text-changed, per field), but a click does not (a second click on a focused button sends no event at all; "
    "a first one looks the same as moving focus with Tab). It needs the compositor's help (an input-capture "
    "protocol, libei) or libinput access. Record on the X11 backend (desktop_backend=x11, e.g. the private Xvfb "
    "desktop, or an XWayland app with DISPLAY).")


class WaylandBackend(AtspiElements, LaunchedApps):
    name = "wayland"

    def __init__(self, settings: Any) -> None:
        self.settings = settings
        self.session: Any = None
        self.user: tuple[int, int] | None = None
        self.ipc: Ipc | None = None
        self._a11y: Any = None
        self._apps: Apps | None = None
        self._pointer = (0, 0)
        self.devices: Any = None  # the seat's pointer and keyboard (a headless sway has no input device of its own)
        self._hands: Any = None  # the watch of the human's hands (attached sessions)
        self._acting = False
        self._temp: list[str] = []

    # ---- lifecycle ---------------------------------------------------------------------------

    def start(self) -> None:
        if self.settings.desktop_display == "private":
            self.session, self.user = sessions.start_private(parse_size(self.settings.desktop_size),
                                                             self.settings.desktop_user)
        else:
            self.session = sessions.attach(self.settings.desktop_display)
        try:
            self.ipc = Ipc(self.session.env["SWAYSOCK"])
            self.ipc.version()
            self._apps = Apps(self.session.env, str(self.session.tmp) if self.session.tmp else None, self.user)
            self.a11y().spawn()
            w, h = self.screen_size()
            self._pointer = (w // 2, h // 2)
            from bridge.desktop.wayland.devices import VirtualDevices

            env = self.session.env
            seats = self.ipc.call(GET_SEATS)
            if self.session.private or not all(s.get("capabilities", 0) & 3 == 3 for s in seats):
                # a seat without a pointer and a keyboard (a headless compositor) gets virtual ones; a real
                # session's seat has devices of its own
                self.devices = VirtualDevices(env.get("XDG_RUNTIME_DIR", ""), env["WAYLAND_DISPLAY"], (w, h))
        except BaseException:
            self.stop()
            raise

    def stop(self) -> None:
        self.stop_parts()
        devices, self.devices = self.devices, None
        if devices is not None:
            devices.close()
        if self.ipc is not None:
            with contextlib.suppress(OSError):
                self.ipc.close()
            self.ipc = None
        if self.session is not None:
            self.session.stop()
            self.session = None

    def alive(self) -> bool:
        return self.session is not None and self.session.alive()

    def _ipc(self) -> Ipc:
        if self.ipc is None:
            raise DesktopError("The desktop is not running.", code="desktop_stopped")
        return self.ipc

    def _output(self) -> dict[str, Any]:
        outs = [o for o in self._ipc().outputs() if o.get("active")]
        if not outs:
            raise DesktopError("The compositor has no active output.", code="desktop_error")
        return outs[0]

    def screen_size(self) -> tuple[int, int]:
        outs = [o["rect"] for o in self._ipc().outputs() if o.get("active")]
        return (max(r["x"] + r["width"] for r in outs), max(r["y"] + r["height"] for r in outs)) if outs else (0, 0)

    def info(self) -> dict[str, Any]:
        w, h = self.screen_size()
        version = self._ipc().version()
        return {"display": self.session.display, "private": self.session.private, "screen": {"width": w, "height": h},
                "scale": float(self._output().get("scale") or 1.0),
                "monitors": [{"name": o["name"], **o["rect"]} for o in self._ipc().outputs() if o.get("active")],
                "windowManager": f"sway {version.get('human_readable', '')}".strip(),
                "accessibility": importlib.util.find_spec("gi") is not None, "ocr": ocr.available(),
                "input": "sway seat + wtype",
                "humanInput": HUMAN_INPUT if self._hands is not None else "not watched (a private desktop)"}

    # ---- windows -----------------------------------------------------------------------------

    def windows(self) -> list[dict[str, Any]]:
        """Every view in the compositor's tree, the focused one first, floating ones before tiled ones."""
        found: list[dict[str, Any]] = []

        def walk(node: dict[str, Any], floating: bool, workspace: str | None) -> None:
            if node.get("type") == "workspace":
                workspace = node.get("name")
            if node.get("pid") and node.get("type") in ("con", "floating_con"):
                rect, inner = node["rect"], node.get("window_rect") or {"x": 0, "y": 0, **node["rect"]}
                state = []
                if node.get("fullscreen_mode"):
                    state.append("fullscreen")
                if floating:
                    state.append("above")
                if workspace == "__i3_scratch":
                    state.append("minimized")
                found.append({
                    "id": node["id"], "pid": node["pid"], "title": node.get("name") or "",
                    "class": node.get("app_id") or (node.get("window_properties") or {}).get("class"),
                    "bounds": {"x": rect["x"] + inner["x"], "y": rect["y"] + inner["y"], "width": inner["width"],
                               "height": inner["height"]},
                    "frame": {k: rect[k] for k in ("x", "y", "width", "height")}, "active": bool(node.get("focused")),
                    "state": state, "mapped": bool(node.get("visible")), "type": "normal", "z": 0,
                    "_floating": floating})
            for child in node.get("nodes", []):
                walk(child, floating, workspace)
            for child in node.get("floating_nodes", []):
                walk(child, True, workspace)

        walk(self._ipc().tree(), False, None)
        found.sort(key=lambda w: (not w["active"], not w.pop("_floating"), not w["mapped"]))
        for z, w in enumerate(found):
            w["z"] = z
        return found

    def work_area(self) -> dict[str, int]:
        rect = self._output()["rect"]
        return {k: rect[k] for k in ("x", "y", "width", "height")}

    def _find(self, wid: int) -> dict[str, Any] | None:
        return next((w for w in self.windows() if w["id"] == wid), None)

    def activate_window(self, wid: int) -> bool:
        self._ipc().command(f"[con_id={int(wid)}] focus")
        w = self._find(wid)
        return bool(w and w["active"])

    def move_resize_window(self, wid: int, frame: dict[str, int]) -> dict[str, Any] | None:
        """Float the window (a tiled one has no position of its own) and place it."""
        c = f"[con_id={int(wid)}]"
        self._ipc().command(f"{c} floating enable; {c} resize set {int(frame['width'])} px {int(frame['height'])} px;"
                            f" {c} move position {int(frame['x'])} px {int(frame['y'])} px")
        return self._find(wid)

    def set_window_state(self, wid: int, state: str) -> None:
        c = f"[con_id={int(wid)}]"
        commands = {"fullscreen": f"{c} fullscreen enable", "above": f"{c} floating enable",
                    "minimized": f"{c} move scratchpad",
                    # tiled is sway's maximized: the window fills what its workspace gives it
                    "maximized": f"{c} fullscreen disable; {c} floating disable",
                    "normal": f"{c} fullscreen disable; {c} floating disable"}
        self._ipc().command(commands[state])

    def close_window(self, wid: int) -> None:
        self._ipc().command(f"[con_id={int(wid)}] kill")

    def window_at(self, x: int, y: int) -> dict[str, Any] | None:
        for w in self.windows():
            f = w["frame"]
            if w["mapped"] and f["x"] <= x < f["x"] + f["width"] and f["y"] <= y < f["y"] + f["height"]:
                return w
        return None

    # ---- input -------------------------------------------------------------------------------

    def _cursor(self, x: int, y: int) -> None:
        self._ipc().command(f"seat - cursor set {int(x)} {int(y)}")
        self._pointer = (int(x), int(y))

    def click(self, x: int, y: int, button: str, count: int, modifiers: list[str]) -> None:
        held = [WTYPE_MODIFIERS.get(m.lower()) for m in modifiers]
        if None in held or "altgr" in held:
            raise DesktopError(f"Unknown modifier in {modifiers}: use ctrl, shift, alt or super.",
                               code="invalid_argument")
        if held and self.devices is None:
            raise DesktopError("A click with modifiers held needs the bridge's virtual keyboard, which only the "
                               "private Wayland desktop has (wtype holds modifiers only around its own keys). Click "
                               "without them, or use desktop_hotkey.", code="not_available")
        self._cursor(x, y)
        b = BUTTONS[button]
        if held:
            self.devices.hold(held, True)
            self.devices.sync()
        try:
            for _ in range(count):
                self._ipc().command(f"seat - cursor press {b}; seat - cursor release {b}")
        finally:
            if held:
                self.devices.hold(held, False)
                self.devices.sync()

    def drag(self, x1: int, y1: int, x2: int, y2: int, button: str) -> None:
        b = BUTTONS[button]
        self._cursor(x1, y1)
        self._ipc().command(f"seat - cursor press {b}")
        steps = 12
        for i in range(1, steps + 1):
            self._cursor(round(x1 + (x2 - x1) * i / steps), round(y1 + (y2 - y1) * i / steps))
        self._ipc().command(f"seat - cursor release {b}")

    def scroll(self, x: int, y: int, dx: int, dy: int) -> None:
        self._cursor(x, y)
        for amount, neg, pos in ((dy, "button4", "button5"), (dx, "button6", "button7")):
            for _ in range(abs(amount)):
                self._ipc().command(f"seat - cursor press {pos if amount > 0 else neg}")

    def _wtype(self, args: list[str]) -> None:
        try:
            out = subprocess.run(["wtype", *args], env=self.session.env, capture_output=True, timeout=30,
                                 user=self.user[0] if self.user else None, group=self.user[1] if self.user else None,
                                 extra_groups=[] if self.user else None)
        except FileNotFoundError:
            raise DesktopError(f"wtype is missing: {sessions.APT_HINT}", code="desktop_unavailable") from None
        if out.returncode != 0:
            raise DesktopError(f"wtype failed ({out.returncode}): {out.stderr.decode(errors='replace')[-400:]}. The "
                               "compositor must speak virtual-keyboard-unstable-v1 (sway and wlroots do).",
                               code="input_failed")

    def type_text(self, text: str) -> None:
        if text:
            self._wtype(["--", text])

    def chord(self, keys: list[str]) -> None:
        """Modifiers held with -M/-m, the other keys pressed and released in order (-P/-p)."""
        mods = [WTYPE_MODIFIERS[k.lower()] for k in keys if k.lower() in WTYPE_MODIFIERS]
        rest = [k for k in keys if k.lower() not in WTYPE_MODIFIERS and k.lower() not in MODIFIERS]
        if not rest:  # modifiers alone: pressed and released as keys (wtype's -M/-m send no key, -s 0 is refused)
            rest, mods = [MODIFIERS[k.lower()] for k in keys if k.lower() in MODIFIERS], []
        args: list[str] = []
        for m in mods:
            args += ["-M", m]
        for k in rest:
            args += ["-P", keysym_name(k)]
        for k in reversed(rest):
            args += ["-p", keysym_name(k)]
        for m in reversed(mods):
            args += ["-m", m]
        self._wtype(args)

    def pointer(self) -> tuple[int, int]:
        return self._pointer  # sway's IPC does not report the cursor: where the bridge last put it

    # ---- recording and the human's hands ----------------------------------------------------

    def record_start(self, sink: Callable[[dict[str, Any]], None]) -> None:
        raise DesktopError(RECORDING_GAP, code="not_available")

    def record_stop(self) -> None:
        return None

    def mark_tool_input(self) -> None:
        self._acting = not self._acting
        if self._hands is not None:
            self._hands.bracket(self._acting)

    def watch_hands(self, on_human: Callable[[str], None]) -> None:
        from bridge.desktop.wayland.hands import Hands

        env = self.session.env
        hands = Hands(env.get("XDG_RUNTIME_DIR", ""), env["WAYLAND_DISPLAY"], on_human)
        hands.start()
        self._hands = hands

    # ---- screen ------------------------------------------------------------------------------

    def screenshot(self, region: dict[str, int] | None) -> Shot:
        args = ["grim"]
        if region is not None:
            args += ["-g", f"{int(region['x'])},{int(region['y'])} {int(region['width'])}x{int(region['height'])}"]
        out = subprocess.run([*args, "-t", "png", "-l", "1", "-"], env=self.session.env, capture_output=True,
                             timeout=30)
        if out.returncode != 0:
            raise DesktopError(f"grim failed: {out.stderr.decode(errors='replace')[-400:]} (the compositor must speak "
                               "wlr-screencopy, as sway does).", code="desktop_error")
        w, h = png_size(out.stdout)
        origin = (int(region["x"]), int(region["y"])) if region else (0, 0)
        return Shot(out.stdout, w, h, origin, float(self._output().get("scale") or 1.0))

    # ---- accessibility (AT-SPI, boxes placed with the IPC's window geometry) -------------------

    def a11y(self) -> Any:
        if self._a11y is None:
            from bridge.desktop.atspi.client import AtspiClient

            if self.user is None:
                self._a11y = AtspiClient(self.session.env, self.session.log_path("atspi"))
            else:
                # apps of another user answer AT-SPI peer to peer only to that user: the helper runs as it, on
                # Debian's python3 (python3-gi) and a copy of its modules it can read
                python, root = sessions.helper_for(self.session.tmp, self.user)
                self._a11y = AtspiClient(self.session.env, self.session.log_path("atspi"), python=python, root=root,
                                         user=self.user)
        return self._a11y

    # ---- launch ------------------------------------------------------------------------------

    def temp_dir(self, prefix: str) -> str:
        path = tempfile.mkdtemp(prefix=prefix, dir=str(self.session.tmp) if self.session.tmp else None)
        if self.user:
            os.chown(path, *self.user)
        if not self.session.tmp:
            self._temp.append(path)
        return path

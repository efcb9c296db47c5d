"""A desktop backend over a tiny model of a desktop, for the in-memory tier: named by the desktop_backend setting as
`tests.inmemory.fake_desktop:FakeDesktop`, chosen once at start like x11 or wayland (bridge/desktop/__init__.py).

Three windows: "Notes" (a Title field that keeps at most TITLE_MAX characters, Save and Clear buttons, a Status label),
"Counter" (an Add button and a Count label) and "Legacy" (no accessibility tree, only text on screen, like Tk). Input
lands at once (`input_settle` 0); a screenshot is a small generated PNG whose words the fake knows (`Shot.words`).
`human_*` are the human's hands on the display: the watcher and a recording under way see them, the bridge's own
input (bracketed by mark_tool_input) they do not.
"""

from __future__ import annotations

import itertools
import shutil
import tempfile
import time
from collections.abc import Callable, Iterable
from typing import Any

from bridge.desktop.backend import Shot
from bridge.desktop.errors import DesktopError
from bridge.desktop.selectors import _norm
from tests.inmemory import fake_scene as scene
from tests.inmemory.fake_scene import SCREEN, TITLE_MAX, Node, Win, center, inside, png, under, walk

__all__ = ["FakeDesktop", "TITLE_MAX"]
FIRST_PID = 9_000_001  # above any pid_max: no real process has it


class FakeDesktop:
    """The backend contract (bridge/desktop/backend.py) over the scene (fake_scene.py); plain synchronous methods."""

    name = "fake"
    input_settle = 0.0

    def __init__(self, settings: Any) -> None:
        self.settings = settings
        self.started = False
        self.wins: list[Win] = []  # topmost first
        self.apps_: dict[int, dict[str, Any]] = {}
        self.input: list[tuple[Any, ...]] = []  # every pointer and key input the bridge sent, in order
        self.pointer_at = (0, 0)
        self.sink: Callable[[dict[str, Any]], None] | None = None
        self.tool_active = False
        self.on_human: Callable[[str], None] | None = None
        self._ids = itertools.count(0x400001)
        self._pids = itertools.count(FIRST_PID)
        self._refs = itertools.count(1)
        self._tmp = tempfile.mkdtemp(prefix="fake-desktop-")

    # ---- the model ------------------------------------------------------------------------------

    def _tree(self, root: Node) -> Node:
        for n in walk(root):
            n.ref = n.ref or f"fake:{next(self._refs)}"
        return root

    def _window(self, pid: int, title: str, cls: str, frame: tuple[int, int, int, int], root: Node | None,
                words: Iterable[str] = ()) -> Win:
        w = Win(next(self._ids), pid, title, cls, dict(zip(("x", "y", "width", "height"), frame)),
                self._tree(root) if root else None, list(words))
        self.wins.insert(0, w)
        return w

    def _app(self, argv: list[str]) -> dict[str, Any]:
        pid = next(self._pids)
        row = self.apps_[pid] = {"pid": pid, "argv": argv, "running": True, "startedAt": round(time.time(), 3)}
        return row

    def start(self) -> None:
        self.started = True
        self._window(self._app(["fake-counter"])["pid"], *scene.counter())
        self._window(self._app(["fake-notes"])["pid"], *scene.notes())
        legacy = next(self._pids)  # not the bridge's app: an "other" with windows
        self._window(legacy, "Legacy", "FakeTk", (100, 560, 400, 200), None, words=["Press", "Launch"])
        self.activate_window(self.by_title("Notes").id)

    def stop(self) -> None:
        self.started = False
        self.sink = self.on_human = None
        shutil.rmtree(self._tmp, ignore_errors=True)

    def info(self) -> dict[str, Any]:
        attached = self.settings.desktop_display != "private"
        return {"display": self.settings.desktop_display if attached else ":fake", "private": not attached,
                "screen": {"width": SCREEN[0], "height": SCREEN[1]}, "scale": 1.0, "windowManager": "fake",
                "accessibility": True, "ocr": True, "input": "fake"}

    def by_title(self, title: str) -> Win:
        return next(w for w in self.wins if w.title == title)

    def node(self, name: str, title: str = "Notes") -> Node:
        """The node of that name in a window (for a test to look at the model)."""
        return next(n for n in self.by_title(title).nodes() if n.name == name)

    def _row(self, w: Win, z: int) -> dict[str, Any]:
        return {"id": w.id, "pid": w.pid, "title": w.title, "class": w.cls, "bounds": w.client(),
                "frame": dict(w.frame), "active": z == 0 and w.showing, "state": sorted(w.state),
                "mapped": True, "type": "normal", "z": z}

    def _dict(self, w: Win, n: Node, depth: int = 0) -> dict[str, Any]:
        states = ["enabled", "sensitive", "visible"] + (["showing"] if w.showing else [])
        if n.role in ("push button", "text"):
            states.append("focusable")
        if n.editable:
            states.append("editable")
        if w.focus is n:
            states.append("focused")
        out: dict[str, Any] = {"ref": n.ref, "role": n.role, "name": n.name, "states": states, "pid": w.pid,
                               "window": w.id, "depth": depth, "bounds": w.bounds(n),
                               "actions": ["click"] if n.on_press else []}
        if n.value is not None:
            out["value"] = n.value
        return out

    def _find(self, ref: str) -> tuple[Win, Node]:
        for w in self.wins:
            for n in w.nodes():
                if n.ref == ref:
                    return w, n
        raise DesktopError(f"Ref {ref} is gone (its window closed). Find it again with desktop_find_elements.",
                           code="stale_ref")

    def _scope(self, pid: int | None, window: dict[str, Any] | None, within: str | None
               ) -> list[tuple[Win, Node, int]]:
        if within is not None:
            w, n = self._find(within)
            return [(w, n, 0)]
        return [(w, w.root, 0) for w in reversed(self.wins) if w.root is not None
                and (window is None or w.id == window["id"]) and (pid is None or w.pid == pid)]

    # ---- windows --------------------------------------------------------------------------------

    def windows(self) -> list[dict[str, Any]]:
        return [self._row(w, z) for z, w in enumerate(self.wins)]

    def work_area(self) -> dict[str, int]:
        return {"x": 0, "y": 0, "width": SCREEN[0], "height": SCREEN[1]}

    def _win(self, wid: int) -> Win | None:
        return next((w for w in self.wins if w.id == wid), None)

    def activate_window(self, wid: int) -> bool:
        w = self._win(wid)
        if w is None:
            return False
        w.state.discard("minimized")
        self.wins.remove(w)
        self.wins.insert(0, w)
        return True

    def move_resize_window(self, wid: int, frame: dict[str, int]) -> dict[str, Any] | None:
        w = self._win(wid)
        if w is None:
            return None
        w.frame = {**frame, "width": max(120, frame["width"]), "height": max(80, frame["height"])}  # a minimum size
        return self._row(w, self.wins.index(w))

    def set_window_state(self, wid: int, state: str) -> None:
        w = self._win(wid)
        if w is None:
            raise DesktopError(f"No window {wid}.", code="no_window")
        if state == "normal":
            w.state.clear()
        else:
            w.state.add(state)
        if state == "minimized":
            self.wins.remove(w)
            self.wins.append(w)

    def close_window(self, wid: int) -> None:
        w = self._win(wid)
        if w is None:
            return
        self.wins.remove(w)
        app = self.apps_.get(w.pid)
        if app is not None and not any(o.pid == w.pid for o in self.wins):
            app.update(running=False, exitCode=0)

    def window_at(self, x: int, y: int) -> dict[str, Any] | None:
        for z, w in enumerate(self.wins):
            if w.showing and inside(w.frame, x, y):
                return self._row(w, z)
        return None

    # ---- input ----------------------------------------------------------------------------------

    def _hit(self, x: int, y: int) -> tuple[Win, Node | None] | None:
        top = self.window_at(x, y)
        if top is None:
            return None
        w = self._win(top["id"])
        assert w is not None
        chain = under(w, x, y)
        return w, (chain[-1] if chain else None)

    @staticmethod
    def _press(n: Node) -> None:
        if n.on_press is not None:
            n.presses += 1
            n.on_press()

    def _click(self, x: int, y: int, button: str, count: int) -> None:
        self.pointer_at = (x, y)
        hit = self._hit(x, y)
        if hit is None:
            return
        w, n = hit
        self.activate_window(w.id)
        if n is not None and n.role in ("push button", "text"):
            w.focus = n
        if n is not None and button == "left" and count == 1:
            self._press(n)

    def click(self, x: int, y: int, button: str, count: int, modifiers: list[str]) -> None:
        self.input.append(("click", x, y, button, count, tuple(modifiers)))
        self._click(x, y, button, count)

    def drag(self, x1: int, y1: int, x2: int, y2: int, button: str) -> None:
        self.input.append(("drag", x1, y1, x2, y2, button))
        self.pointer_at = (x2, y2)

    def scroll(self, x: int, y: int, dx: int, dy: int) -> None:
        self.input.append(("scroll", x, y, dx, dy))
        self.pointer_at = (x, y)

    def _focused(self) -> Node | None:
        active = next((w for w in self.wins if w.showing), None)
        return active.focus if active is not None else None

    def _insert(self, text: str) -> None:
        n = self._focused()
        if n is None or not n.editable:
            return
        kept = ("" if n.selected else n.value or "") + text
        kept = n.transform(kept) if n.transform is not None else kept
        n.value, n.selected = kept[:n.max_len] if n.max_len else kept, False

    def type_text(self, text: str) -> None:
        self.input.append(("type", text))
        self._insert(text)

    def chord(self, keys: list[str]) -> None:
        self.input.append(("keys", "+".join(keys)))
        n = self._focused()
        if n is None:
            return
        if keys == ["ctrl", "a"] and n.editable:
            n.selected = True
        elif keys == ["BackSpace"] and n.editable:
            n.value, n.selected = ("" if n.selected else (n.value or "")[:-1]), False
        elif keys in (["Return"], ["space"]) and n.on_press is not None:
            self._press(n)

    def pointer(self) -> tuple[int, int]:
        return self.pointer_at

    # ---- recording and the human's hands ----------------------------------------------------------

    def record_start(self, sink: Callable[[dict[str, Any]], None]) -> None:
        self.sink = sink

    def record_stop(self) -> None:
        self.sink = None

    def mark_tool_input(self) -> None:
        self.tool_active = not self.tool_active
        if self.sink is not None:
            self.sink({"kind": "tool", "active": self.tool_active, "t": time.monotonic()})

    def watch_hands(self, on_human: Callable[[str], None]) -> None:
        self.on_human = on_human

    def human_click(self, x: int, y: int) -> None:
        """The human clicks at x,y: the click lands, a recording hears it, the watcher sees the human's input."""
        for down in (True, False):
            if self.sink is not None:
                self.sink({"kind": "button", "down": down, "button": 1, "x": x, "y": y, "t": time.monotonic()})
        self._click(x, y, "left", 1)
        if self.on_human is not None:
            self.on_human("button")

    # ---- screen ---------------------------------------------------------------------------------

    def screenshot(self, region: dict[str, int] | None) -> Shot:
        box = region or {"x": 0, "y": 0, "width": SCREEN[0], "height": SCREEN[1]}
        words = [w for w in self._words() if inside(box, *center(w["bounds"]))]
        return Shot(png(box["width"], box["height"]), box["width"], box["height"], (box["x"], box["y"]), 1.0,
                    words)

    def _words(self) -> list[dict[str, Any]]:
        """What OCR would read: each visible name (or a tree-less window's words), word by word, where no window
        above covers it."""
        out: list[dict[str, Any]] = []
        for line, w in enumerate(self.wins):
            if not w.showing:
                continue
            if w.root is None:
                c = w.client()
                runs = [(" ".join(w.words), {"x": c["x"] + 10, "y": c["y"] + 10})]
            else:
                runs = [(n.name, w.bounds(n)) for n in w.nodes() if n.role != "frame"]
            for i, (text, at) in enumerate(runs):
                x = at["x"]
                for word in text.split():
                    bounds = {"x": x, "y": at["y"], "width": 8 * len(word), "height": 14}
                    x += 8 * (len(word) + 1)
                    top = self.window_at(*center(bounds))
                    if top is not None and top["id"] == w.id:
                        out.append({"text": word, "line": (line, i, 0), "conf": 96.0, "bounds": bounds})
        return out

    # ---- accessibility --------------------------------------------------------------------------

    def accessible_pids(self) -> set[int]:
        return {w.pid for w in self.wins if w.root is not None}

    def elements(self, *, pid: int | None, window: dict[str, Any] | None, within: str | None, depth: int,
                 max_nodes: int, include_hidden: bool, full: bool) -> tuple[list[dict[str, Any]], bool]:
        out: list[dict[str, Any]] = []
        for w, start, _ in self._scope(pid, window, within):
            if not include_hidden and not w.showing:
                continue
            stack = [(start, 0)]
            while stack:
                n, d = stack.pop()
                if len(out) >= max_nodes:
                    return out, True
                out.append(self._dict(w, n, d))
                if d < depth:
                    stack.extend((c, d + 1) for c in reversed(n.children))
        return out, False

    def candidates(self, *, pid: int | None, window: dict[str, Any] | None, within: str | None,
                   roles: list[str] | None) -> list[dict[str, Any]]:
        nodes, _ = self.elements(pid=pid, window=window, within=within, depth=64, max_nodes=5000,
                                 include_hidden=False, full=False)
        return [n for n in nodes if roles is None or _norm(n["role"]) in roles]

    def element(self, ref: str) -> dict[str, Any]:
        w, n = self._find(ref)
        return self._dict(w, n)

    def element_at(self, window: dict[str, Any], x: int, y: int) -> dict[str, Any] | None:
        w = self._win(window["id"])
        if w is None or w.root is None:
            return None
        chain = under(w, x, y)
        if not chain:
            return None
        return {"node": self._dict(w, chain[-1]), "ancestors": [self._dict(w, n) for n in reversed(chain[:-1])]}

    def focused_element(self, window: dict[str, Any]) -> dict[str, Any] | None:
        w = self._win(window["id"])
        return self._dict(w, w.focus) if w is not None and w.focus is not None else None

    def element_action(self, ref: str, prefer: Iterable[str]) -> str:
        w, n = self._find(ref)
        if n.on_press is None:
            raise DesktopError(f"{n.role} {n.name!r} has no action.", code="action_failed")
        self.input.append(("action", ref))
        self._press(n)
        return "click"

    def element_focus(self, ref: str) -> bool:
        w, n = self._find(ref)
        self.activate_window(w.id)
        w.focus = n
        return True

    def element_set_text(self, ref: str, text: str) -> bool:
        _, n = self._find(ref)
        if not n.editable:
            return False
        self.input.append(("set_text", ref, text))
        text = n.transform(text) if n.transform is not None else text
        n.value = text[:n.max_len] if n.max_len else text
        return True

    # ---- launch ---------------------------------------------------------------------------------

    def launch(self, argv: list[str], allow: list[str], cwd: str | None) -> dict[str, Any]:
        if argv[0] not in allow:
            raise DesktopError(f"{argv[0]!r} is not on the launch allowlist ({', '.join(allow) or 'nothing yet'}).",
                               code="not_allowed")
        row = self._app(argv)
        url = next((a for a in argv[1:] if a.startswith("http")), None)
        title = url or argv[0]
        self._window(row["pid"], *scene.launched(title, argv[0]))
        return dict(row)

    def temp_dir(self, prefix: str) -> str:
        return tempfile.mkdtemp(prefix=prefix, dir=self._tmp)

    def apps(self) -> list[dict[str, Any]]:
        return [dict(a) for a in self.apps_.values()]

    def app_log(self, pid: int) -> str:
        return ""

    def stop_app(self, pid: int) -> dict[str, Any] | None:
        app = self.apps_.get(pid)
        if app is None:
            return None
        self.wins = [w for w in self.wins if w.pid != pid]
        app.update(running=False, exitCode=-15)
        return dict(app)

"""Accessibility trees of Linux desktop apps over AT-SPI (PyGObject): walk, describe, act, with refs that fail
loudly once their element is gone.

Runs inside the AT-SPI helper process (bridge/desktop/atspi/host.py), one per desktop session: libatspi binds to the
session bus it first sees and cannot be re-initialised, and a crash or hang in it must not take the bridge along.
"""

from __future__ import annotations

import re
import secrets
import warnings
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

import gi

gi.require_version("Atspi", "2.0")
from gi.repository import Atspi, GLib

from bridge.desktop.atspi.toolkits import (
    UNKNOWN,
    Frame,
    Toolkit,
    frame_for,
    raw_bounds,
    states,
    toolkit_of,
    worth_walking,
)
from bridge.desktop.atspi.toolkits import name as toolkit_name


class DesktopError(Exception):
    """A failure with a code, passed to the bridge as {code, message}. (Not bridge.errors: the helper must not import
    the MCP SDK; that would triple its start time.)"""

    def __init__(self, message: str, *, code: str) -> None:
        super().__init__(message)
        self.code = code

warnings.filterwarnings("ignore", category=DeprecationWarning, module=r"gi\..*")

def _norm(role: str) -> str:  # as bridge.desktop.selectors normalizes roles ('push button' → 'pushbutton')
    return re.sub(r"[\s_\-]", "", role.lower())


ROLES = {_norm(Atspi.role_get_name(r)): r for r in Atspi.Role.__enum_values__.values()}
TEXT_ROLES = {"text", "entry", "password text", "terminal", "editbar", "document text"}
MAX_REFS = 20_000
Root = tuple[int | None, Any]  # (pid, accessible) where a walk or query starts


def _actions(acc: Any) -> list[str]:
    try:
        if "Action" not in acc.get_interfaces():
            return []
        return [acc.get_action_name(i) for i in range(acc.get_n_actions())]
    except GLib.Error:
        return []


class Refs:
    """ref ('a12@kq') ↔ accessible. The tag changes per desktop session, so an old ref can never hit a new element."""

    def __init__(self) -> None:
        self.tag = "".join(secrets.choice("abcdefghijkmnpqrstuvwxyz") for _ in range(2))
        self._n = 0
        self._by_ref: OrderedDict[str, tuple[Any, int | None, str, Any]] = OrderedDict()
        self._by_obj: dict[int, str] = {}

    def ref(self, acc: Any, pid: int | None, role: str, top: Any) -> str:
        key = hash(acc)
        got = self._by_obj.get(key)
        if got is not None and got in self._by_ref and self._by_ref[got][0] is acc:
            self._by_ref.move_to_end(got)
            return got
        self._n += 1
        ref = f"a{self._n}@{self.tag}"
        self._by_ref[ref] = (acc, pid, role, top)
        self._by_obj[key] = ref
        while len(self._by_ref) > MAX_REFS:
            _, (obj, _, _, _) = self._by_ref.popitem(last=False)
            self._by_obj.pop(hash(obj), None)
        return ref

    def get(self, ref: str) -> tuple[Any, int | None, str, Any]:
        entry = self._by_ref.get(ref)
        if entry is None:
            if not ref.endswith("@" + self.tag):
                raise DesktopError(f"Ref {ref!r} is not from this desktop session (refs end in @{self.tag} now). "
                                   "Call desktop_find_elements or desktop_accessibility_tree for fresh refs.",
                                   code="stale_ref")
            raise DesktopError(f"Ref {ref!r} is unknown (or long evicted). Call desktop_find_elements for a fresh one.",
                               code="stale_ref")
        return entry


class Accessibility:
    """AT-SPI reads and actions (use from one thread)."""

    def __init__(self) -> None:
        Atspi.init()  # connects to the accessibility bus of the session bus in this process's environment
        Atspi.set_timeout(2000, 10000)
        self.refs = Refs()
        self._toolkits: dict[int | None, Toolkit] = {}

    # ---- apps and scopes --------------------------------------------------------------------

    def apps(self) -> list[tuple[int | None, str, Any]]:
        desk = Atspi.get_desktop(0)
        out = []
        for i in range(desk.get_child_count()):
            try:
                app = desk.get_child_at_index(i)
                if app is None:
                    continue
                out.append((app.get_process_id(), app.get_name() or "", app))
            except GLib.Error:
                continue  # an app that left while we counted
        return out

    def toolkit(self, pid: int | None) -> Toolkit:
        got = self._toolkits.get(pid)
        if got is None:
            app = next((a for p, _, a in self.apps() if p == pid), None)
            got = toolkit_of(app) if app is not None else UNKNOWN
            if app is not None:
                self._toolkits[pid] = got
        return got

    def toplevels(self, pid: int | None) -> list[Root]:
        out = []
        for app_pid, _, app in self.apps():
            if pid is not None and app_pid != pid:
                continue
            try:
                out += [(app_pid, app.get_child_at_index(i)) for i in range(app.get_child_count())]
            except GLib.Error:
                continue
        return [(p, t) for p, t in out if t is not None]

    def roots(self, pid: int | None, window: dict[str, Any] | None) -> list[Root]:
        """Top-level accessibles for a scope: one X window (matched by pid, then title, then bounds), a pid, or all
        showing top-levels."""
        if window is not None:
            pid = window.get("pid")
            tops = self.toplevels(pid)
            if not tops:
                return []
            titled = [t for t in tops if (t[1].get_name() or "") == window["title"]]
            if len(titled) == 1:
                return titled
            pool = titled or tops
            frame = window["frame"]

            def distance(t: Root) -> int:
                b = raw_bounds(t[1], frame_for(t[1], self.toolkit(t[0]), window))
                if b is None:
                    return 1 << 30
                return abs(b["x"] - frame["x"]) + abs(b["y"] - frame["y"]) + abs(b["width"] - frame["width"]) + \
                    abs(b["height"] - frame["height"])

            best = min(pool, key=distance)
            return [best] if distance(best) < 1 << 30 else pool
        tops = self.toplevels(pid)
        return [t for t in tops if "showing" in states(t[1], Frame())] or tops

    def window_of(self, pid: int | None, top: Any, wins: list[dict[str, Any]]) -> dict[str, Any] | None:
        """The X window showing a top-level: its app's only window, or the one titled like it."""
        mine = [w for w in wins if w["pid"] == pid]
        if len(mine) == 1:
            return mine[0]
        try:
            name = top.get_name() or ""
        except GLib.Error:
            return None
        titled = [w for w in mine if w["title"] == name]
        return titled[0] if len(titled) == 1 else None

    def frame(self, pid: int | None, top: Any, window: dict[str, Any] | None) -> Frame:
        return frame_for(top, self.toolkit(pid), window)

    def starts(self, pid: int | None, window: dict[str, Any] | None, within: str | None,
               windows: list[dict[str, Any]]) -> list[tuple[int | None, Any, Any, Frame, int | None]]:
        """(pid, accessible, its top-level, frame, window id) for each place a walk or query starts."""
        if within is not None:
            acc, p, top = self.live(within)
            win = window or self.window_of(p, top, windows)
            return [(p, acc, top, self.frame(p, top, win), (win or {}).get("id"))]
        out = []
        for p, top in self.roots(pid, window):
            win = window or self.window_of(p, top, windows)
            out.append((p, top, top, self.frame(p, top, win), (win or {}).get("id")))
        return out

    # ---- nodes ------------------------------------------------------------------------------

    def node(self, acc: Any, pid: int | None, top: Any, frame: Frame, full: bool = True) -> dict[str, Any]:
        role = acc.get_role_name()
        out: dict[str, Any] = {"ref": self.refs.ref(acc, pid, role, top), "role": role,
                               "name": toolkit_name(acc, frame), "states": states(acc, frame)}
        if full:
            out["bounds"] = raw_bounds(acc, frame)
            actions = _actions(acc)
            if actions:
                out["actions"] = actions
            if role in TEXT_ROLES:
                out["value"] = "•" * 8 if role == "password text" else self.text(acc, 500)
            elif "Value" in acc.get_interfaces():
                try:
                    out["value"] = acc.get_current_value()
                except GLib.Error:
                    pass
            try:
                desc = acc.get_description()
            except GLib.Error:
                desc = ""
            if desc:
                out["description"] = desc
        if pid is not None:
            out["pid"] = pid
        return out

    def text(self, acc: Any, limit: int = 500) -> str | None:
        try:
            if "Text" not in acc.get_interfaces():
                return None
            n = acc.get_character_count()
            return acc.get_text(0, min(n, limit)) + ("…" if n > limit else "")
        except GLib.Error:
            return None

    def walk(self, acc: Any, frame: Frame, *, depth: int, max_nodes: int,
             include_hidden: bool = False) -> Iterator[tuple[int, Any]]:
        """(depth, accessible) in tree order from one start; skips subtrees that are not showing unless
        include_hidden (GTK 4: not visible; see worth_walking)."""
        seen = 0
        stack: list[tuple[int, Any]] = [(0, acc)]
        while stack and seen < max_nodes:
            d, acc = stack.pop()
            try:
                if d > 0 and not include_hidden and not worth_walking(acc, frame):
                    continue
                count = acc.get_child_count() if d < depth else 0
            except GLib.Error:
                continue
            seen += 1
            yield d, acc
            kids = []
            for i in range(min(count, 2000)):
                try:
                    kid = acc.get_child_at_index(i)
                except GLib.Error:
                    continue
                if kid is not None:
                    kids.append((d + 1, kid))
            stack.extend(reversed(kids))

    def live(self, ref: str) -> tuple[Any, int | None, Any]:
        """The accessible behind a ref (and its top-level), or a stale_ref error if it is gone or is no longer the
        same element."""
        acc, pid, role, top = self.refs.get(ref)
        try:
            now = states(acc, Frame())
            now_role = acc.get_role_name()
            now_pid = acc.get_process_id()
        except GLib.Error:
            now, now_role, now_pid = ["defunct"], "", None
        if "defunct" in now or now_role != role or (pid is not None and now_pid != pid):
            raise DesktopError(f"Ref {ref} is stale: its {role} is gone (its window closed, the app redrew it, or the "
                               "app exited). Nothing was done. Find it again with desktop_find_elements.",
                               code="stale_ref")
        return acc, pid, top

    # ---- acting -----------------------------------------------------------------------------

    def do_action(self, acc: Any, prefer: tuple[str, ...] = ("click", "press", "activate", "toggle", "jump",
                                                              "open")) -> str:
        names = _actions(acc)
        for want in prefer:
            for i, name in enumerate(names):
                if name.lower() == want:
                    if not acc.do_action(i):
                        raise DesktopError(f"The app refused the accessible action '{name}'.", code="action_failed")
                    return name
        raise DesktopError(f"This {acc.get_role_name()} offers no click-like accessible action (it has "
                           f"{names or 'none'}); click it with the pointer instead (method 'pointer').",
                           code="action_failed")

    def focus(self, acc: Any) -> bool:
        try:
            return "Component" in acc.get_interfaces() and bool(acc.grab_focus())
        except GLib.Error:
            return False

    def set_text(self, acc: Any, text: str) -> bool:
        try:
            return "EditableText" in acc.get_interfaces() and bool(acc.set_text_contents(text))
        except GLib.Error:
            return False

    # ---- the operations the helper serves (JSON in, JSON out) -------------------------------------

    def op_pids(self) -> list[int]:
        return sorted({pid for pid, _, _ in self.apps() if pid})

    def op_elements(self, pid: int | None, window: dict[str, Any] | None, within: str | None, depth: int,
                    max_nodes: int, include_hidden: bool, full: bool, windows: list[dict[str, Any]],
                    ) -> dict[str, Any]:
        nodes: list[dict[str, Any]] = []
        for p, start, top, frame, win in self.starts(pid, window, within, windows):
            for d, acc in self.walk(start, frame, depth=depth, max_nodes=max_nodes - len(nodes),
                                    include_hidden=include_hidden):
                try:
                    node = self.node(acc, p, top, frame, full)
                except GLib.Error:
                    continue  # it left while we looked
                if d > 0 and not include_hidden and "showing" not in node["states"]:
                    continue  # GTK 4: visible, but without a size or outside its window
                node["depth"] = d
                if win is not None:
                    node["window"] = win
                nodes.append(node)
            if len(nodes) >= max_nodes:
                break
        return {"nodes": nodes, "truncated": len(nodes) >= max_nodes}

    def op_candidates(self, pid: int | None, window: dict[str, Any] | None, within: str | None,
                      roles: list[str] | None, windows: list[dict[str, Any]], limit: int = 5000,
                      ) -> list[dict[str, Any]]:
        """Showing nodes of these roles (normalized names; None = any) in tree order: one Collection query per root
        instead of a walk (a walk where a toolkit lacks Collection)."""
        wanted = [ROLES[r] for r in roles or [] if r in ROLES]
        if roles and not wanted:
            return []
        out: list[dict[str, Any]] = []
        for p, start, top, frame, win in self.starts(pid, window, within, windows):
            # GTK 4.8 never reports SHOWING below the top-level: ask for VISIBLE and judge showing per node
            need = Atspi.StateType.VISIBLE if frame.toolkit.gtk4 else Atspi.StateType.SHOWING
            rule = Atspi.MatchRule.new(Atspi.StateSet.new([need]), Atspi.CollectionMatchType.ALL, {},
                                       Atspi.CollectionMatchType.ALL, wanted,
                                       Atspi.CollectionMatchType.ANY if wanted else Atspi.CollectionMatchType.ALL, [],
                                       Atspi.CollectionMatchType.ALL, False)
            try:
                found = [start] if not wanted or start.get_role() in wanted else []
                if "Collection" in start.get_interfaces():
                    found += Atspi.Collection.get_matches(start, rule, Atspi.CollectionSortOrder.CANONICAL, limit,
                                                          True)
                else:
                    found += [a for d, a in self.walk(start, frame, depth=64, max_nodes=limit)
                              if d > 0 and (not wanted or a.get_role() in wanted)]
            except GLib.Error:
                continue
            for acc in found:
                try:
                    node = self.node(acc, p, top, frame, False)
                except GLib.Error:
                    continue
                if "showing" not in node["states"]:
                    continue
                if win is not None:
                    node["window"] = win
                out.append(node)
        return out

    def op_hit(self, window: dict[str, Any], x: int, y: int, max_up: int = 8) -> dict[str, Any] | None:
        """The element under a screen point in a window: the deepest showing node whose bounds hold the point (later
        siblings first: they paint on top), with its ancestors up to the window, nearest first."""
        for pid, root in self.roots(window.get("pid"), window):
            frame = self.frame(pid, root, window)

            def holds(acc: Any) -> bool:
                b = raw_bounds(acc, frame)  # noqa: B023 - used within this iteration only
                return b is not None and b["x"] <= x < b["x"] + b["width"] and b["y"] <= y < b["y"] + b["height"]

            try:
                if not holds(root):
                    continue
                chain = [root]
                while len(chain) < 64:
                    kids = [chain[-1].get_child_at_index(i) for i in range(min(chain[-1].get_child_count(), 2000))]
                    inside = next((k for k in reversed(kids) if k is not None and "showing" in states(k, frame)
                                   and holds(k)), None)
                    if inside is None:
                        break
                    chain.append(inside)
                nodes = [self.node(acc, pid, root, frame, True) for acc in reversed(chain[-max_up - 1:])]
            except GLib.Error:
                continue  # it went away while we looked
            for n in nodes:
                n["window"] = window["id"]
            return {"node": nodes[0], "ancestors": nodes[1:]}
        return None

    def op_focused(self, window: dict[str, Any]) -> dict[str, Any] | None:
        """The element with keyboard focus in a window, or None."""
        rule = Atspi.MatchRule.new(Atspi.StateSet.new([Atspi.StateType.FOCUSED]), Atspi.CollectionMatchType.ALL,
                                   {}, Atspi.CollectionMatchType.ALL, [], Atspi.CollectionMatchType.ALL, [],
                                   Atspi.CollectionMatchType.ALL, False)
        for pid, root in self.roots(window.get("pid"), window):
            frame = self.frame(pid, root, window)
            try:
                if "Collection" in root.get_interfaces():
                    found = Atspi.Collection.get_matches(root, rule, Atspi.CollectionSortOrder.CANONICAL, 1, True)
                else:
                    found = [a for _, a in self.walk(root, frame, depth=64, max_nodes=5000)
                             if "focused" in states(a, frame)][:1]
                if found:
                    node = self.node(found[0], pid, root, frame, True)
                    node["window"] = window["id"]
                    return node
            except GLib.Error:
                continue
        return None

    def op_element(self, ref: str, windows: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        acc, pid, top = self.live(ref)
        return self.node(acc, pid, top, self.frame(pid, top, self.window_of(pid, top, windows or [])), True)

    def op_action(self, ref: str, prefer: list[str]) -> str:
        acc, _, _ = self.live(ref)
        return self.do_action(acc, tuple(prefer))

    def op_focus(self, ref: str) -> bool:
        acc, _, _ = self.live(ref)
        return self.focus(acc)

    def op_set_text(self, ref: str, text: str) -> bool:
        acc, _, _ = self.live(ref)
        return self.set_text(acc, text)

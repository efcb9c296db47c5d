"""Accessibility trees of Linux desktop apps over AT-SPI (PyGObject): walk, describe, act, with refs that fail
loudly once their element is gone.

Runs inside the AT-SPI helper process (bridge/desktop/atspi_host.py), one per desktop session: libatspi binds to the
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
HIDDEN = -2147483648  # extents AT-SPI reports for nodes that are not laid out
NOISE_STATES = {"opaque", "single-line", "vertical", "horizontal", "selectable-text", "has-tooltip", "resizable",
                "stale", "supports-autocompletion", "truncated", "has-popup"}
TEXT_ROLES = {"text", "entry", "password text", "terminal", "editbar", "document text"}
MAX_REFS = 20_000


def _states(acc: Any) -> list[str]:
    try:
        return [s for s in (Atspi.StateType(x).value_nick for x in acc.get_state_set().get_states())
                if s not in NOISE_STATES]
    except GLib.Error:
        return ["defunct"]


def _bounds(acc: Any) -> dict[str, int] | None:
    try:
        if "Component" not in acc.get_interfaces():
            return None
        e = acc.get_extents(Atspi.CoordType.SCREEN)
    except GLib.Error:
        return None
    if e.x == HIDDEN or e.y == HIDDEN:
        return None
    return {"x": e.x, "y": e.y, "width": e.width, "height": e.height}


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
        self._by_ref: OrderedDict[str, tuple[Any, int | None, str]] = OrderedDict()
        self._by_obj: dict[int, str] = {}

    def ref(self, acc: Any, pid: int | None, role: str) -> str:
        key = hash(acc)
        got = self._by_obj.get(key)
        if got is not None and got in self._by_ref and self._by_ref[got][0] is acc:
            self._by_ref.move_to_end(got)
            return got
        self._n += 1
        ref = f"a{self._n}@{self.tag}"
        self._by_ref[ref] = (acc, pid, role)
        self._by_obj[key] = ref
        while len(self._by_ref) > MAX_REFS:
            _, (obj, _, _) = self._by_ref.popitem(last=False)
            self._by_obj.pop(hash(obj), None)
        return ref

    def get(self, ref: str) -> tuple[Any, int | None, str]:
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

    def toplevels(self, pid: int | None) -> list[tuple[int | None, Any]]:
        out = []
        for app_pid, _, app in self.apps():
            if pid is not None and app_pid != pid:
                continue
            try:
                out += [(app_pid, app.get_child_at_index(i)) for i in range(app.get_child_count())]
            except GLib.Error:
                continue
        return [(p, t) for p, t in out if t is not None]

    def has_tree(self, pid: int) -> bool:
        return any(p == pid for p, _, _ in self.apps())

    def roots(self, pid: int | None, window: dict[str, Any] | None) -> list[tuple[int | None, Any]]:
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

            def distance(t: tuple[int | None, Any]) -> int:
                b = _bounds(t[1])
                if b is None:
                    return 1 << 30
                return abs(b["x"] - frame["x"]) + abs(b["y"] - frame["y"]) + abs(b["width"] - frame["width"]) + \
                    abs(b["height"] - frame["height"])

            best = min(pool, key=distance)
            return [best] if distance(best) < 1 << 30 else pool
        tops = self.toplevels(pid)
        return [t for t in tops if "showing" in _states(t[1])] or tops

    # ---- nodes ------------------------------------------------------------------------------

    def node(self, acc: Any, pid: int | None, full: bool = True) -> dict[str, Any]:
        role = acc.get_role_name()
        out: dict[str, Any] = {"ref": self.refs.ref(acc, pid, role), "role": role, "name": acc.get_name() or "",
                               "states": _states(acc)}
        if full:
            out["bounds"] = _bounds(acc)
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

    def walk(self, roots: list[tuple[int | None, Any]], *, depth: int, max_nodes: int,
             include_hidden: bool = False) -> Iterator[tuple[int, int | None, Any]]:
        """(depth, pid, accessible) in tree order; skips subtrees that are not showing unless include_hidden."""
        seen = 0
        stack: list[tuple[int, int | None, Any]] = [(0, pid, acc) for pid, acc in reversed(roots)]
        while stack and seen < max_nodes:
            d, pid, acc = stack.pop()
            try:
                if d > 0 and not include_hidden and "showing" not in _states(acc):
                    continue
                count = acc.get_child_count() if d < depth else 0
            except GLib.Error:
                continue
            seen += 1
            yield d, pid, acc
            kids = []
            for i in range(min(count, 2000)):
                try:
                    kid = acc.get_child_at_index(i)
                except GLib.Error:
                    continue
                if kid is not None:
                    kids.append((d + 1, pid, kid))
            stack.extend(reversed(kids))

    def live(self, ref: str) -> tuple[Any, int | None]:
        """The accessible behind a ref, or a stale_ref error if it is gone or is no longer the same element."""
        acc, pid, role = self.refs.get(ref)
        try:
            states = _states(acc)
            now_role = acc.get_role_name()
            now_pid = acc.get_process_id()
        except GLib.Error:
            states, now_role, now_pid = ["defunct"], "", None
        if "defunct" in states or now_role != role or (pid is not None and now_pid != pid):
            raise DesktopError(f"Ref {ref} is stale: its {role} is gone (its window closed, the app redrew it, or the "
                               "app exited). Nothing was done. Find it again with desktop_find_elements.",
                               code="stale_ref")
        return acc, pid

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

    def _window_of(self, pid: int | None, root: Any, wins: list[dict[str, Any]]) -> int | None:
        mine = [w for w in wins if w["pid"] == pid]
        if len(mine) == 1:
            return mine[0]["id"]
        name = root.get_name() or ""
        titled = [w for w in mine if w["title"] == name]
        return titled[0]["id"] if len(titled) == 1 else None

    def op_elements(self, pid: int | None, window: dict[str, Any] | None, within: str | None, depth: int,
                    max_nodes: int, include_hidden: bool, full: bool, windows: list[dict[str, Any]],
                    ) -> dict[str, Any]:
        if within is not None:
            acc, p = self.live(within)
            roots = [(p, acc)]
        else:
            roots = self.roots(pid, window)
        nodes: list[dict[str, Any]] = []
        current: int | None = None
        for d, p, acc in self.walk(roots, depth=depth, max_nodes=max_nodes, include_hidden=include_hidden):
            if d == 0:
                current = window["id"] if window is not None else self._window_of(p, acc, windows)
            try:
                node = self.node(acc, p, full)
            except GLib.Error:
                continue  # it left while we looked
            node["depth"] = d
            if current is not None:
                node["window"] = current
            nodes.append(node)
        return {"nodes": nodes, "truncated": len(nodes) >= max_nodes}

    def op_candidates(self, pid: int | None, window: dict[str, Any] | None, within: str | None,
                      roles: list[str] | None, windows: list[dict[str, Any]], limit: int = 5000,
                      ) -> list[dict[str, Any]]:
        """Showing nodes of these roles (normalized names; None = any) in tree order: one Collection query per root
        instead of a walk (a walk where a toolkit lacks Collection)."""
        wanted = [ROLES[r] for r in roles or [] if r in ROLES]
        if roles and not wanted:
            return []
        if within is not None:
            acc, p = self.live(within)
            roots = [(p, acc)]
        else:
            roots = self.roots(pid, window)
        rule = Atspi.MatchRule.new(Atspi.StateSet.new([Atspi.StateType.SHOWING]), Atspi.CollectionMatchType.ALL, {},
                                   Atspi.CollectionMatchType.ALL, wanted,
                                   Atspi.CollectionMatchType.ANY if wanted else Atspi.CollectionMatchType.ALL, [],
                                   Atspi.CollectionMatchType.ALL, False)
        out: list[dict[str, Any]] = []
        for p, root in roots:
            win = window["id"] if window is not None else self._window_of(p, root, windows)
            try:
                found = [root] if not wanted or root.get_role() in wanted else []
                if "Collection" in root.get_interfaces():
                    found += Atspi.Collection.get_matches(root, rule, Atspi.CollectionSortOrder.CANONICAL, limit, True)
                else:
                    found += [a for d, _, a in self.walk([(p, root)], depth=64, max_nodes=limit)
                              if d > 0 and (not wanted or a.get_role() in wanted)]
            except GLib.Error:
                continue
            for acc in found:
                try:
                    node = self.node(acc, p, False)
                except GLib.Error:
                    continue
                if win is not None:
                    node["window"] = win
                out.append(node)
        return out

    def op_hit(self, window: dict[str, Any], x: int, y: int, max_up: int = 8) -> dict[str, Any] | None:
        """The element under a screen point in a window: the deepest showing node whose bounds hold the point (later
        siblings first: they paint on top), with its ancestors up to the window, nearest first."""
        def holds(acc: Any) -> bool:
            b = _bounds(acc)
            return b is not None and b["x"] <= x < b["x"] + b["width"] and b["y"] <= y < b["y"] + b["height"]

        for pid, root in self.roots(window.get("pid"), window):
            try:
                if not holds(root):
                    continue
                chain = [root]
                while len(chain) < 64:
                    kids = [chain[-1].get_child_at_index(i) for i in range(min(chain[-1].get_child_count(), 2000))]
                    inside = next((k for k in reversed(kids) if k is not None and "showing" in _states(k)
                                   and holds(k)), None)
                    if inside is None:
                        break
                    chain.append(inside)
                nodes = [self.node(acc, pid, True) for acc in reversed(chain[-max_up - 1:])]
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
            try:
                if "Collection" in root.get_interfaces():
                    found = Atspi.Collection.get_matches(root, rule, Atspi.CollectionSortOrder.CANONICAL, 1, True)
                else:
                    found = [a for _, _, a in self.walk([(pid, root)], depth=64, max_nodes=5000)
                             if "focused" in _states(a)][:1]
                if found:
                    node = self.node(found[0], pid, True)
                    node["window"] = window["id"]
                    return node
            except GLib.Error:
                continue
        return None

    def op_element(self, ref: str) -> dict[str, Any]:
        acc, pid = self.live(ref)
        return self.node(acc, pid, True)

    def op_action(self, ref: str, prefer: list[str]) -> str:
        acc, _ = self.live(ref)
        return self.do_action(acc, tuple(prefer))

    def op_focus(self, ref: str) -> bool:
        acc, _ = self.live(ref)
        return self.focus(acc)

    def op_set_text(self, ref: str, text: str) -> bool:
        acc, _ = self.live(ref)
        return self.set_text(acc, text)

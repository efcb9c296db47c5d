"""Element selectors for desktop apps: {role, name | name_contains | name_regex, states, within, ordinal}.

Pure Python (no platform imports): backends hand in nodes as dicts with `role`, `name` and `states`; this module
decides which match, and how near a miss came.
"""

from __future__ import annotations

import difflib
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from bridge.desktop.errors import DesktopError


class Selector(BaseModel):
    """An accessible element: a role and a name test, narrowed by states and an enclosing element."""

    model_config = ConfigDict(extra="forbid")

    # Terse on purpose: this schema is repeated in every desktop tool that takes a target (tools/list budget).
    role: str | None = Field(None, description="button, entry, checkbox, link, menuitem…; AT-SPI/AX names too.")
    name: str | None = Field(None, description="Exact accessible name.")
    name_contains: str | None = Field(None, description="Part of the name, any case.")
    name_regex: str | None = Field(None, description="Python regex on the name.")
    states: list[str] | None = Field(None, description="E.g. ['enabled', '!checked'].")
    within: str | Selector | None = Field(None, description="Inside this ref or selector.")
    ordinal: int | None = Field(None, description="Among several matches: 0 first, -1 last.")

    def describe(self) -> str:
        parts = [f"{k}={v!r}" for k, v in self.model_dump(exclude_none=True, exclude={"within"}).items()]
        if self.within is not None:
            parts.append(f"within={self.within if isinstance(self.within, str) else self.within.describe()}")
        return "{" + ", ".join(parts) + "}"


Selector.model_rebuild()


def _norm(role: str) -> str:
    return re.sub(r"[\s_\-]", "", role.lower())


_ALIASES: dict[str, set[str]] = {
    "button": {"push button", "toggle button"}, "pushbutton": {"push button"}, "axbutton": {"push button"},
    "togglebutton": {"toggle button"}, "switch": {"switch", "toggle button"},
    "textbox": {"text", "entry", "password text"}, "entry": {"text", "entry", "password text"},
    "input": {"text", "entry", "password text"}, "textfield": {"text", "entry", "password text"},
    "edit": {"text", "entry"}, "axtextfield": {"text", "entry"}, "axtextarea": {"text", "entry"},
    "searchbox": {"text", "entry"}, "password": {"password text"}, "axsecuretextfield": {"password text"},
    "checkbox": {"check box", "check menu item"}, "axcheckbox": {"check box"},
    "radio": {"radio button", "radio menu item"}, "radiobutton": {"radio button"}, "axradiobutton": {"radio button"},
    "combobox": {"combo box"}, "axcombobox": {"combo box"}, "axpopupbutton": {"combo box", "push button"},
    "select": {"combo box", "list box"}, "dropdown": {"combo box"},
    "link": {"link"}, "axlink": {"link"},
    "menuitem": {"menu item", "check menu item", "radio menu item"}, "axmenuitem": {"menu item"},
    "menu": {"menu"}, "axmenu": {"menu"}, "menubar": {"menu bar"}, "axmenubar": {"menu bar"},
    "tab": {"page tab"}, "axtab": {"page tab"}, "tablist": {"page tab list"}, "axtabgroup": {"page tab list"},
    "window": {"frame", "window", "dialog"}, "axwindow": {"frame", "window", "dialog"},
    "dialog": {"dialog", "alert", "file chooser"}, "axsheet": {"dialog"}, "alert": {"alert", "dialog"},
    "label": {"label", "static"}, "statictext": {"label", "static"}, "axstatictext": {"label", "static"},
    "heading": {"heading"}, "axheading": {"heading"},
    "slider": {"slider"}, "axslider": {"slider"}, "spinbutton": {"spin button"}, "spinner": {"spin button"},
    "axincrementor": {"spin button"}, "progressbar": {"progress bar"}, "axprogressindicator": {"progress bar"},
    "list": {"list", "list box"}, "listbox": {"list box", "list"}, "axlist": {"list", "list box"},
    "listitem": {"list item"}, "option": {"list item", "menu item"},
    "table": {"table", "tree table"}, "grid": {"table", "tree table"}, "axtable": {"table"},
    "row": {"table row", "list item"}, "axrow": {"table row"}, "cell": {"table cell"}, "axcell": {"table cell"},
    "gridcell": {"table cell"}, "columnheader": {"column header", "table column header"},
    "tree": {"tree", "tree table"}, "axoutline": {"tree", "tree table"}, "treeitem": {"tree item", "table cell"},
    "toolbar": {"tool bar"}, "axtoolbar": {"tool bar"}, "statusbar": {"status bar"},
    "image": {"image", "icon"}, "img": {"image", "icon"}, "aximage": {"image", "icon"},
    "scrollbar": {"scroll bar"}, "axscrollbar": {"scroll bar"}, "separator": {"separator"},
    "tooltip": {"tool tip"}, "document": {"document frame", "document web", "document text"},
    "group": {"panel", "filler", "grouping", "section"}, "axgroup": {"panel", "filler", "grouping", "section"},
    "panel": {"panel", "filler"}, "frame": {"frame"},
}
ALIASES = {k: {_norm(r) for r in v} for k, v in _ALIASES.items()}

INTERACTIVE_ROLES = {_norm(r) for r in (
    "push button", "toggle button", "switch", "check box", "radio button", "text", "entry", "password text",
    "combo box", "link", "menu item", "check menu item", "radio menu item", "page tab", "slider", "spin button",
    "list item", "tree item", "table cell", "menu", "scroll bar", "list box", "editbar", "terminal", "icon",
)}


def roles_for(role: str) -> set[str]:
    """Normalized AT-SPI role names a selector role stands for."""
    n = _norm(role)
    return ALIASES.get(n, {n})


def _clean(s: str | None) -> str:
    return " ".join((s or "").split()).casefold()


def compile_regex(pattern: str) -> re.Pattern[str]:
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise DesktopError(f"name_regex {pattern!r} is not a valid Python regex: {exc}.", code="bad_arguments") from exc


def matcher(sel: Selector) -> Any:
    """A predicate over node dicts for everything in the selector but `within` and `ordinal`."""
    roles = roles_for(sel.role) if sel.role else None
    name = _clean(sel.name) if sel.name is not None else None
    contains = _clean(sel.name_contains) if sel.name_contains is not None else None
    regex = compile_regex(sel.name_regex) if sel.name_regex is not None else None
    want = {s.lower() for s in sel.states or [] if not s.startswith("!")}
    refuse = {s[1:].lower() for s in sel.states or [] if s.startswith("!")}

    def match(node: dict[str, Any]) -> bool:
        if roles is not None and _norm(node.get("role") or "") not in roles:
            return False
        n = node.get("name") or ""
        if name is not None and _clean(n) != name:
            return False
        if contains is not None and contains not in _clean(n):
            return False
        if regex is not None and not regex.search(n):
            return False
        states = set(node.get("states") or ())
        return want <= states and not (refuse & states)

    return match


def check(sel: Selector) -> None:
    if not any((sel.role, sel.name is not None, sel.name_contains, sel.name_regex, sel.states)):
        raise DesktopError("A selector needs at least one of role, name, name_contains, name_regex or states, e.g. "
                           "{\"role\": \"button\", \"name\": \"OK\"}.", code="bad_arguments")
    if sum(x is not None for x in (sel.name, sel.name_contains, sel.name_regex)) > 1:
        raise DesktopError("Give only one of name, name_contains or name_regex.", code="bad_arguments")


def brief(node: dict[str, Any]) -> dict[str, Any]:
    """What an error lists about a candidate."""
    out = {k: node[k] for k in ("ref", "role", "name") if k in node}
    for k in ("window", "pid", "bounds"):
        if node.get(k) is not None:
            out[k] = node[k]
    return out


def pick(sel: Selector, matches: list[dict[str, Any]], nearby: list[dict[str, Any]], scope: str) -> dict[str, Any]:
    """One match, or an `ambiguous` / `no_match` error that lists candidates and says how to narrow."""
    if sel.ordinal is not None:
        if not matches or not -len(matches) <= sel.ordinal < len(matches):
            if matches:
                raise DesktopError(f"{sel.describe()} has {len(matches)} match(es) in {scope}; ordinal {sel.ordinal} "
                                   f"is out of range (0..{len(matches) - 1}, or -1 for the last).", code="no_match")
        else:
            return matches[sel.ordinal]
    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        shown = [brief(m) for m in matches[:10]]
        raise DesktopError(
            f"{sel.describe()} matches {len(matches)} elements in {scope}. Narrow it (a longer name, states, `within`, "
            f"a window or pid) or add ordinal (0 = first). Candidates: {shown}", code="ambiguous")
    near = nearest(sel, nearby)
    hint = f" Nearest: {near}" if near else " Nothing similar is there either."
    raise DesktopError(
        f"No element matches {sel.describe()} in {scope}.{hint} Check the window (desktop_list_windows) and the tree "
        "(desktop_accessibility_tree), or wait for it (desktop_wait_for_element).", code="no_match")


def nearest(sel: Selector, nodes: list[dict[str, Any]], limit: int = 5) -> list[dict[str, Any]]:
    """Candidates that come closest: same role first, then by name similarity."""
    want_name = _clean(sel.name or sel.name_contains or sel.name_regex or "")
    roles = roles_for(sel.role) if sel.role else None

    def score(node: dict[str, Any]) -> float:
        s = 0.0
        if roles is not None and _norm(node.get("role") or "") in roles:
            s += 1.0
        if want_name:
            s += difflib.SequenceMatcher(None, want_name, _clean(node.get("name"))).ratio() * 1.5
        return s

    named = [n for n in nodes if n.get("name") or (roles and _norm(n.get("role") or "") in roles)]
    ranked = sorted(named, key=score, reverse=True)
    return [brief(n) for n in ranked[:limit] if score(n) > 0.3]

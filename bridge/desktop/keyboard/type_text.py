"""Typing that arrives: focus the field and see it focused, clear it for `replace` and see it empty, type, read the
field back. Judged by effect: a field that holds what was sent is verified; one that changed to something else took
the keys and the app transformed them (a calculator evaluating `6*7=` to `42`, a mask, an autocomplete), answered ok
with what it holds and a note saying so; only a field that did not change at all is tried once more through the other
method (accessibility set-text <-> key events) before `[not_typed]` with what the field holds.

Why the focus is confirmed before the first key: GTK 4 gives the keyboard focus back to the button that opened a
popover when the popover closes (gnome-text-editor's header-bar menu: after Escape the focus is on its Menu button,
not the text view), and it ignores AT-SPI's grab_focus. The bridge then clicks into the view, but typing right after
that click raced the focus change and lost every key in about 1 run in 8 (tests/desktop/test_typing.py).

Runs on the desktop worker thread (every function takes the backend first).
"""

from __future__ import annotations

import time
from typing import Any

from bridge.desktop.errors import DesktopError

#: Roles whose value the bridge reads back (normalized roles: GTK 3/4 and Qt say 'text', Chromium 'entry').
READABLE_ROLES = ("text", "entry", "terminal", "document text", "spin button", "combo box")
SECRET_ROLES = ("password text",)
FOCUS_WAIT = 1.0  # seconds the toolkit may take to report the focus it was given
READ_WAIT = 2.0  # seconds an app may take to apply the key events it was sent
QUIET = 0.3  # seconds a changed field stays the same before its value counts as what the app made of the keys


def read_wait(b: Any) -> float:
    """How long a read-back waits for the field: the backend's `input_settle` when it says (a fake desktop applies
    input at once), else READ_WAIT."""
    return float(getattr(b, "input_settle", READ_WAIT))


def _node(b: Any, ref: str) -> dict[str, Any] | None:
    try:
        return b.element(ref)
    except DesktopError:
        return None


def _until(check: Any, timeout: float) -> Any:
    """Poll check() (bounded) until it answers truthy; the last answer either way."""
    deadline = time.monotonic() + timeout
    while True:
        got = check()
        if got or time.monotonic() > deadline:
            return got
        time.sleep(0.01)


def focused(b: Any, ref: str, timeout: float = FOCUS_WAIT) -> bool:
    """Whether the element reports keyboard focus within `timeout`."""
    return bool(_until(lambda: "focused" in ((_node(b, ref) or {}).get("states") or ()), timeout))


def value_of(b: Any, ref: str) -> str | None:
    node = _node(b, ref)
    value = None if node is None else node.get("value")
    return value if isinstance(value, str) else None


def holds(value: str | None, before: str | None, text: str) -> bool:
    """Whether `value` is `before` with `text` typed in once: inserted at the caret, or over a selection (a run of
    `before` replaced); exactly `text` when the field was cleared first (before is None)."""
    if value is None:
        return False
    if before is None:
        return value == text
    start = value.find(text)
    while start >= 0:
        prefix, suffix = value[:start], value[start + len(text):]
        if len(prefix) + len(suffix) <= len(before) and before.startswith(prefix) and before.endswith(suffix):
            return True
        start = value.find(text, start + 1)
    return False


def settle(b: Any, ref: str, prior: str | None, before: str | None, text: str, timeout: float) -> str | None:
    """The field's value once it holds the text, or once it changed from `prior` and stayed so for QUIET seconds
    (an app that transforms what is typed), or at the timeout."""
    deadline = time.monotonic() + timeout
    last, since = value_of(b, ref), time.monotonic()
    while True:
        if holds(last, before, text):
            return last
        now = time.monotonic()
        if last != prior and now - since >= QUIET:
            return last
        if now > deadline:
            return last
        time.sleep(0.01)
        value = value_of(b, ref)
        if value != last:
            last, since = value, time.monotonic()


def readable(node: dict[str, Any] | None) -> bool:
    return node is not None and node.get("role") in READABLE_ROLES and isinstance(node.get("value"), str)


def by_keys(b: Any, node: dict[str, Any] | None, focus: Any, text: str, replace: bool) -> dict[str, Any]:
    """Focus (confirmed for an element that reports focus), clear if asked (confirmed when readable), type."""
    how = focus()
    if node is not None and not focused(b, node["ref"]):
        # a toolkit that took the focus elsewhere (GTK 4 after a popover) or ignores grab_focus: click it once
        from bridge.desktop.actions import clickable_point

        x, y = clickable_point(b, _node(b, node["ref"]) or node)
        b.click(x, y, "left", 1, [])
        how = "pointer"
        if not focused(b, node["ref"]):
            return {"focus": how, "focused": False}
    if replace:
        b.chord(["ctrl", "a"])
        b.chord(["BackSpace"])
        if readable(node) and _until(lambda: value_of(b, node["ref"]) == "", read_wait(b)) is False:
            return {"focus": how, "cleared": False}
    b.type_text(text)
    return {"focus": how}


def by_action(b: Any, node: dict[str, Any], text: str, before: str | None) -> bool:
    """Set the whole value through accessibility: `text`, or `before` + `text`."""
    return bool(b.element_set_text(node["ref"], text if before is None else before + text))


def type_into(b: Any, node: dict[str, Any] | None, focus: Any, text: str, *, replace: bool,
              method: str) -> dict[str, Any]:
    """Type `text` into `node` (or wherever `focus()` puts the keyboard focus) and check it arrived.

    Answers {input, typed, focus?, value?, verified, retried?}; raises not_typed when a readable field does not hold
    the text after the retry, action_failed when set-text is not possible for method='accessibility'."""
    check = readable(node)
    assert node is not None or not check
    secret = node is not None and node.get("role") in SECRET_ROLES
    before: str | None = None
    if not replace and check:
        before = value_of(b, node["ref"])  # type: ignore[index]
    order = ["accessibility", "keyboard"] if method == "accessibility" else ["keyboard", "accessibility"]
    if node is None or not check:
        order = order[:1]
    tried: list[dict[str, Any]] = []
    out: dict[str, Any] = {}
    for how in order:
        if how == "accessibility":
            if node is None:
                raise DesktopError("method='accessibility' sets the text of an element: give a ref or selector.",
                                   code="bad_arguments")
            if not by_action(b, node, text, before):
                tried.append({"input": "action", "result": "set-text refused (not editable text)"})
                if method == "accessibility" and len(order) == 1:
                    raise DesktopError("The element's text cannot be set through accessibility (not editable "
                                       "text). Use method='keyboard'.", code="action_failed")
                continue
            out = {"input": "action"}
        else:
            out = {"input": "keyboard", **by_keys(b, node, focus, text, replace)}
            if out.get("focused") is False or out.get("cleared") is False:
                tried.append({"input": "keyboard", "result": "the field never took the focus"
                              if out.get("focused") is False else "select-all + BackSpace did not empty it"})
                continue
        if not check:
            note = ("a password field is not read back" if secret else
                    "not read back: the target exposes no text value (no accessibility tree, or not a text field)")
            return {**out, "typed": len(text), "verified": False, "note": note}
        ref = node["ref"]  # type: ignore[index]
        prior = "" if replace else before  # what the field held right before the first key
        value = settle(b, ref, prior, before, text, read_wait(b))
        if holds(value, before, text):
            if tried:
                out["retried"] = tried
            return {**out, "typed": len(text), "value": value, "verified": True}
        whole = text if before is None else before + text
        part = value is not None and len(value) < len(whole) and whole.startswith(value)  # keys lost (a max length)
        if value != prior and not part:  # the keys arrived and the app made something else of them: typing again would not help
            if tried:
                out["retried"] = tried
            return {**out, "typed": len(text), "value": value, "verified": False, "transformed": True,
                    "note": f"The field changed to {value!r}, not to the text as sent ({text!r}): the app transformed "
                            "the input (a calculator evaluating, a mask or an autocomplete formatting). Read it as "
                            "the app's answer; do not type it again."}
        tried.append({"input": out["input"], "result": f"the field holds {value!r}"})
    held = value_of(b, node["ref"]) if node is not None else None
    want = text if before is None else f"{before!r} with {text!r} inserted"
    raise DesktopError(
        f"The text did not arrive: sent {text!r}, the field still holds {held!r} (expected {want}). Tried: "
        f"{'; '.join(t['input'] + ': ' + t['result'] for t in tried)}. Look with desktop_screenshot: a dialog or "
        "popover may hold the focus; desktop_click the field, then type again.", code="not_typed")

"""Turning the human's input events into replayable desktop_* steps (the rules are listed in
bridge/desktop/recording/recorder.py). Runs on the recording's own thread; looks at the desktop only through `probe`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from bridge.desktop.recording.probe import TEXT_ROLES, click_target, is_password, key_context

PLACEHOLDER = "<redacted>"
DOUBLE_CLICK_S = 0.4
NEAR_PX = 4
DRAG_PX = 6
FOCUS_SETTLE_S = 1.0
MAX_STEPS = 2000
#: Keys after which keyboard focus may be elsewhere.
FOCUS_KEYS = {"Tab", "Enter", "Escape", "Up", "Down", "Left", "Right", "PageUp", "PageDown", "F6"}
CHORD_MODIFIERS = ("ctrl", "alt", "super")
Probe = Callable[[dict[str, Any], Callable[[Any], dict[str, Any]]], dict[str, Any]]


class Run:
    """Characters typed into one place, waiting to become one desktop_type_text."""

    def __init__(self, at: float, window: str | None, target: dict[str, Any] | None, password: bool) -> None:
        self.at, self.window, self.target, self.password = at, window, target, password
        self.chars: list[str] = []
        self.count = 0  # what a password run keeps instead of its characters

    def add(self, ch: str) -> None:
        self.count += 1
        if not self.password:
            self.chars.append(ch)

    def backspace(self) -> None:
        self.count = max(0, self.count - 1)
        if self.chars:
            self.chars.pop()


class Steps:
    """The steps so far, and what the events have told about the keyboard, the pointer and the windows."""

    def __init__(self, probe: Probe, pending: Callable[[], list[dict[str, Any] | None]]) -> None:
        self.probe = probe  # the look at the desktop queued when an event arrived (or one now)
        self.pending = pending  # events queued after the one being handled
        self.started = 0.0
        self.steps: list[dict[str, Any]] = []
        self.skipped = 0
        self.redacted = 0
        self.tool = False  # the bridge's own input is under way
        self.tool_ran = False
        self.held: set[str] = set()
        self.caps = False
        self.run: Run | None = None
        self.press: dict[int, dict[str, Any]] = {}
        self.last_click: tuple[float, int, int] | None = None
        self.focus_hint: dict[str, Any] | None = None  # the text field the last click hit
        #: That field after a hotkey (which may or may not move focus): used only when the look at focus finds nothing
        self.focus_fallback: dict[str, Any] | None = None
        self.focus_moved = 0.0  # when a key that may move focus (Tab, a hotkey…) was last pressed
        self.active: dict[str, Any] | None = None
        self.known: set[tuple[int, Any]] = set()  # (id, pid): X reuses a closed window's id at once

    def begin(self, wins: list[dict[str, Any]], started: float) -> None:
        self.active = next((w for w in wins if w["active"]), None)
        self.known = {(w["id"], w["pid"]) for w in wins}
        self.started = started

    def handle(self, ev: dict[str, Any]) -> None:
        if ev["kind"] == "tool":
            self.tool = ev["active"]
            self.tool_ran = True
            return
        if ev["kind"] == "key" and ev["modifier"]:
            mod = ev["modifier"]
            if mod == "capslock":
                self.caps ^= ev["down"]
            elif ev["down"]:
                self.held.add(mod)
            else:
                self.held.discard(mod)
            return
        if self.tool:
            return
        if ev["kind"] == "button":
            self._button(ev)
        elif ev["down"]:
            self._key(ev)

    def _emit(self, ev: dict[str, Any], tool: str, arguments: dict[str, Any], **meta: Any) -> dict[str, Any]:
        step = {"tool": tool, "arguments": arguments, **meta, "at": round(ev["t"] - self.started, 2)}
        if len(self.steps) >= MAX_STEPS:
            self.skipped += 1
        else:
            self.steps.append(step)
        return step

    def _observe(self, ev: dict[str, Any], wins: list[dict[str, Any]], clicked: dict[str, Any] | None = None) -> None:
        """Record a window switch the human made without clicking in it (alt+tab, a window that opened by itself)."""
        active = next((w for w in wins if w["active"]), None)
        if active is not None and (self.active is None or active["id"] != self.active["id"]):
            if self.active is not None and not self.tool_ran and (clicked is None or clicked["id"] != active["id"]):
                self.flush_run()
                self._switch_to(ev, active, "active")
            self.active = active
        self.tool_ran = False
        self.known = {(w["id"], w["pid"]) for w in wins}

    def _switch_to(self, ev: dict[str, Any], win: dict[str, Any], state: str) -> None:
        if (win["id"], win["pid"]) in self.known:
            self._emit(ev, "desktop_activate_window", {"window": win["title"]})
        else:
            self._emit(ev, "desktop_wait_for_window", {"title": win["title"], "state": state},
                       why="this window opened during the recording")

    def _windows(self, ev: dict[str, Any]) -> dict[str, Any]:
        """The key's context (see key_context), after noting any window switch it shows."""
        ctx = self.probe(ev, key_context)
        self._observe(ev, ctx["windows"])
        return ctx

    # ---- pointer ----------------------------------------------------------------------------------

    def _button(self, ev: dict[str, Any]) -> None:
        button = ev["button"]
        if button >= 4:
            if ev["down"]:
                self._scroll(ev)
            return
        if ev["down"]:
            self.flush_run()
            probe = self.probe(ev, lambda b: click_target(b, ev["x"], ev["y"])) if button in (1, 3) else None
            self.press[button] = {**ev, "probe": probe}
            return
        press = self.press.pop(button, None)
        if press is None:
            return
        if button == 2:
            self.skipped += 1  # no tool clicks the middle button
            return
        if abs(ev["x"] - press["x"]) + abs(ev["y"] - press["y"]) > DRAG_PX:
            self._emit(press, "desktop_drag", {"start": {"x": press["x"], "y": press["y"]},
                                               "end": {"x": ev["x"], "y": ev["y"]}}, method="coordinates")
            self.focus_hint = self.focus_fallback = None
            return
        self._click(press)

    def _click(self, press: dict[str, Any]) -> None:
        probe = press["probe"]
        win = probe["window"]
        mods = [m for m in ("ctrl", "alt", "shift", "super") if m in self.held]
        last = self.steps[-1] if self.steps else None
        if press["button"] == 1 and not mods and last is not None and last["tool"] == "desktop_click" \
                and "modifiers" not in last["arguments"] and self.last_click is not None \
                and press["t"] - self.last_click[0] < DOUBLE_CLICK_S \
                and abs(press["x"] - self.last_click[1]) <= NEAR_PX and abs(press["y"] - self.last_click[2]) <= NEAR_PX:
            last["tool"] = "desktop_double_click"
            self.last_click = None
            return
        if win is not None and (win["id"], win["pid"]) not in self.known:
            self._switch_to(press, win, "present")  # a window that opened meanwhile: replay waits for it
        self._observe(press, probe["windows"], win)
        if win is not None:
            self.active = win  # the click activates it (the window manager may not have said so yet)
        tool = "desktop_click" if press["button"] == 1 else "desktop_right_click"
        if probe.get("selector") is not None:
            args: dict[str, Any] = {"target": probe["selector"], "window": win["title"]}
            meta: dict[str, Any] = {"method": "accessibility"}
        else:
            args, meta = {"x": press["x"], "y": press["y"]}, {"method": "coordinates", "why": probe.get("why")}
            if win is not None:
                meta["in"] = {"window": win["title"]}
        if mods and tool == "desktop_click":
            args["modifiers"] = mods
        self._emit(press, tool, args, **meta)
        self.last_click = (press["t"], press["x"], press["y"])
        node = probe.get("node")
        text_field = node is not None and node.get("role") in TEXT_ROLES
        self.focus_hint = {**node, "selector": probe["selector"]} if text_field else None
        self.focus_fallback = None

    def _scroll(self, ev: dict[str, Any]) -> None:
        self.flush_run()
        dy = {4: -1, 5: 1}.get(ev["button"], 0)
        dx = {6: -1, 7: 1}.get(ev["button"], 0)
        last = self.steps[-1] if self.steps else None
        if last is not None and last["tool"] == "desktop_scroll" and ev["t"] - self.started - last["at"] < 2 \
                and abs(last["arguments"]["x"] - ev["x"]) <= 10 and abs(last["arguments"]["y"] - ev["y"]) <= 10:
            a = last["arguments"]
            a["dy"], a["dx"] = max(-100, min(100, a["dy"] + dy)), max(-100, min(100, a["dx"] + dx))
            return
        self._emit(ev, "desktop_scroll", {"x": ev["x"], "y": ev["y"], "dy": dy, "dx": dx}, method="coordinates")

    # ---- keyboard ---------------------------------------------------------------------------------

    def _key(self, ev: dict[str, Any]) -> None:
        name = ev["key"]
        if name is None:
            self.skipped += 1
            return
        chord = [m for m in CHORD_MODIFIERS if m in self.held]
        if chord:
            if name == "Tab" and chord == ["alt"]:
                return  # window cycling: the switch it makes is recorded instead
            self.flush_run()
            self._windows(ev)
            win = self.active
            keys = "+".join([*chord, *(["shift"] if "shift" in self.held else []), name])
            self._emit(ev, "desktop_hotkey", {"keys": keys, **({"window": win["title"]} if win else {})})
            self.focus_fallback = self.focus_hint or self.focus_fallback
            self.focus_hint, self.focus_moved = None, ev["t"]
            return
        letter = ev["chars"][0] is not None and ev["chars"][0].isalpha()
        level = int(("shift" in self.held) != (self.caps and letter)) + (2 if "altgr" in self.held else 0)
        ch = ev["chars"][level] or (ev["chars"][level - 2] if level >= 2 else None)
        if ch is not None and ch.isprintable():
            if self.run is None:
                self.run = self._start_run(ev)
            self.run.add(ch)
            return
        if name == "Backspace" and self.run is not None:
            self.run.backspace()
            return
        self.flush_run()
        self._windows(ev)
        win = self.active
        key = ("shift+" if "shift" in self.held else "") + name
        last = self.steps[-1] if self.steps else None
        if last is not None and last["tool"] == "desktop_press_key" and last["arguments"]["key"] == key \
                and last["arguments"].get("window") == (win or {}).get("title") \
                and last["arguments"].get("repeat", 1) < 100:
            last["arguments"]["repeat"] = last["arguments"].get("repeat", 1) + 1
        else:
            self._emit(ev, "desktop_press_key", {"key": key, **({"window": win["title"]} if win else {})})
        if name in FOCUS_KEYS:
            self.focus_hint, self.focus_fallback, self.focus_moved = None, None, ev["t"]

    def _start_run(self, ev: dict[str, Any]) -> Run:
        """Where the typing goes, and whether it is a password: the text field the click before it hit, else the
        element that had focus when the first key arrived. When focus may not have settled there (a Tab or hotkey
        just before, or input that moves focus arriving before the look), a window that shows a password field
        redacts the run: over-redacting a user name beats leaking a password because the app lagged."""
        ctx = self._windows(ev)
        win = self.active
        hint = self.focus_hint if self.focus_hint and win and self.focus_hint.get("window") == win["id"] else None
        if hint is not None:
            sel = hint.get("selector")
            return Run(ev["t"], win["title"] if win else None, sel, is_password(hint))
        node = ctx["focused"] if ctx["focused"] and win and ctx["focused"].get("window") == win["id"] else None
        unsure = ev["t"] - self.focus_moved < FOCUS_SETTLE_S or self._focus_may_have_moved(ev, ctx["at"])
        selector = ctx["selector"] if node else None
        back = self.focus_fallback
        if selector is None and back is not None and win and back.get("window") == win["id"]:
            # The look found no focused field (AT-SPI can lag a hotkey such as ctrl+a in GTK 3): the field clicked
            # before the hotkey, which a hotkey rarely leaves. Still redacted when a password may be involved.
            node, selector = back, back.get("selector")
        password = is_password(node) or (unsure and ctx["hasPassword"])
        return Run(ev["t"], win["title"] if win else None, selector, password)

    def _focus_may_have_moved(self, ev: dict[str, Any], looked: float) -> bool:
        """Whether input that may move focus arrived after this event but before the look at the desktop."""
        for e in self.pending():
            if e is None or e["t"] > looked or not e.get("down") or e["kind"] == "tool":
                continue
            if e["kind"] == "button" or e["key"] in FOCUS_KEYS or e["modifier"] in CHORD_MODIFIERS:
                return True
        return False

    def flush_run(self) -> None:
        run, self.run = self.run, None
        if run is None or run.count == 0:
            return
        args: dict[str, Any] = {"value": PLACEHOLDER if run.password else "".join(run.chars)}
        if run.target is not None:
            args["target"] = run.target
        if run.window is not None:
            args["window"] = run.window
        meta: dict[str, Any] = {"method": "accessibility" if run.target else "focus"}
        if run.password:
            self.redacted += 1
            meta.update(redacted=True, note="typed into a password field: the text was not recorded; put the "
                                            "secret in value before replaying")
        self._emit({"t": run.at}, "desktop_type_text", args, **meta)

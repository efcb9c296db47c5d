"""Recording the human's input on the desktop as replayable desktop_* tool calls.

The backend captures raw input in order (X11: bridge/desktop/x11_record.py) and hands each event to a Recording,
which turns events into steps on a thread of its own. It looks at the desktop through the desktop worker: the window
under a click, the element there, where keyboard focus is.

  click / right / double click → desktop_click … with a selector {role, name[, ordinal]} of the element under the
      pointer, scoped to its window by title; x,y when no element is there (each step's `method` says which)
  typed characters → one desktop_type_text per run (into the field that has focus; Backspace edits the run)
  chords with ctrl/alt/super → desktop_hotkey; Enter, Tab, arrows, F-keys… → desktop_press_key (repeats merged)
  wheel → desktop_scroll, press-move-release → desktop_drag (both by coordinates)
  the active window changing without a click → desktop_activate_window; a click or switch into a window that was
      not there before first waits for it (desktop_wait_for_window)

Input the bridge's own tools send is left out (the backend marks it in the stream). Text typed into a password field
is never kept: its step carries a placeholder and `redacted: true`.
"""

from __future__ import annotations

import json
import os
import queue
import secrets
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from bridge.desktop import selectors
from bridge.desktop.actions import interactive
from bridge.desktop.errors import DesktopError

PLACEHOLDER = "<redacted>"
DOUBLE_CLICK_S = 0.4
NEAR_PX = 4
DRAG_PX = 6
FOCUS_SETTLE_S = 1.0
PROBE_TIMEOUT = 10.0
MAX_STEPS = 2000
MAX_SECONDS = 600
#: Roles that take typed text: typing after focusing one of these targets it by selector.
TEXT_ROLES = {"text", "entry", "password text", "terminal", "document text", "editbar", "combo box", "spin button"}
#: Keys after which keyboard focus may be elsewhere.
FOCUS_KEYS = {"Tab", "Enter", "Escape", "Up", "Down", "Left", "Right", "PageUp", "PageDown", "F6"}
CHORD_MODIFIERS = ("ctrl", "alt", "super")


def is_password(node: dict[str, Any] | None) -> bool:
    if not node:
        return False
    states = " ".join(node.get("states") or [])
    return selectors._norm(node.get("role") or "") == "passwordtext" or "password" in states or "protected" in states


def selector_for(b: Any, window: dict[str, Any], node: dict[str, Any]) -> dict[str, Any] | None:
    """{role, name[, ordinal]} that finds this node again in its window, or None if the window's showing elements do
    not include it."""
    role, name = node.get("role") or "", (node.get("name") or "").strip()
    clean = " ".join(name.split()).casefold()
    same = [n for n in b.candidates(pid=None, window=window, within=None, roles=[selectors._norm(role)])
            if " ".join((n.get("name") or "").split()).casefold() == clean]
    at = next((i for i, n in enumerate(same) if n["ref"] == node["ref"]), None)
    if at is None:
        return None
    sel: dict[str, Any] = {"role": role}
    if name:
        sel["name"] = name
    if len(same) > 1:
        sel["ordinal"] = at
    return sel


def key_context(b: Any) -> dict[str, Any]:
    """Where a key goes, looked at as it arrives (on the desktop worker): the windows, the focused element of the
    active one (with a selector if it takes text), and whether that window shows a password field."""
    out: dict[str, Any] = {"at": time.monotonic(), "windows": b.windows(), "focused": None, "selector": None,
                           "hasPassword": False}
    active = next((w for w in out["windows"] if w["active"]), None)
    if active is None or active.get("pid") is None:
        return out
    try:
        node = out["focused"] = b.focused_element(active)
        if node is not None and node.get("role") in TEXT_ROLES:
            out["selector"] = selector_for(b, active, node)
        out["hasPassword"] = bool(b.candidates(pid=None, window=active, within=None, roles=["passwordtext"]))
    except DesktopError:
        pass  # no accessibility tree there: typing goes to the window
    return out


def click_target(b: Any, x: int, y: int) -> dict[str, Any]:
    """What a pointer press at x,y hit: {window, node?, selector?, why?} (on the desktop worker)."""
    wins = b.windows()
    win = next((w for w in wins if w["mapped"] and "minimized" not in w["state"]
                and w["frame"]["x"] <= x < w["frame"]["x"] + w["frame"]["width"]
                and w["frame"]["y"] <= y < w["frame"]["y"] + w["frame"]["height"]), None)
    out: dict[str, Any] = {"at": time.monotonic(), "windows": wins, "window": win}
    if win is None:
        return {**out, "why": "no window under the pointer"}
    try:
        hit = b.element_at(win, x, y)
    except DesktopError:
        hit = None
    if hit is None:
        return {**out, "why": "no accessible element under the pointer (the title bar, or an app without an "
                              "accessibility tree)"}
    for n in [hit["node"], *hit["ancestors"]]:
        if selectors._norm(n.get("role") or "") in ("frame", "window", "dialog"):
            break
        if interactive(n):
            sel = selector_for(b, win, n)
            if sel is not None:
                return {**out, "node": n, "selector": sel}
            return {**out, "why": f"the {n.get('role')} under the pointer cannot be found again by selector"}
    return {**out, "why": f"no control under the pointer (it is on a {hit['node'].get('role')})"}


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


class Recording:
    """One recording: events in (from the capture thread), steps out (built on its own thread)."""

    def __init__(self, submit: Callable[[Callable[[Any], Any]], Future[Any]], max_seconds: float,
                 allowed: Callable[[], bool] = lambda: True) -> None:
        self.submit = submit  # queues fn(backend) on the desktop worker
        self.allowed = allowed  # False once input consent ends (attached displays)
        self.max_seconds = max_seconds
        self.q: queue.Queue[dict[str, Any] | None] = queue.Queue()
        self.steps: list[dict[str, Any]] = []
        self.started = time.monotonic()
        self.started_at = time.time()
        self.deadline = self.started + max_seconds
        self.ended_by: str | None = None
        self.ended = 0.0
        self.done = threading.Event()
        self.skipped = 0
        self.redacted = 0
        self.errors: list[str] = []
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._loop, name="dbg-recording", daemon=True)
        # what the events have told so far
        self.tool = False  # the bridge's own input is under way
        self.tool_ran = False
        self.held: set[str] = set()
        self.caps = False
        self.run: Run | None = None
        self.press: dict[int, dict[str, Any]] = {}
        self.last_click: tuple[float, int, int] | None = None
        self.focus_hint: dict[str, Any] | None = None  # the text field the last click hit
        self.focus_moved = 0.0  # when a key that may move focus (Tab, a hotkey…) was last pressed
        self.active: dict[str, Any] | None = None
        self.known: set[tuple[int, Any]] = set()  # (id, pid): X reuses a closed window's id at once
        # what the capture thread tracks to decide which events get a probe as they arrive
        self._arriving = {"tool": False, "held": set(), "typing": False}

    # ---- lifecycle ------------------------------------------------------------------------------

    def begin(self, b: Any) -> None:
        """On the desktop worker: note the windows, start capturing, start building steps."""
        wins = b.windows()
        self.active = next((w for w in wins if w["active"]), None)
        self.known = {(w["id"], w["pid"]) for w in wins}
        b.record_start(self._arrive)
        self.started = time.monotonic()
        self.deadline = self.started + self.max_seconds
        self._thread.start()

    def call(self, fn: Callable[[Any], Any]) -> Any:
        return self.submit(fn).result(PROBE_TIMEOUT)

    def _arrive(self, ev: dict[str, Any]) -> None:
        """On the capture thread: queue the event, and for a press that needs a look at the desktop (a click, a key
        that starts typing or acts) queue that look on the desktop worker right now. The worker runs jobs in order,
        so the look comes after the input already sent and before any the bridge sends later: what it sees is what
        the input met, even when the recorder itself runs behind."""
        a = self._arriving
        if ev["kind"] == "tool":
            a["tool"] = ev["active"]
        elif ev["kind"] == "key" and ev["modifier"]:
            (a["held"].add if ev["down"] else a["held"].discard)(ev["modifier"])
        elif ev["down"] and not a["tool"]:
            if ev["kind"] == "button":
                a["typing"] = False
                if ev["button"] in (1, 3):
                    x, y = ev["x"], ev["y"]
                    ev["probe"] = self.submit(lambda b: click_target(b, x, y))
            else:
                plain = ev["chars"][0] is not None and not (a["held"] & set(CHORD_MODIFIERS))
                if not (plain and a["typing"]):
                    ev["probe"] = self.submit(key_context)
                a["typing"] = plain
        self.q.put(ev)

    def _probe(self, ev: dict[str, Any], fn: Callable[[Any], dict[str, Any]]) -> dict[str, Any]:
        """The look queued when the event arrived (or one now, if none was)."""
        fut = ev.get("probe")
        return fut.result(PROBE_TIMEOUT) if fut is not None else self.call(fn)

    @property
    def active_now(self) -> bool:
        return self.ended_by is None

    def end(self, reason: str) -> None:
        """Stop capturing (any thread but the worker; idempotent). Steps are complete once `done` is set."""
        with self._lock:
            if self.ended_by is not None:
                return
            self.ended_by = reason
            self.ended = time.monotonic()
        try:
            self.call(lambda b: b.record_stop())
        except Exception as exc:  # noqa: BLE001 - the desktop went away: nothing more will come anyway
            self.errors.append(f"stopping the capture: {exc}")
        self.q.put(None)

    def stop(self, timeout: float = 30) -> dict[str, Any]:
        self.end("stop")
        self.done.wait(timeout)
        return self.result()

    def status(self) -> dict[str, Any]:
        end = self.ended if self.ended_by else time.monotonic()
        return {"active": self.ended_by is None, "since": round(self.started_at, 3), "maxSeconds": self.max_seconds,
                "seconds": round(end - self.started, 1), "steps": len(self.steps), "endedBy": self.ended_by}

    def result(self) -> dict[str, Any]:
        out = {**self.status(), "steps": self.steps, "count": len(self.steps), "redacted": self.redacted,
               "skipped": self.skipped}
        del out["active"]
        if self.errors:
            out["errors"] = self.errors[:10]
        out["replay"] = ("Call each step's tool with its arguments, in order. Steps with redacted: true typed into a "
                         "password field: put the secret in value first.")
        return out

    def _loop(self) -> None:
        try:
            while True:
                try:
                    ev = self.q.get(timeout=0.2)
                except queue.Empty:
                    if time.monotonic() >= self.deadline:
                        self.end("time_limit")
                    elif not self.allowed():
                        self.end("consent_ended")
                    continue
                if ev is None:
                    break
                if ev["t"] > self.deadline:
                    self.end("time_limit")
                    continue
                if not self.allowed():
                    self.end("consent_ended")
                    continue
                try:
                    self._handle(ev)
                except Exception as exc:  # noqa: BLE001 - one event that could not be read; keep recording
                    self.skipped += 1
                    self.errors.append(f"{type(exc).__name__}: {exc}")
                    if getattr(exc, "code", None) == "desktop_stopped":
                        self.end("desktop_stopped")
        finally:
            self._flush_run()
            self.done.set()

    # ---- events -----------------------------------------------------------------------------------

    def _handle(self, ev: dict[str, Any]) -> None:
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
                self._flush_run()
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
        ctx = self._probe(ev, key_context)
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
            self._flush_run()
            probe = self._probe(ev, lambda b: click_target(b, ev["x"], ev["y"])) if button in (1, 3) else None
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
            self.focus_hint = None
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

    def _scroll(self, ev: dict[str, Any]) -> None:
        self._flush_run()
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
            self._flush_run()
            self._windows(ev)
            win = self.active
            keys = "+".join([*chord, *(["shift"] if "shift" in self.held else []), name])
            self._emit(ev, "desktop_hotkey", {"keys": keys, **({"window": win["title"]} if win else {})})
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
        self._flush_run()
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
            self.focus_hint, self.focus_moved = None, ev["t"]

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
        password = is_password(node) or (unsure and ctx["hasPassword"])
        return Run(ev["t"], win["title"] if win else None, ctx["selector"] if node else None, password)

    def _focus_may_have_moved(self, ev: dict[str, Any], looked: float) -> bool:
        """Whether input that may move focus arrived after this event but before the look at the desktop."""
        with self.q.mutex:
            pending = list(self.q.queue)
        for e in pending:
            if e is None or e["t"] > looked or not e.get("down") or e["kind"] == "tool":
                continue
            if e["kind"] == "button" or e["key"] in FOCUS_KEYS or e["modifier"] in CHORD_MODIFIERS:
                return True
        return False

    def _flush_run(self) -> None:
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


def save(config_dir: Path, result: dict[str, Any]) -> Path:
    """Write a finished recording as JSON into <config_dir>/recordings (owner-only), return its path."""
    folder = Path(config_dir) / "recordings"
    folder.mkdir(parents=True, exist_ok=True, mode=0o700)
    name = time.strftime("recording-%Y%m%d-%H%M%S-", time.localtime()) + secrets.token_hex(2) + ".json"
    path = folder / name
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump({k: v for k, v in result.items() if k != "file"}, f, ensure_ascii=False, indent=2)
    return path

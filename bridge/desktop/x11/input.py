"""Pointer and keyboard input through XTest: clicks, drags, scrolls, key chords and Unicode text.

Characters the keymap lacks get a spare keycode mapped to their keysym (as xdotool does). Spare keycodes are used
round-robin and never mapped back at once, so an app that reads the keymap late still sees the right symbol.
"""

from __future__ import annotations

import time

from Xlib import XK, X
from Xlib import display as xdisplay
from Xlib.ext import xtest

from bridge.desktop.errors import DesktopError
from bridge.desktop.keyboard.keys import CHAR_KEYS, KEY_ALIASES, MODIFIERS

BUTTONS = {"left": 1, "middle": 2, "right": 3}


def keysym_for_char(ch: str) -> int:
    if ch in CHAR_KEYS:
        return XK.string_to_keysym(CHAR_KEYS[ch])
    code = ord(ch)
    if 0x20 <= code <= 0x7E or 0xA0 <= code <= 0xFF:
        return code  # Latin-1 keysyms equal their code points
    return 0x01000000 | code


def keysym_for_name(name: str) -> int:
    """'a', 'Enter', 'F5', 'ctrl', 'KP_Enter', 'é' → a keysym; raises a helpful error for unknown names."""
    low = name.lower()
    if low in MODIFIERS:
        return XK.string_to_keysym(MODIFIERS[low])
    if low in KEY_ALIASES:
        return XK.string_to_keysym(KEY_ALIASES[low])
    if len(name) == 1:
        return keysym_for_char(name)
    sym = XK.string_to_keysym(name)
    if not sym:
        sym = XK.string_to_keysym(name[:1].upper() + name[1:])
    if not sym:
        raise DesktopError(f"Unknown key '{name}'. Use names like Enter, Tab, Escape, Backspace, Delete, Up, F5, "
                           "Home, PageDown, a single character, or an X keysym name (e.g. KP_Enter).",
                           code="bad_arguments")
    return sym


#: Longest wait for the X server to process a click's button while modifiers are held (see Input.click).
BUTTON_SEEN = 2.0


class Input:
    """XTest input on one display connection (use it from one thread)."""

    def __init__(self, d: xdisplay.Display) -> None:
        self.d = d
        if not d.has_extension("XTEST"):
            raise DesktopError("This X display has no XTEST extension, so input cannot be sent.",
                               code="desktop_unavailable")
        self.min_code = d.display.info.min_keycode
        self.max_code = d.display.info.max_keycode
        self._spare: list[int] = []
        self._ours: set[int] = set()  # spare keycodes this connection mapped (still spare after a reload)
        self._next_spare = 0
        self._load_keymap()

    def _load_keymap(self) -> None:
        """Read the server's keymap now: the human (or setxkbmap) may have changed the layout since the last call."""
        count = self.max_code - self.min_code + 1
        self.keymap = self.d.get_keyboard_mapping(self.min_code, count)
        self._spare = [self.min_code + i for i, syms in enumerate(self.keymap)
                       if not any(syms) or self.min_code + i in self._ours]
        self._where: dict[int, tuple[int, int]] = {}
        for i, syms in enumerate(self.keymap):
            for level, sym in enumerate(syms[:2]):
                if sym and sym not in self._where:
                    self._where[sym] = (self.min_code + i, level)

    # ---- pointer ---------------------------------------------------------------------------

    def move(self, x: int, y: int) -> None:
        xtest.fake_input(self.d, X.MotionNotify, x=int(x), y=int(y))

    def click(self, x: int, y: int, button: str = "left", count: int = 1, modifiers: list[str] | None = None) -> None:
        code = BUTTONS[button]
        self.move(x, y)
        held = [self._code(keysym_for_name(m))[0] for m in modifiers or []]
        for k in held:
            xtest.fake_input(self.d, X.KeyPress, k)
        for _ in range(count):
            xtest.fake_input(self.d, X.ButtonPress, code)
            if held:
                self._until_button(code, True)
            xtest.fake_input(self.d, X.ButtonRelease, code)
            if held:
                self._until_button(code, False)
        for k in reversed(held):
            xtest.fake_input(self.d, X.KeyRelease, k)
        self.d.sync()

    def _until_button(self, code: int, down: bool) -> None:
        """Wait (bounded) until the server has processed the button: a window manager's click-to-focus grab freezes
        the pointer, queueing its events while keys go through, so modifiers released right after the button (one
        burst of XTest input) were up again before the frozen press was processed, and the app saw a plain click
        (tests/desktop/test_backends.py, every time under load)."""
        mask = 1 << (7 + code)  # Button1Mask is 1 << 8
        root = self.d.screen().root
        deadline = time.monotonic() + BUTTON_SEEN
        while bool(root.query_pointer().mask & mask) != down and time.monotonic() < deadline:
            time.sleep(0.002)

    def drag(self, x1: int, y1: int, x2: int, y2: int, button: str = "left", steps: int = 12,
             step_delay: float = 0.02, hold: float = 0.12) -> None:
        """Press, move in steps at a hand's pace, rest on the end point for `hold` s, release: libraries that sample
        the pointer on a timer (SortableJS's pointer fallback every 50 ms) see where it stopped before the release."""
        code = BUTTONS[button]
        self.move(x1, y1)
        xtest.fake_input(self.d, X.ButtonPress, code)
        self.d.sync()
        for i in range(1, steps + 1):
            # intermediate motion lets toolkits see a drag start (they want a few pixels of travel)
            self.move(round(x1 + (x2 - x1) * i / steps), round(y1 + (y2 - y1) * i / steps))
            self.d.sync()
            time.sleep(step_delay)
        time.sleep(hold)
        xtest.fake_input(self.d, X.ButtonRelease, code)
        self.d.sync()

    def scroll(self, x: int, y: int, dx: int = 0, dy: int = 0) -> None:
        """Wheel clicks at a point: dy > 0 scrolls down, dx > 0 right."""
        self.move(x, y)
        for amount, neg, pos in ((dy, 4, 5), (dx, 6, 7)):
            for _ in range(abs(amount)):
                b = pos if amount > 0 else neg
                xtest.fake_input(self.d, X.ButtonPress, b)
                xtest.fake_input(self.d, X.ButtonRelease, b)
        self.d.sync()

    def pointer(self) -> tuple[int, int]:
        p = self.d.screen().root.query_pointer()
        return p.root_x, p.root_y

    # ---- keyboard --------------------------------------------------------------------------

    def _code(self, sym: int) -> tuple[int, int]:
        """(keycode, level) for a keysym, mapping it onto a spare keycode if the keymap lacks it."""
        if sym in self._where:
            return self._where[sym]
        if not self._spare:
            raise DesktopError("No spare keycode is left to type this character.", code="input_failed")
        code = self._spare[self._next_spare % len(self._spare)]
        self._next_spare += 1
        for s, (c, _) in list(self._where.items()):
            if c == code:
                del self._where[s]
        width = len(self.keymap[0]) if self.keymap else 2
        self.d.change_keyboard_mapping(code, [(sym, sym) + (0,) * max(0, width - 2)])
        self.d.sync()
        self._ours.add(code)
        self._where[sym] = (code, 0)
        return code, 0

    def chord(self, names: list[str]) -> None:
        """Press the keys in order, release them in reverse: ['ctrl', 'shift', 't']."""
        self._load_keymap()
        codes: list[int] = []
        for name in names:
            code, level = self._code(keysym_for_name(name))
            if level == 1 and name.lower() not in MODIFIERS:
                shift = self._code(XK.string_to_keysym("Shift_L"))[0]
                if shift not in codes:
                    codes.append(shift)
            codes.append(code)
        for c in codes:
            xtest.fake_input(self.d, X.KeyPress, c)
        for c in reversed(codes):
            xtest.fake_input(self.d, X.KeyRelease, c)
        self.d.sync()

    def type_text(self, text: str, chunk_delay: float = 0.0) -> None:
        """Type text as key events; each character is a press and release (with Shift where the keymap needs it)."""
        self._load_keymap()
        shift = self._code(XK.string_to_keysym("Shift_L"))[0]
        for n, ch in enumerate(text):
            code, level = self._code(keysym_for_char(ch))
            if level == 1:
                xtest.fake_input(self.d, X.KeyPress, shift)
            xtest.fake_input(self.d, X.KeyPress, code)
            xtest.fake_input(self.d, X.KeyRelease, code)
            if level == 1:
                xtest.fake_input(self.d, X.KeyRelease, shift)
            if n % 32 == 31:
                self.d.sync()
                if chunk_delay:
                    time.sleep(chunk_delay)
        self.d.sync()

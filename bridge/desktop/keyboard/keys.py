"""Key names and chords, shared by every backend: 'ctrl+shift+t' → ['ctrl', 'shift', 't']."""

from __future__ import annotations

from bridge.desktop.errors import DesktopError

MODIFIERS = {
    "ctrl": "Control_L", "control": "Control_L", "shift": "Shift_L", "alt": "Alt_L", "option": "Alt_L",
    "super": "Super_L", "meta": "Super_L", "win": "Super_L", "cmd": "Super_L", "command": "Super_L",
    "altgr": "ISO_Level3_Shift",
}
KEY_ALIASES = {
    "enter": "Return", "return": "Return", "esc": "Escape", "escape": "Escape", "tab": "Tab", "space": "space",
    "backspace": "BackSpace", "delete": "Delete", "del": "Delete", "insert": "Insert", "ins": "Insert",
    "home": "Home", "end": "End", "pageup": "Prior", "pgup": "Prior", "pagedown": "Next", "pgdn": "Next",
    "up": "Up", "down": "Down", "left": "Left", "right": "Right", "menu": "Menu", "capslock": "Caps_Lock",
    "printscreen": "Print", "print": "Print", "pause": "Pause", "plus": "plus", "minus": "minus",
    **{f"f{i}": f"F{i}" for i in range(1, 25)},
}
CHAR_KEYS = {"\n": "Return", "\r": "Return", "\t": "Tab"}


def parse_chord(chord: str) -> list[str]:
    """'ctrl+shift+t' → ['ctrl', 'shift', 't']; 'ctrl+plus' and a lone '+' work too."""
    chord = chord.strip()
    if chord == "+":
        return ["+"]
    parts = [p.strip() for p in chord.replace("++", "+plus").split("+")]
    if not all(parts):
        raise DesktopError(f"'{chord}' is not a key chord. Write keys joined by '+', e.g. 'ctrl+shift+t', 'alt+F4'.",
                           code="bad_arguments")
    return parts

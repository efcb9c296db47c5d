"""X keysyms by name and by the character they type, shared by the backends (python-xlib's table, loaded on first
use; Wayland's XKB keymaps use the same names)."""

from __future__ import annotations

#: X keysym names the desktop tools spell otherwise.
FRIENDLY = {"Return": "Enter", "BackSpace": "Backspace", "Prior": "PageUp", "Next": "PageDown", "Page_Up": "PageUp",
            "Page_Down": "PageDown"}
_names: dict[int, str] = {}


def keysym_name(sym: int) -> str | None:
    """An X keysym's name ('Return', 'F4', 'a'), or None if python-xlib does not know it."""
    if not _names:
        from Xlib import XK  # python-xlib's table, loaded on first use

        for group in ("xkb", "latin2", "latin3", "latin4", "greek", "cyrillic"):
            try:
                XK.load_keysym_group(group)
            except ImportError:
                pass
        for name, value in vars(XK).items():
            if name.startswith("XK_") and isinstance(value, int):
                _names.setdefault(value, name[3:])
    return _names.get(sym)


def char_of(sym: int) -> str | None:
    """The character a keysym types, or None for keys that type none (Enter, Tab and F4 are keys, not text)."""
    if 0x20 <= sym <= 0x7E or 0xA0 <= sym <= 0xFF:
        return chr(sym)
    if sym & 0xFF000000 == 0x01000000:
        return chr(sym & 0xFFFFFF)
    if 0xFFB0 <= sym <= 0xFFB9:  # KP_0 … KP_9
        return str(sym - 0xFFB0)
    return None


def key_name(sym: int) -> str | None:
    """The name desktop_press_key / desktop_hotkey take for a keysym: 'a', 'plus', 'Enter', 'F4', 'é'."""
    if not sym:
        return None
    if sym == 0x20:
        return "space"
    if sym == 0x2B:
        return "plus"
    if 0x21 <= sym <= 0x7E or 0xA0 <= sym <= 0xFF:
        return chr(sym).lower()
    if sym & 0xFF000000 == 0x01000000:
        return chr(sym & 0xFFFFFF)
    name = keysym_name(sym)
    return FRIENDLY.get(name or "", name)

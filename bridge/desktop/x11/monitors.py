"""Monitors of an X display through RandR 1.5: list them (name, bounds, primary), and declare side-by-side ones on a
private Xvfb screen (Xvfb has one output; RandR 1.5 monitors are how clients and window managers learn where the
screens are).

Imported by the X11 backend once its display runs.
"""

from __future__ import annotations

import subprocess
from typing import Any

from bridge.desktop.errors import DesktopError



def monitors(d: Any) -> list[dict[str, Any]]:
    """The display's monitors, left to right; the whole screen as one when RandR names none."""
    root = d.screen().root
    try:
        got = root.xrandr_get_monitors(is_active=True).monitors
    except Exception:  # noqa: BLE001 - no RandR 1.5 on this server: one monitor, the screen
        got = []
    out = [{"name": d.get_atom_name(m.name), "primary": bool(m.primary),
            "bounds": {"x": m.x, "y": m.y, "width": m.width_in_pixels, "height": m.height_in_pixels}} for m in got]
    if not out:
        s = d.screen()
        out = [{"name": "screen", "primary": True,
                "bounds": {"x": 0, "y": 0, "width": s.width_in_pixels, "height": s.height_in_pixels}}]
    return sorted(out, key=lambda m: (m["bounds"]["x"], m["bounds"]["y"]))


def declare_side_by_side(env: dict[str, str], count: int, width: int, height: int, dpi: int) -> None:
    """`count` monitors of width x height from the left edge, the first one primary and standing for the screen's
    one output (else RandR keeps listing that output's own monitor, the whole screen, beside them), through the
    `xrandr` CLI (python-xlib 0.33 cannot pack a SetMonitor request)."""
    def xrandr(*args: str) -> str:
        done = subprocess.run(["xrandr", *args], env=env, capture_output=True, text=True, timeout=10)
        if done.returncode != 0:
            raise DesktopError(f"xrandr {' '.join(args)} failed: {done.stderr.strip() or done.returncode}. xrandr "
                               "comes with the Debian package x11-xserver-utils.", code="desktop_failed")
        return done.stdout

    output = next((line.split()[0] for line in xrandr("--query").splitlines() if " connected" in line), "none")
    for i in range(count):
        mm_w, mm_h = round(width * 25.4 / dpi), round(height * 25.4 / dpi)
        xrandr("--setmonitor", f"{'*' if i == 0 else ''}DBG-{i + 1}", f"{width}/{mm_w}x{height}/{mm_h}+{i * width}+0",
               output if i == 0 else "none")

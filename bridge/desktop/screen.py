"""Screenshots with mss: the screen, a window's frame or a region, as PNG, with the scale factor.

Imported only by a backend once its display runs (mss reads the display when it is created).
"""

from __future__ import annotations

from typing import Any

import mss
import mss.tools

from bridge.desktop.backend import Shot
from bridge.desktop.errors import DesktopError


class Screen:
    """One mss grabber on one display (use it from one thread)."""

    def __init__(self, display: str) -> None:
        self._mss = mss.MSS(display=display)

    def size(self) -> tuple[int, int]:
        mon = self._mss.monitors[0]
        return mon["width"], mon["height"]

    def grab(self, region: dict[str, int] | None = None, level: int = 3) -> Shot:
        """Grab region {x, y, width, height} (clipped to the screen) or the whole screen."""
        mon = self._mss.monitors[0]
        if region is None:
            box = {"left": mon["left"], "top": mon["top"], "width": mon["width"], "height": mon["height"]}
        else:
            x1, y1 = max(region["x"], mon["left"]), max(region["y"], mon["top"])
            x2 = min(region["x"] + region["width"], mon["left"] + mon["width"])
            y2 = min(region["y"] + region["height"], mon["top"] + mon["height"])
            if x2 <= x1 or y2 <= y1:
                raise DesktopError(f"Region {region} is off the screen ({mon['width']}x{mon['height']}).",
                                   code="bad_arguments")
            box = {"left": x1, "top": y1, "width": x2 - x1, "height": y2 - y1}
        img: Any = self._mss.grab(box)
        png = mss.tools.to_png(img.rgb, img.size, level=level)
        assert png is not None
        return Shot(png=png, width=img.size[0], height=img.size[1], origin=(box["left"], box["top"]), scale=1.0)

    def close(self) -> None:
        self._mss.close()

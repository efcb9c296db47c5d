"""A HiDPI desktop with two monitors: desktop_scale=2 (apps draw at twice the size) and desktop_monitors=2 (two
1280x1024 monitors side by side). Status reports both; bounds, pointer clicks and screenshots are right on the
second monitor for GTK 3, GTK 4 and Qt 6 apps, which all report their extents in unscaled pixels."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

import pytest

from bridge.desktop import children
from bridge.desktop.errors import DesktopError
from bridge.desktop.selectors import Selector
from tests.desktop.conftest import GTK_APP, Desk
from tests.support import wait_until

MONITOR = {"width": 1280, "height": 1024}


@pytest.fixture(scope="module")
def big() -> Iterator[Desk]:
    desk = Desk(desktop_scale=2, desktop_monitors=2, desktop_size="1280x1024")
    desk("desktop_status")
    marker = desk.marker()
    yield desk
    desk.close()
    assert marker and children.marked(marker) == []


def on_second_monitor(desk: Desk, argv: list[str]) -> dict[str, Any]:
    """Launch an app and move its window onto the second monitor; the window as it settled."""
    got = desk("desktop_launch_app", argv=argv, timeout=30)
    assert got["accessible"] is True
    win = got["windows"][0]
    moved = desk("desktop_resize_window", window=win["id"], x=MONITOR["width"] + 40, y=0)["window"]
    assert moved["frame"]["x"] >= MONITOR["width"], moved
    return moved


def inside(b: dict[str, int], area: dict[str, int]) -> bool:
    return area["x"] <= b["x"] and b["x"] + b["width"] <= area["x"] + area["width"] and \
        area["y"] <= b["y"] and b["y"] + b["height"] <= area["y"] + area["height"]


def quit_app(desk: Desk, pid: int | None) -> None:
    try:
        desk("desktop_quit_app", pid=pid, timeout=3)
    except DesktopError:
        pass


def test_status_reports_the_scale_and_both_monitors(big):
    st = big("desktop_status")
    assert st["scale"] == 2.0 and st["screen"] == {"width": 2560, "height": 1024}
    assert [m["bounds"] for m in st["monitors"]] == [{"x": 0, "y": 0, **MONITOR}, {"x": 1280, "y": 0, **MONITOR}]
    assert [m["primary"] for m in st["monitors"]] == [True, False]


def test_gtk3_app_on_the_second_monitor_at_scale_2_is_clicked_and_typed_into_by_selector(big):
    win = on_second_monitor(big, [*GTK_APP, "--title", "Scaled"])
    try:
        greet = big("desktop_find_elements", target=Selector(role="button", name="Greet"), window=win["id"])[
            "matches"][0]
        b = greet["bounds"]
        assert inside(b, win["bounds"]) and b["height"] > 50, (b, win)  # device pixels, not GTK's unscaled ones
        shot = big("desktop_screenshot", ref=greet["ref"]).structured_content
        assert (shot["width"], shot["height"]) == (b["width"], b["height"]) and shot["origin"]["x"] >= 1280
        out = big("desktop_type_text", value="Ada", target=Selector(role="textbox"), window=win["id"])
        assert out["verified"] is True
        out = big("desktop_click", target=Selector(role="button", name="Greet"), window=win["id"])
        assert out["input"] == "pointer" and out["point"]["x"] > 1280
        big("desktop_wait_for_element", target=Selector(role="label", name="Hello, Ada!"), window=win["id"],
            timeout=5)
        window_shot = big("desktop_screenshot", window=win["id"])
        assert window_shot.structured_content["origin"] == {"x": win["frame"]["x"], "y": win["frame"]["y"]}
        assert base64.b64decode(window_shot.content[0].data)[:4] == b"\x89PNG"
    finally:
        quit_app(big, win["pid"])


def test_gtk4_calculator_at_scale_2_on_the_second_monitor_multiplies(big):
    win = on_second_monitor(big, ["gnome-calculator"])
    try:
        for key in ("4", "×", "5", "="):
            out = big("desktop_click", target=Selector(role="button", name=key), window=win["id"])
            assert out["input"] == "pointer" and inside({**out["point"], "width": 1, "height": 1}, win["bounds"])
        found = lambda: big("desktop_find_elements", target=Selector(role="text", ordinal=0),  # noqa: E731
                            window=win["id"])["matches"][0].get("value")
        wait_until(lambda: found() == "20", 5, what="4 × 5 = 20")
    finally:
        quit_app(big, win["pid"])


def test_qt6_app_at_scale_2_on_the_second_monitor_switches_tab_by_pointer(big):
    win = on_second_monitor(big, ["qt6ct"])
    try:
        tab = big("desktop_find_elements", target=Selector(role="tab", name="Fonts"), window=win["id"])["matches"][0]
        assert inside(tab["bounds"], win["bounds"]) and tab["bounds"]["height"] > 40, (tab, win)
        out = big("desktop_click", target=Selector(role="tab", name="Fonts"), window=win["id"])
        assert out["input"] == "pointer"
        big("desktop_wait_for_element", target=Selector(role="button", name="Create  fonts.conf"), window=win["id"],
            timeout=5)
    finally:
        quit_app(big, win["pid"])

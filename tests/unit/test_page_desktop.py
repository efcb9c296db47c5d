"""Mapping a tab's viewport onto the bridge's desktop (bridge/tools/page/desktop.py): where a CSS-px point lands on
the screen, and page key names as the desktop family spells them."""

from bridge.tools.page.desktop import screen_box, screen_point, x_keys

# Chromium on openbox as seen in e2e/test_acting_desktop.py: a 1050x780 window at 10,10 with a 4-px border and a
# 1042x633 viewport under its tab strip and toolbar
WINDOW = {"id": 1, "bounds": {"x": 10, "y": 10, "width": 1050, "height": 780}}
VIEWPORT = {"innerWidth": 1042, "innerHeight": 633, "devicePixelRatio": 1}


def test_a_viewport_point_lands_inside_the_browsers_border_under_its_toolbar():
    assert screen_point(WINDOW, VIEWPORT, 0, 0) == (14, 153)
    assert screen_point(WINDOW, VIEWPORT, 156, 86.75) == (170, 240)


def test_device_pixels_scale_the_point_and_the_box():
    hidpi = {"innerWidth": 521, "innerHeight": 316.5, "devicePixelRatio": 2}
    assert screen_point(WINDOW, hidpi, 10, 10) == (34, 173)
    assert screen_box(WINDOW, hidpi, {"x": 10, "y": 10, "width": 20, "height": 5}) == \
        {"x": 34, "y": 173, "width": 40, "height": 10}


def test_the_whole_viewport_is_the_box_when_none_is_given():
    assert screen_box(WINDOW, VIEWPORT, None) == {"x": 14, "y": 153, "width": 1042, "height": 633}


def test_page_key_names_become_the_desktop_familys():
    assert x_keys("Control+End") == ["ctrl", "End"]
    assert x_keys("Escape") == ["Escape"]
    assert x_keys("Shift+ArrowDown") == ["Shift", "down"]
    assert x_keys("+") == ["+"]

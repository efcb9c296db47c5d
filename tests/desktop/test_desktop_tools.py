"""The desktop_* tools on a private desktop with a real GTK app: windows, the accessibility tree, selectors, typing,
clicking, keys, drag and scroll, screenshots, and the errors an agent gets (ambiguous, no_match, stale_ref)."""

from __future__ import annotations

import os
import time

from bridge.desktop.selectors import Selector
from tests.desktop.conftest import TK_APP, png_pixels
from tests.support import wait_until


def label(desk, app) -> str:
    """The status label's text (its accessible name), read from the tree."""
    found = desk("desktop_find_elements", target=Selector(role="label", name_regex=r"^(Ready|Hello|Dialog|Duplicate)"),
                 window=app["window"])
    assert found["count"] == 1, found
    return found["matches"][0]["name"]


def test_list_windows_shows_the_app_with_pid_title_bounds_state_and_z_order(desk, app):
    out = desk("desktop_list_windows")
    mine = [w for w in out["windows"] if w["id"] == app["window"]]
    assert len(mine) == 1
    w = mine[0]
    assert w["pid"] == app["pid"] and w["title"] == app["title"] and w["type"] == "normal"
    assert w["active"] is True and out["active"] == w["id"] and w["z"] == 0 and w["state"] == ["normal"]
    assert w["bounds"]["width"] > 300 and w["bounds"]["height"] > 200
    f = w["frame"]  # the frame holds the client area
    assert f["x"] <= w["bounds"]["x"] and f["y"] < w["bounds"]["y"] and f["width"] >= w["bounds"]["width"]
    assert desk("desktop_list_windows", pid=app["pid"])["count"] == 1
    assert desk("desktop_list_windows", title=app["title"][-6:])["windows"][0]["id"] == app["window"]
    assert app["launched"]["accessible"] is True


def test_the_tree_has_each_control_with_ref_role_name_states_bounds_and_actions(desk, app):
    result = desk("desktop_accessibility_tree", window=app["window"])
    tree = result.structured_content
    roles = [(n["role"], n["name"]) for n in tree["nodes"]]
    assert ("frame", app["title"]) == roles[0]
    for want in [("text", "Your name"), ("push button", "Greet"), ("push button", "Reset"), ("label", "Ready"),
                 ("push button", "Open dialog"), ("slider", "Volume")]:
        assert want in roles, roles
    greet = next(n for n in tree["nodes"] if n["name"] == "Greet")
    assert greet["ref"].startswith("a") and "@" in greet["ref"] and greet["actions"] == ["click"]
    assert {"enabled", "showing"} <= set(greet["states"]) and greet["bounds"]["width"] > 0
    assert greet["window"] == app["window"] and greet["pid"] == app["pid"]
    text = result.content[0].text
    assert f"push button 'Greet' [{greet['ref']}]" in text and "actions=click" in text
    # interactive only folds the fillers away; depth and maxNodes bound the walk
    only = desk("desktop_accessibility_tree", window=app["window"], interactiveOnly=True).structured_content
    assert {n["role"] for n in only["nodes"]} <= {"text", "push button", "slider"}
    assert len(only["nodes"]) == 7  # entry, Greet, Reset, Open dialog, two Duplicates, Volume
    cut = desk("desktop_accessibility_tree", window=app["window"], maxNodes=3).structured_content
    assert cut["count"] == 3 and cut["truncated"] is True
    shallow = desk("desktop_accessibility_tree", window=app["window"], depth=1).structured_content
    assert max(n["depth"] for n in shallow["nodes"]) == 1
    # default scope: the active window
    assert desk("desktop_accessibility_tree").structured_content["nodes"][0]["name"] == app["title"]


def test_type_unicode_into_the_entry_by_selector_and_read_it_back(desk, app):
    text = "Zoë ✓ 日本語 — ½ ünïcödé"
    out = desk("desktop_type_text", value=text, target=Selector(role="textbox", name="Your name"),
               window=app["window"])
    assert out["method"] == "accessibility" and out["input"] == "keyboard"
    assert out["verified"] is True and out["value"] == text
    node = desk("desktop_find_elements", target=Selector(role="entry"), window=app["window"])["matches"][0]
    assert node["value"] == text
    # replace selects all first; the accessibility method sets the text without key events
    desk("desktop_type_text", value="Ada", target=Selector(role="textbox"), window=app["window"], replace=True)
    out = desk("desktop_type_text", value=" Lovelace", ref=node["ref"], method="accessibility")
    assert out["input"] == "action" and out["value"] == "Ada Lovelace" and out["verified"]


def test_click_a_button_by_role_and_name_and_see_the_label_change_in_the_tree(desk, app):
    desk("desktop_type_text", value="Grace", target=Selector(role="textbox"), window=app["window"])
    out = desk("desktop_click", target=Selector(role="button", name="Greet"), window=app["window"])
    assert out["method"] == "accessibility" and out["input"] == "pointer"
    assert out["element"]["name"] == "Greet" and out["point"]["x"] > 0
    got = desk("desktop_wait_for_element", target=Selector(role="label", name="Hello, Grace!"), window=app["window"],
               timeout=5)
    assert got["count"] == 1
    assert label(desk, app) == "Hello, Grace!"
    # the same by ref, through its accessible action (no pointer)
    reset = desk("desktop_find_elements", target=Selector(role="button", name="Reset"), window=app["window"])
    out = desk("desktop_click", ref=reset["matches"][0]["ref"], method="accessibility")
    assert out["input"] == "action" and out["action"] == "click"
    wait_until(lambda: label(desk, app) == "Ready", 5, what="the label to reset")


def test_a_dialog_opens_as_a_window_and_closes_by_its_ok_button(desk, app):
    desk("desktop_click", target=Selector(role="button", name="Open dialog"), pid=app["pid"])
    dialog = desk("desktop_wait_for_window", title="Confirm", pid=app["pid"], timeout=5)["windows"][0]
    assert dialog["type"] == "dialog" and dialog["transientFor"] == app["window"] and "modal" in dialog["state"]
    out = desk("desktop_click", target=Selector(role="button", name="OK"), window=dialog["id"])
    assert out["element"]["window"] == dialog["id"]
    desk("desktop_wait_for_window", title="Confirm", pid=app["pid"], state="gone", timeout=5)
    wait_until(lambda: label(desk, app) == "Dialog: True", 5, what="the dialog's answer")


def test_an_ambiguous_selector_lists_its_candidates_and_ordinal_picks_one(desk, app):
    err = desk.error("desktop_click", target=Selector(role="button", name="Duplicate"), window=app["window"])
    assert err.code == "ambiguous"
    assert "matches 2 elements" in str(err) and "ordinal" in str(err) and str(err).count("'Duplicate'") >= 2
    desk("desktop_click", target=Selector(role="button", name="Duplicate", ordinal=1), window=app["window"])
    wait_until(lambda: label(desk, app) == "Duplicate 2", 5, what="the second twin's click")
    found = desk("desktop_find_elements", target=Selector(role="button", name="Duplicate"), window=app["window"])
    assert found["count"] == 2 and found["matches"][0]["ref"] != found["matches"][1]["ref"]


def test_a_missing_element_is_no_match_naming_the_nearest_candidates(desk, app):
    err = desk.error("desktop_click", target=Selector(role="button", name="Gret"), window=app["window"])
    assert err.code == "no_match" and "Nearest" in str(err) and "'Greet'" in str(err)
    found = desk("desktop_find_elements", target=Selector(role="button", name="Submit"), window=app["window"])
    assert found["count"] == 0 and found["nearest"]
    err = desk.error("desktop_click", target=Selector(name_contains="x", name="y"), window=app["window"])
    assert err.code == "bad_arguments"


def test_a_stale_ref_fails_loudly_and_clicks_nothing(desk, app):
    ref = desk("desktop_find_elements", target=Selector(role="button", name="Greet"), window=app["window"])[
        "matches"][0]["ref"]
    desk("desktop_quit_app", pid=app["pid"])
    err = desk.error("desktop_click", ref=ref)
    assert err.code == "stale_ref" and "Nothing was done" in str(err)
    err = desk.error("desktop_click", ref="a1@zz")
    assert err.code == "stale_ref"


def test_resize_move_and_window_states_report_the_settled_bounds(desk, app):
    out = desk("desktop_resize_window", window=app["window"], x=20, y=30, width=520, height=420)
    assert out["window"]["frame"] == {"x": 20, "y": 30, "width": 520, "height": 420}
    assert "note" not in out
    out = desk("desktop_resize_window", window=app["title"], x=100)  # omitted values keep their size
    assert out["window"]["frame"] == {"x": 100, "y": 30, "width": 520, "height": 420}
    tiny = desk("desktop_resize_window", window=app["window"], width=60, height=40)
    assert tiny["window"]["frame"]["width"] > 60 and "note" in tiny  # GTK keeps its minimum size
    maxed = desk("desktop_window_state", window=app["window"], state="maximized")["window"]
    screen = desk("desktop_status")["screen"]
    assert "maximized" in maxed["state"] and maxed["frame"]["width"] == screen["width"]
    back = desk("desktop_window_state", window=app["window"], state="normal")["window"]
    assert back["state"] == ["normal"] and back["frame"]["width"] < screen["width"]
    mini = desk("desktop_window_state", window=app["window"], state="minimized")["window"]
    assert "minimized" in mini["state"]
    out = desk("desktop_activate_window", window=app["window"])
    assert out["activated"] is True and "minimized" not in out["window"]["state"]


def test_arrange_windows_side_by_side_stacked_and_grid_tile_the_work_area(desk, app):
    other = desk.launch(None, "--title", "Second App")
    try:
        ids = [app["window"], other["windows"][0]["id"]]
        screen = desk("desktop_status")["screen"]
        out = desk("desktop_arrange_windows", layout="side_by_side", windows=ids)
        a, b = (w["frame"] for w in out["windows"])
        assert a == {"x": 0, "y": 0, "width": screen["width"] // 2, "height": screen["height"]}
        assert b["x"] == a["x"] + a["width"] and b["width"] == a["width"]
        out = desk("desktop_arrange_windows", layout="stacked", windows=ids, gap=10)
        a, b = (w["frame"] for w in out["windows"])
        assert a["width"] == b["width"] == screen["width"] and b["y"] == a["y"] + a["height"] + 10
        out = desk("desktop_arrange_windows", layout="cascade", windows=ids)
        a, b = (w["frame"] for w in out["windows"])
        assert (b["x"] - a["x"], b["y"] - a["y"]) == (32, 32)
        listed = {w["id"]: w for w in desk("desktop_list_windows")["windows"]}
        assert listed[ids[1]]["frame"] == b  # the list agrees with what arrange answered
    finally:
        desk("desktop_quit_app", pid=other["app"]["pid"])


def test_a_screenshot_is_a_png_of_the_window_and_its_pixels_change_after_a_click(desk, app):
    desk("desktop_activate_window", window=app["window"])
    before = desk("desktop_screenshot", window=app["window"])
    meta = before.structured_content
    assert before.content[0].type == "image" and before.content[0].mime_type == "image/png"
    assert meta["scale"] == 1.0 and meta["window"]["id"] == app["window"]
    import base64

    w, h, px1 = png_pixels(base64.b64decode(before.content[0].data))
    assert (w, h) == (meta["width"], meta["height"])
    desk("desktop_type_text", value="Pixel", target=Selector(role="textbox"), window=app["window"])
    desk("desktop_click", target=Selector(role="button", name="Greet"), window=app["window"])
    wait_until(lambda: label(desk, app) == "Hello, Pixel!", 5, what="the label")

    def changed() -> int:
        after = desk("desktop_screenshot", window=app["window"])
        _, _, px2 = png_pixels(base64.b64decode(after.content[0].data))
        return sum(1 for i in range(0, len(px1), 3) if px1[i:i + 3] != px2[i:i + 3])

    assert wait_until(changed, 5, what="pixels to change") > 50
    full = desk("desktop_screenshot").structured_content
    assert (full["width"], full["height"]) == (1280, 800) and full["origin"] == {"x": 0, "y": 0}
    region = desk("desktop_screenshot", region={"x": 10, "y": 20, "width": 30, "height": 40}).structured_content
    assert (region["width"], region["height"], region["origin"]) == (30, 40, {"x": 10, "y": 20})


def test_keys_hotkeys_scroll_and_drag_reach_the_app(desk, app):
    entry = Selector(role="textbox")
    desk("desktop_type_text", value="abc", target=entry, window=app["window"])
    desk("desktop_hotkey", keys="ctrl+a", window=app["window"])
    desk("desktop_press_key", key="BackSpace")
    desk("desktop_press_key", key="x", repeat=3)
    wait_until(lambda: desk("desktop_find_elements", target=entry, window=app["window"])["matches"][0]["value"]
               == "xxx", 5, what="the keys to edit the entry")
    # the slider moves under the wheel
    volume = Selector(role="slider", name="Volume")
    start = desk("desktop_find_elements", target=volume, window=app["window"])["matches"][0]["value"]
    out = desk("desktop_scroll", target=volume, window=app["window"], dy=-3)
    assert out["input"] == "pointer" and out["method"] == "accessibility"
    wait_until(lambda: desk("desktop_find_elements", target=volume, window=app["window"])["matches"][0]["value"]
               != start, 5, what="the slider to move")
    # dragging the title bar moves the window
    frame = desk("desktop_list_windows", pid=app["pid"])["windows"][0]["frame"]
    grab = {"x": frame["x"] + 60, "y": frame["y"] + 8}
    out = desk("desktop_drag", start=grab, end={"x": grab["x"] + 100, "y": grab["y"] + 50})
    assert out["method"] == "coordinates"

    def moved() -> bool:
        now = desk("desktop_list_windows", pid=app["pid"])["windows"][0]["frame"]
        return (now["x"] - frame["x"], now["y"] - frame["y"]) == (100, 50)

    wait_until(moved, 5, what="the window to follow the drag")


def test_an_element_covered_by_another_window_is_raised_before_the_click(desk, app):
    other = desk.launch(None, "--title", "Cover App")
    try:
        cover = other["windows"][0]
        mine = desk("desktop_list_windows", pid=app["pid"])["windows"][0]
        desk("desktop_resize_window", window=cover["id"], **mine["frame"])  # exactly on top
        assert desk("desktop_list_windows", pid=app["pid"])["windows"][0]["active"] is False
        out = desk("desktop_click", target=Selector(role="button", name="Reset"), window=app["window"])
        assert out["input"] == "pointer"
        assert desk("desktop_list_windows", pid=app["pid"])["windows"][0]["active"] is True
    finally:
        desk("desktop_quit_app", pid=other["app"]["pid"])


def test_ocr_finds_and_clicks_text_in_an_app_with_no_accessibility_tree(desk):
    tk = desk.launch(TK_APP)
    try:
        assert tk["accessible"] is False
        win = tk["windows"][0]
        err = desk.error("desktop_accessibility_tree", window=win["id"])
        assert err.code == "no_accessibility"
        started = time.monotonic()
        out = desk("desktop_click", text="Launch", window=win["id"])
        assert out["method"] == "ocr" and out["ocr"]["confidence"] > 50 and time.monotonic() - started < 10
        desk("desktop_wait_for_window", title="Tk Pressed", timeout=5)
        # a selector falls back to OCR by name when the app has no tree
        out = desk("desktop_click", target=Selector(role="button", name="Launch"), window=win["id"])
        assert out["method"] == "ocr" and "fallback" in out
    finally:
        desk("desktop_quit_app", pid=tk["app"]["pid"])


def test_launch_runs_only_allowlisted_programs_and_never_a_shell(desk):
    err = desk.error("desktop_launch_app", argv=["xterm"])
    assert err.code in ("not_allowed", "not_found")
    err = desk.error("desktop_launch_app", argv=["/bin/sh", "-c", "echo hi"])
    assert err.code == "not_allowed" and "desktop_allow" in str(err)
    err = desk.error("desktop_launch_app", argv=["python3 ; touch /tmp/dbg-pwned"])  # one argv word, not a shell line
    assert err.code == "not_found" and not os.path.exists("/tmp/dbg-pwned")


def test_quit_app_closes_its_windows_and_reaps_it(desk):
    got = desk.launch()
    pid = got["app"]["pid"]
    out = desk("desktop_quit_app", pid=pid)
    assert out["how"] == "closed" and out["exited"] is True
    apps = desk("desktop_list_apps")
    row = next(a for a in apps["launched"] if a["pid"] == pid)
    assert row["running"] is False and row["exitCode"] == 0
    assert not os.path.exists(f"/proc/{pid}"), "the app was not reaped"


def inside(b: dict[str, int], area: dict[str, int]) -> bool:
    return area["x"] <= b["x"] and b["x"] + b["width"] <= area["x"] + area["width"] and \
        area["y"] <= b["y"] and b["y"] + b["height"] <= area["y"] + area["height"]


def test_read_text_gives_the_words_of_an_app_with_no_accessibility_tree_with_their_boxes(desk):
    tk = desk.launch(TK_APP)
    try:
        win = tk["windows"][0]
        out = desk("desktop_read_text", window=win["id"])
        assert out["method"] == "ocr" and out["window"]["id"] == win["id"]
        assert "Launch" in out["text"].split() and "Nothing here has a tree" in out["text"]
        line = next(ln for ln in out["lines"] if ln["text"] == "Nothing here has a tree")
        assert [w["text"] for w in line["words"]] == ["Nothing", "here", "has", "a", "tree"]
        xs = [w["bounds"]["x"] for w in line["words"]]
        assert xs == sorted(xs) and all(inside(w["bounds"], line["bounds"]) for w in line["words"])
        button = next(w for ln in out["lines"] for w in ln["words"] if w["text"] == "Launch")
        assert out["lines"].index(line) < next(i for i, ln in enumerate(out["lines"]) if button in ln["words"])
        f, b = win["frame"], button["bounds"]  # screen coordinates, inside the window, below the line
        assert inside(b, f) and inside(line["bounds"], f) and line["bounds"]["y"] + line["bounds"]["height"] <= b["y"]
        assert button["conf"] > 50 and b["height"] > 10
        # a region around the button reads just the button, at the same screen place
        region = {"x": b["x"] - 10, "y": b["y"] - 10, "width": b["width"] + 20, "height": b["height"] + 20}
        part = desk("desktop_read_text", region=region)
        assert part["text"] == "Launch" and part["origin"] == {"x": region["x"], "y": region["y"]}
        again = part["lines"][0]["words"][0]["bounds"]
        assert abs(again["x"] - b["x"]) <= 3 and abs(again["y"] - b["y"]) <= 3
        # clicking where it says the word is presses the button
        desk("desktop_click", x=b["x"] + b["width"] // 2, y=b["y"] + b["height"] // 2)
        desk("desktop_wait_for_window", title="Tk Pressed", timeout=5)
    finally:
        desk("desktop_quit_app", pid=tk["app"]["pid"])

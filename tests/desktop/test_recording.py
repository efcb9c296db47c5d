"""Recording a human's input (XTest through the backend's own input functions, as a person at the keyboard would give
it) into desktop_* steps, and replaying them through the tools; password redaction; the time limit; desktop_open_url
with a real Chromium."""

from __future__ import annotations

import http.server
import json
import os
import sys
import threading
from collections.abc import Iterator

import pytest
from pydantic import ValidationError

from bridge.desktop.selectors import Selector
from tests.desktop.conftest import GTK_APP
from tests.support import CHROMIUM, wait_until


def element(desk, window: int, role: str, name: str) -> dict:
    found = desk("desktop_find_elements", target=Selector(role=role, name=name), window=window)
    assert found["count"] == 1, found
    return found["matches"][0]


def center(node: dict) -> tuple[int, int]:
    b = node["bounds"]
    return b["x"] + b["width"] // 2, b["y"] + b["height"] // 2


class Human:
    """Input as a person gives it: XTest events through the backend (not through a tool), on the desktop worker."""

    def __init__(self, desk) -> None:
        self.desk = desk

    def click(self, point: tuple[int, int]) -> None:
        self.desk.service.run_sync(lambda b: b.click(point[0], point[1], "left", 1, []))

    def click_into(self, window: int, role: str, name: str) -> None:
        """Click a field and wait until it has focus, as a person sees the caret before typing (the window manager
        replays a click after its grab, so keys sent microseconds later could overtake it)."""
        self.click(center(element(self.desk, window, role, name)))
        wait_until(lambda: "focused" in element(self.desk, window, role, name)["states"], 5,
                   what=f"the {role} {name!r} to take focus")

    def type(self, text: str) -> None:
        self.desk.service.run_sync(lambda b: b.type_text(text))

    def keys(self, *keys: str) -> None:
        self.desk.service.run_sync(lambda b: b.chord(list(keys)))


def label(desk, app) -> str:
    found = desk("desktop_find_elements", target=Selector(role="label", name_regex=r"^(Ready|Hello)"),
                 window=app["window"])
    return found["matches"][0]["name"] if found["count"] == 1 else ""


def test_a_recorded_interaction_becomes_selector_steps_that_replay_to_the_same_result(desk, app):
    human = Human(desk)
    win = app["window"]
    greet = center(element(desk, win, "push button", "Greet"))
    bounds = desk("desktop_list_windows", pid=app["pid"])["windows"][0]["bounds"]
    blank = (bounds["x"] + bounds["width"] // 2, bounds["y"] + bounds["height"] - 8)  # below every control

    started = desk("desktop_start_recording", maxSeconds=30)
    assert started["recording"] is True and desk("desktop_status")["recording"]["active"] is True
    human.click(blank)
    human.click_into(win, "text", "Your name")
    human.type("Ada")
    human.keys("ctrl", "a")
    human.type("Grace ✓")
    desk("desktop_press_key", key="End", window=win)  # the agent's own input: not part of the recording
    human.click(greet)
    wait_until(lambda: label(desk, app) == "Hello, Grace ✓!", 5, what="the human's greeting")
    out = desk("desktop_stop_recording")

    title, field = app["title"], {"role": "text", "name": "Your name"}
    assert [(s["tool"], s["arguments"]) for s in out["steps"]] == [
        ("desktop_click", {"x": blank[0], "y": blank[1]}),
        ("desktop_click", {"target": field, "window": title}),
        ("desktop_type_text", {"value": "Ada", "target": field, "window": title}),
        ("desktop_hotkey", {"keys": "ctrl+a", "window": title}),
        ("desktop_type_text", {"value": "Grace ✓", "target": field, "window": title}),
        ("desktop_click", {"target": {"role": "push button", "name": "Greet"}, "window": title}),
    ]
    first = out["steps"][0]
    assert first["method"] == "coordinates" and "no control under the pointer" in first["why"]
    assert first["in"] == {"window": title}
    assert [s["method"] for s in out["steps"][1:3]] == ["accessibility", "accessibility"]
    assert out["endedBy"] == "stop" and out["redacted"] == 0 and out["count"] == 6
    assert all(0 <= s["at"] < 30 for s in out["steps"])
    assert desk("desktop_status")["recording"] is None

    # reset the app, then replay the steps through the tools: the same greeting
    desk("desktop_click", target=Selector(role="button", name="Reset"), window=win)
    wait_until(lambda: label(desk, app) == "Ready", 5, what="the reset")
    for step in out["steps"]:
        desk(step["tool"], **step["arguments"])
    wait_until(lambda: label(desk, app) == "Hello, Grace ✓!", 5, what="the replayed greeting")
    assert element(desk, win, "text", "Your name")["value"] == "Grace ✓"


def test_text_typed_into_a_password_field_is_redacted_and_saved_only_on_request(desk, tmp_path, monkeypatch):
    monkeypatch.setattr(desk.service.settings, "config_dir", tmp_path)
    human = Human(desk)
    got = desk.launch(GTK_APP, "--title", "Sign-in App", "--password")
    win = got["windows"][0]["id"]
    try:
        desk("desktop_start_recording")
        human.click_into(win, "password text", "Password")
        human.type("hunter2")
        human.click_into(win, "text", "Your name")
        human.type("Bob")
        human.keys("Tab")  # keyboard navigation into the password field
        human.type("s3cret")
        out = desk("desktop_stop_recording", save=True)
        wait_until(lambda: element(desk, win, "text", "Your name")["value"] == "Bob", 5, what="the typing")
    finally:
        desk("desktop_quit_app", pid=got["app"]["pid"])

    typed = [s for s in out["steps"] if s["tool"] == "desktop_type_text"]
    assert [s["arguments"]["value"] for s in typed] == ["<redacted>", "Bob", "<redacted>"]
    assert typed[0]["arguments"]["target"] == {"role": "password text", "name": "Password"}
    assert typed[0]["redacted"] is True and "password" in typed[0]["note"] and "redacted" not in typed[1]
    assert out["redacted"] == 2
    dumped = json.dumps(out)
    assert "hunter2" not in dumped and "s3cret" not in dumped
    saved = tmp_path / "recordings"
    files = list(saved.iterdir())
    assert [f.name for f in files] == [os.path.basename(out["file"])]
    assert files[0].stat().st_mode & 0o777 == 0o600
    text = files[0].read_text()
    assert json.loads(text)["steps"] == out["steps"] and "hunter2" not in text and "s3cret" not in text

    desk("desktop_start_recording")  # without save, nothing is written
    assert "file" not in desk("desktop_stop_recording")
    assert len(list(saved.iterdir())) == 1


def test_the_time_limit_ends_a_recording_and_later_input_is_not_in_it(desk, app):
    human = Human(desk)
    greet = center(element(desk, app["window"], "push button", "Greet"))
    desk("desktop_start_recording", maxSeconds=0.5)
    assert desk.error("desktop_start_recording").code == "recording_active"
    human.click(greet)
    wait_until(lambda: desk("desktop_status")["recording"]["active"] is False, 5, what="the time limit")
    human.keys("ctrl", "a")  # after the limit
    out = desk("desktop_stop_recording")
    assert out["endedBy"] == "time_limit" and 0.5 <= out["seconds"] < 5
    assert [s["tool"] for s in out["steps"]] == ["desktop_click"]
    assert desk.error("desktop_stop_recording").code == "not_recording"
    with pytest.raises(ValidationError):  # the limit is bounded
        desk("desktop_start_recording", maxSeconds=601)


@pytest.fixture
def site() -> Iterator[str]:
    class Page(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = b"<!doctype html><title>Open URL Test</title><h1>Hello from the test site</h1>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/page"
    server.shutdown()
    server.server_close()


def test_open_url_opens_a_chromium_window_on_the_private_desktop_and_refuses_other_urls(desk, site, monkeypatch):
    for bad in ("file:///etc/passwd", "javascript:alert(1)", "chrome://settings", "data:text/html,hi", "ftp://x/a",
                "http://", "--headless", "http://x y"):
        assert desk.error("desktop_open_url", url=bad).code == "bad_arguments", bad
    err = desk.error("desktop_open_url", url=site)
    assert err.code == "not_allowed" and "desktop_allow" in str(err) and "desktop_browser" in str(err)

    monkeypatch.setattr(desk.service.settings, "desktop_allow", [sys.executable, CHROMIUM])
    out = desk("desktop_open_url", url=site, timeout=40)
    pid = out["app"]["pid"]
    try:
        argv = out["app"]["argv"]
        assert argv[-1] == site and any(a.startswith("--user-data-dir=") for a in argv)
        assert out["windows"] and out["windows"][0]["class"] in ("Chromium", "chromium")
        loaded = desk("desktop_wait_for_window", title="Open URL Test", timeout=30)["windows"]
        assert loaded[0]["pid"] == pid and desk("desktop_status")["display"] != os.environ.get("DISPLAY")
    finally:
        desk("desktop_quit_app", pid=pid, timeout=5)

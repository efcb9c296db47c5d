"""The desktop tools end to end: a real `dbg-bridge serve` with its own private desktop, driven by the official MCP
client over HTTP, the way an agent uses them."""

from __future__ import annotations

import base64
import os
import sys
from collections.abc import Iterator

import pytest

from bridge.desktop import children
from tests.desktop.conftest import GTK_APP, png_pixels
from tests.support import CHROMIUM, BridgeProcess, McpSession, ok, text_of, wait_until


@pytest.fixture(scope="module")
def desktop_bridge(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BridgeProcess]:
    proc = BridgeProcess(tmp_path_factory.mktemp("desktop-bridge"),
                         env={"DBG_DESKTOP_ENABLED": "1", "DBG_DESKTOP_ALLOW": f"{sys.executable},{CHROMIUM}",
                              "DBG_DESKTOP_BROWSER": CHROMIUM, "DBG_DESKTOP_SIZE": "1024x768"}).start()
    yield proc
    proc.stop()


@pytest.fixture(scope="module")
def client(desktop_bridge: BridgeProcess) -> Iterator[McpSession]:
    session = McpSession(desktop_bridge.mcp_url, desktop_bridge.token)
    yield session
    if session.thread.is_alive():  # the last test closes it itself
        session.close()


def test_an_agent_launches_reads_types_clicks_and_sees_the_app_over_mcp(desktop_bridge, client):
    tools = {t.name: t for t in client.run(client.client.list_tools()).tools}
    assert {"desktop_status", "desktop_click", "desktop_screenshot", "desktop_accessibility_tree"} <= set(tools)
    assert tools["desktop_screenshot"].annotations.read_only_hint is True
    assert tools["desktop_click"].annotations.destructive_hint is True
    assert "target" in tools["desktop_click"].input_schema["properties"]

    status = ok(client.call("desktop_status"))
    assert status["mode"] == "private" and status["screen"] == {"width": 1024, "height": 768}
    assert status["backend"] == "x11" and status["accessibility"] is True and status["input"] == "allowed"

    launched = ok(client.call("desktop_launch_app", {"argv": [*GTK_APP, "--title", "Over MCP"]}))
    pid, win = launched["app"]["pid"], launched["windows"][0]["id"]
    windows = ok(client.call("desktop_list_windows"))["windows"]
    assert [w["title"] for w in windows] == ["Over MCP"] and windows[0]["pid"] == pid

    tree = client.call("desktop_accessibility_tree", {"window": win, "interactiveOnly": True})
    assert "push button 'Greet'" in text_of(tree)

    typed = ok(client.call("desktop_type_text", {"value": "MCP ✓", "target": {"role": "textbox"}, "window": win}))
    assert typed["verified"] is True and typed["method"] == "accessibility"

    before = client.call("desktop_screenshot", {"window": "Over MCP"})
    assert not before.is_error and before.content[0].type == "image" and before.content[0].mime_type == "image/png"
    size = before.structured_content
    assert size["scale"] == 1.0 and size["window"]["id"] == win and '"scale": 1.0' in before.content[1].text

    clicked = ok(client.call("desktop_click", {"target": {"role": "button", "name": "Greet"}, "window": win}))
    assert clicked["method"] == "accessibility" and clicked["input"] == "pointer"
    ok(client.call("desktop_wait_for_element", {"target": {"role": "label", "name": "Hello, MCP ✓!"},
                                                "window": win, "timeout": 5}))

    after = client.call("desktop_screenshot", {"window": win})
    _, _, px1 = png_pixels(base64.b64decode(before.content[0].data))
    _, _, px2 = png_pixels(base64.b64decode(after.content[0].data))
    assert px1 != px2

    err = client.call("desktop_click", {"target": {"role": "button", "name": "Duplicate"}, "window": win})
    assert err.is_error and "[ambiguous]" in text_of(err)
    err = client.call("desktop_launch_app", {"argv": ["/bin/sh", "-c", "true"]})
    assert err.is_error and "[not_allowed]" in text_of(err)

    quit_ = ok(client.call("desktop_quit_app", {"pid": pid}))
    assert quit_["exited"] is True


def test_every_desktop_tool_answers_what_its_own_output_schema_accepts_through_the_official_client(desktop_bridge,
                                                                                                   client):
    """Each desktop tool is called once, successfully, through the official client, which validates the structured
    content against the tool's outputSchema and raises on any mismatch. A tool added later and not called here
    fails the test."""
    listed = {t.name: t for t in client.run(client.client.list_tools()).tools if t.name.startswith("desktop_")}
    assert all(t.output_schema for t in listed.values())
    called: dict[str, dict] = {}

    def call(name: str, args: dict | None = None) -> dict:
        out = client.call(name, args or {})  # raises on a schema error (the SDK validates every answer)
        assert not out.is_error, (name, text_of(out))
        called[name] = out.structured_content
        return out.structured_content

    call("desktop_status")
    app = call("desktop_launch_app", {"argv": [*GTK_APP, "--title", "Schema App"]})
    pid, win = app["app"]["pid"], app["windows"][0]["id"]
    call("desktop_list_apps")
    call("desktop_list_windows", {"pid": pid})
    call("desktop_wait_for_window", {"title": "Schema App"})
    call("desktop_activate_window", {"window": win})
    call("desktop_window_state", {"window": win, "state": "normal"})
    call("desktop_resize_window", {"window": win, "x": 20, "y": 20, "width": 460, "height": 380})
    call("desktop_arrange_windows", {"layout": "grid", "windows": [win]})
    call("desktop_accessibility_tree", {"window": win, "interactiveOnly": True})
    entry = call("desktop_find_elements", {"target": {"role": "textbox"}, "window": win})["matches"][0]
    call("desktop_wait_for_element", {"target": {"role": "button", "name": "Greet"}, "window": win})
    call("desktop_start_recording", {"maxSeconds": 30})
    typed = call("desktop_type_text", {"value": "Schema", "ref": entry["ref"], "replace": True})
    assert typed["verified"] is True
    call("desktop_stop_recording")
    call("desktop_click", {"target": {"role": "button", "name": "Greet"}, "window": win})
    call("desktop_double_click", {"ref": entry["ref"]})
    call("desktop_right_click", {"ref": entry["ref"]})
    call("desktop_press_key", {"key": "Escape", "window": win})
    call("desktop_hotkey", {"keys": "ctrl+a", "window": win})
    call("desktop_scroll", {"target": {"role": "slider", "name": "Volume"}, "window": win, "dy": 1})
    frame = called["desktop_resize_window"]["window"]["frame"]
    call("desktop_drag", {"start": {"x": frame["x"] + 200, "y": frame["y"] + 10},
                          "end": {"x": frame["x"] + 220, "y": frame["y"] + 20}})
    call("desktop_screenshot", {"window": win})
    words = call("desktop_read_text", {"window": win})
    assert isinstance(words["wordCount"], int) and "Greet" in words["text"]
    url = call("desktop_open_url", {"url": desktop_bridge.base + "/"})
    call("desktop_quit_app", {"pid": url["app"]["pid"]})
    call("desktop_quit_app", {"pid": pid})
    assert set(called) == set(listed), f"not called: {sorted(set(listed) - set(called))}"


def test_stopping_the_bridge_stops_its_desktop(desktop_bridge, client):
    """Runs last in this module: it stops the module's bridge."""
    ok(client.call("desktop_launch_app", {"argv": GTK_APP}))
    family = children.descendants(desktop_bridge.proc.pid)
    assert len(family) >= 5  # Xvfb, dbus-daemon, openbox, the app, the AT-SPI helper…
    client.close()
    desktop_bridge.stop()
    def left() -> list[str]:
        out = []
        for pid in family:
            try:
                out.append(f"{pid} {open(f'/proc/{pid}/cmdline', 'rb').read()[:60]!r}")
            except OSError:
                pass
        return out

    try:
        wait_until(lambda: not left(), 10, what="the bridge's desktop processes to exit")
    except AssertionError:
        raise AssertionError(f"still running 10 s after the bridge stopped: {left()}") from None


def test_a_bridge_with_the_family_off_offers_no_desktop_tool():
    from bridge.state import BridgeState
    from bridge.server.mcp_server import build_server
    from bridge.settings import Settings
    from tests.support import run_async

    for enabled in (True, False):
        server = build_server(BridgeState(Settings(desktop_enabled=enabled)))
        names = {t.name for t in run_async(server.list_tools())}
        assert "page_list" in names
        assert bool([n for n in names if n.startswith("desktop_")]) is enabled

"""Every backend in the table: the ones that load here pass one contract; macOS and Windows refuse clearly."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile

import pytest

from bridge.desktop import BACKENDS, auto_backend, children, load_backend
from bridge.desktop.backend import DesktopBackend
from bridge.desktop.errors import DesktopError
from bridge.settings import Settings
from tests.desktop.conftest import GTK_APP, Desk
from tests.support import wait_until

LOADS_HERE = ["x11", "wayland"]  # the backends this machine (Linux: Xvfb, headless sway) can run
REFUSE = ["macos", "windows"]


def test_the_table_names_every_backend_and_auto_picks_by_platform():
    assert set(BACKENDS) == {"auto", "x11", "wayland", "macos", "windows"}
    assert auto_backend("linux", {}) == "x11" and auto_backend("darwin") == "macos" and auto_backend("win32") == "windows"
    sway = {"WAYLAND_DISPLAY": "wayland-1", "SWAYSOCK": "/run/user/1000/sway-ipc.1000.1.sock"}
    assert auto_backend("linux", sway) == "wayland"
    assert auto_backend("linux", {"WAYLAND_DISPLAY": "wayland-0"}) == "x11"  # GNOME/KDE: no sway IPC (XWayland)
    assert load_backend("x11") is not load_backend("wayland")
    with pytest.raises(DesktopError) as info:
        load_backend("beos")
    assert info.value.code == "bad_arguments"
    assert set(LOADS_HERE) | set(REFUSE) == set(BACKENDS) - {"auto"}


@pytest.mark.parametrize("name", LOADS_HERE)
def test_backend_contract(name, request):
    """Start a private desktop on the backend, then: windows, launch, accessibility, input, screenshot, stop."""
    backend = load_backend(name)(Settings(desktop_size="800x600"))
    assert isinstance(backend, DesktopBackend)
    app, allow = [*GTK_APP, "--title", "Contract"], [sys.executable]
    if name == "wayland" and os.geteuid() == 0:
        # a root bridge runs the Wayland desktop's apps as desktop_user: Debian's python3 and a copy it can read
        folder = tempfile.mkdtemp(prefix="dbg-contract-")  # pytest's own tmp dirs are root's alone
        request.addfinalizer(lambda: shutil.rmtree(folder, ignore_errors=True))
        os.chmod(folder, 0o755)
        copy = os.path.join(folder, "gtk_app.py")
        shutil.copyfile(GTK_APP[1], copy)
        app, allow = ["/usr/bin/python3", copy, "--title", "Contract"], ["/usr/bin/python3"]
    backend.start()
    marker = None
    try:
        info = backend.info()
        assert info["private"] is True and info["screen"] == {"width": 800, "height": 600}
        assert info["scale"] == 1.0 and info["windowManager"]
        marker = f"DBG_DESKTOP_SESSION={backend.session.env['DBG_DESKTOP_SESSION']}"
        assert backend.windows() == [] and backend.apps() == []
        area = backend.work_area()
        assert area["width"] <= 800 and area["height"] <= 600
        row = backend.launch(app, allow, None)
        assert row["running"] and row["argv"][0] == app[0]
        win = wait_until(lambda: next((w for w in backend.windows() if w["pid"] == row["pid"]), None), 10,
                         what="the app's window")
        assert win["title"] == "Contract" and {"id", "bounds", "frame", "active", "state", "z"} <= set(win)
        wait_until(lambda: row["pid"] in backend.accessible_pids(), 10, what="the app's accessibility tree")
        nodes, truncated = backend.elements(pid=row["pid"], window=None, within=None, depth=64, max_nodes=500,
                                            include_hidden=False, full=False)
        assert not truncated and nodes[0]["depth"] == 0
        buttons = backend.candidates(pid=row["pid"], window=None, within=None, roles=["pushbutton"])
        assert [n["name"] for n in buttons] == ["Greet", "Reset", "Open dialog", "Duplicate", "Duplicate"]
        assert [n["ref"] for n in buttons] == [n["ref"] for n in nodes if n["role"] == "push button"]  # same refs
        entry = next(n for n in nodes if n["role"] == "text")
        assert backend.element_focus(entry["ref"]) is True
        backend.type_text("ok ✓")
        wait_until(lambda: backend.element(entry["ref"])["value"] == "ok ✓", 5, what="typed text")
        assert backend.element_set_text(entry["ref"], "set") is True
        greet = next(n for n in nodes if n["name"] == "Greet")
        assert backend.element_action(greet["ref"], ["click"]) == "click"
        wait_until(lambda: any(n["name"] == "Hello, set!" for n in backend.elements(
            pid=row["pid"], window=None, within=None, depth=64, max_nodes=500, include_hidden=False, full=False)[0]),
            5, what="the label")
        b = backend.element(greet["ref"])["bounds"]
        backend.click(b["x"] + 5, b["y"] + 5, "left", 1, [])
        assert backend.pointer() == (b["x"] + 5, b["y"] + 5)
        backend.click(b["x"] + 5, b["y"] + 5, "left", 1, ["ctrl"])  # the app reads Ctrl held during its click
        wait_until(lambda: any(n["name"] == "Hello, set! (ctrl)" for n in backend.elements(
            pid=row["pid"], window=None, within=None, depth=64, max_nodes=500, include_hidden=False, full=False)[0]),
            5, what="the Ctrl+click's label")
        backend.click(b["x"] + 5, b["y"] + 5, "left", 1, [])  # and released after it
        wait_until(lambda: any(n["name"] == "Hello, set!" for n in backend.elements(
            pid=row["pid"], window=None, within=None, depth=64, max_nodes=500, include_hidden=False, full=False)[0]),
            5, what="a plain click's label")
        backend.chord(["ctrl", "a"])
        shot = backend.screenshot({"x": 0, "y": 0, "width": 100, "height": 50})
        assert shot.png[:4] == b"\x89PNG" and (shot.width, shot.height, shot.origin) == (100, 50, (0, 0))
        assert backend.activate_window(win["id"]) is True
        moved = backend.move_resize_window(win["id"], {"x": 5, "y": 6, "width": 450, "height": 420})
        assert moved["frame"] == {"x": 5, "y": 6, "width": 450, "height": 420}
        backend.close_window(win["id"])
        wait_until(lambda: not backend.apps()[0]["running"], 10, what="the app to exit")
        with pytest.raises(DesktopError) as info:
            backend.element(greet["ref"])
        assert info.value.code == "stale_ref"
    finally:
        backend.stop()
        backend.stop()  # twice is fine
    assert marker and children.marked(marker) == []


@pytest.mark.parametrize("name", REFUSE)
def test_macos_and_windows_say_not_available_yet(name):
    backend = load_backend(name)(Settings())
    for call in (backend.start, backend.windows, lambda: backend.click(1, 2, "left", 1, [])):
        with pytest.raises(DesktopError) as info:
            call()
        assert info.value.code == "not_available" and "not available yet on this platform" in str(info.value)
    backend.stop()
    # and through the tools, as an agent sees it
    desk = Desk(desktop_backend=name)
    try:
        err = desk.error("desktop_status")
        assert err.code == "not_available" and "not available yet on this platform" in str(err)
        assert desk.error("desktop_click", x=1, y=1).code == "not_available"
    finally:
        desk.close()


def test_attach_mode_allows_reading_but_refuses_input_until_the_human_consents(desk, app, monkeypatch):
    display = desk("desktop_status")["display"]
    session_env = desk.service.backend.session.env
    for key in ("XAUTHORITY", "DBUS_SESSION_BUS_ADDRESS"):  # what a bridge inside that session would have
        monkeypatch.setenv(key, session_env[key])
    attached = Desk(desktop_display=display)
    try:
        status = attached("desktop_status")
        assert status["mode"] == "attached" and status["private"] is False and status["display"] == display
        assert status["input"] == "needs the human's consent"
        wins = attached("desktop_list_windows")["windows"]
        assert any(w["id"] == app["window"] for w in wins)
        assert attached("desktop_screenshot", window=app["window"]).content[0].type == "image"
        found = attached("desktop_find_elements", target={"role": "button", "name": "Greet"}, window=app["window"])
        assert found["count"] == 1
        for tool, args in [("desktop_click", {"target": {"role": "button", "name": "Greet"}, "window": app["window"]}),
                           ("desktop_type_text", {"value": "x"}), ("desktop_press_key", {"key": "Enter"}),
                           ("desktop_hotkey", {"keys": "ctrl+a"}), ("desktop_scroll", {"x": 1, "y": 1}),
                           ("desktop_drag", {"start": {"x": 1, "y": 1}, "end": {"x": 2, "y": 2}}),
                           ("desktop_launch_app", {"argv": GTK_APP}), ("desktop_quit_app", {"pid": app["pid"]}),
                           ("desktop_resize_window", {"window": app["window"], "x": 0})]:
            err = attached.error(tool, **args)
            assert err.code == "consent_required", tool
            assert "cockpit" in str(err) and "consent" in str(err), tool
        # the cockpit (a human) grants it: input works
        attached.service.grant_consent()
        out = attached("desktop_click", target={"role": "button", "name": "Reset"}, window=app["window"])
        assert out["input"] == "pointer"
        # attaching started nothing of its own, so stopping it leaves the display running
        attached.close()
        assert any(w["id"] == app["window"] for w in desk("desktop_list_windows")["windows"])
    finally:
        attached.close()


def test_a_stopped_desktop_leaves_no_process_behind():
    own = Desk()
    own("desktop_status")
    marker = own.marker()
    backend = own.service.backend
    launched = own("desktop_launch_app", argv=GTK_APP)
    own("desktop_find_elements", target={"role": "button"}, pid=launched["app"]["pid"])  # AT-SPI bus + registry up
    pids = [p.pid for p in backend.session.procs.values()] + children.marked(marker)
    assert len(pids) >= 6  # Xvfb, dbus, openbox, the app, the AT-SPI helper, launcher, registry…
    own.close()
    assert children.marked(marker) == []
    alive = [p for p in pids if os.path.exists(f"/proc/{p}")]
    assert alive == [], f"left behind (or unreaped): {alive}"

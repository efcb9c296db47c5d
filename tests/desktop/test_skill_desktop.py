"""A desktop recording on a real Debian application (galculator, GTK 3) becomes a skill in the page skills' format
that replays through the desktop tools, without a model; the result is read back from the app's own display."""

from __future__ import annotations

import json
from pathlib import Path

from bridge.server.mcp_server import build_server
from bridge.settings import Settings
from bridge.skills.desktop import compile_desktop
from bridge.skills.replay import replay
from bridge.state import BridgeState
from bridge.tools.road import Caller
from bridge.skills.store import DiskStore
from bridge.skills.trace import Trace, read
from bridge.skills.format import Skills, Until, parse
from tests.desktop.test_real_apps import display, launch  # noqa: F401 - fixture
from tests.desktop.test_recording import Human, center, element
from tests.support import run_async, wait_until

KEYS = ("AC", "1", "2", "*", "3", "=")


def test_a_calculator_recording_becomes_a_skill_that_replays_to_the_same_result(desk, launch, tmp_path: Path):  # noqa: F811
    win = launch(["galculator"])
    human = Human(desk)
    desk("desktop_start_recording", maxSeconds=60)
    for key in KEYS:
        human.click(center(element(desk, win["id"], "toggle button", key)))
    wait_until(lambda: display(desk, win).strip() == "36", 5, what="12*3 = 36 on the display")
    out = desk("desktop_stop_recording")

    skill = compile_desktop("multiply", out, Until(window="galculator"))
    assert skill.kind == "desktop" and skill.scope == win["title"]
    assert [(s.tool, s.arguments) for s in skill.steps] == [
        ("desktop_click", {"target": {"role": "toggle button", "name": k}, "window": win["title"]}) for k in KEYS]
    # the same file format as a page skill: it survives the store and a parse
    saved = run_async(Skills(DiskStore(tmp_path)).save(skill))
    assert parse(json.loads((tmp_path / "skills" / "multiply.json").read_text())) == saved

    human.click(center(element(desk, win["id"], "toggle button", "7")))  # the display shows something else now
    wait_until(lambda: display(desk, win).strip() == "7", 5, what="7 on the display")
    trace = Trace(tmp_path / "runs", "skill-desktop-test")

    # every step through the one road into tools, as a skill_run's are (bridge/tools/road.py)
    state = BridgeState(Settings(config_dir=tmp_path, no_audit=True, desktop_enabled=True))
    state.desktop = desk.service
    build_server(state)

    async def call(tool, args):
        return await state.road.value(tool, args, Caller("test", "1"))

    done = run_async(replay(skill, {}, trace, None, call, desktop=True))
    trace.close()
    assert done["state"] == "done" and done["until"] == "window 'galculator' open"
    wait_until(lambda: display(desk, win).strip() == "36", 5, what="the replayed 12*3 = 36 on the display")
    events = read(trace.path)
    assert events[0]["type"] == "run_start" and events[-1]["state"] == "done"
    assert sum(e["type"] == "tool_result" and e["ok"] for e in events) == len(KEYS)


def test_a_desktop_recording_over_v1_is_saved_and_run_as_a_skill(desk, launch, tmp_path: Path):  # noqa: F811
    """The paths `dbg-bridge record NAME --desktop` and `skill run` take: POST /v1/recordings {desktop: true}, the
    human's clicks, POST /v1/recordings/NAME/stop, POST /v1/skills/NAME/run, on a bridge app whose desktop is the
    test session's private one."""
    from starlette.testclient import TestClient

    from bridge.server.app import create_app
    from bridge.server.principals import terminal_headers

    win = launch(["galculator"])
    human = Human(desk)
    app = create_app(Settings(config_dir=tmp_path, port=8000, no_audit=True, desktop_enabled=True), "tok")
    terminal = {"Authorization": "Bearer tok", **terminal_headers(tmp_path)}  # the human's terminal records
    with TestClient(app, base_url="http://127.0.0.1:8000", headers=terminal) as http:
        state = app.state.bridge
        state.desktop = desk.service  # the bridge's desktop is this session's (handed back before the app stops)
        try:
            started = http.post("/v1/recordings", json={"name": "times", "desktop": True})
            assert started.status_code == 200 and started.json()["state"] == "recording", started.text
            for key in KEYS:
                human.click(center(element(desk, win["id"], "toggle button", key)))
            wait_until(lambda: display(desk, win).strip() == "36", 5, what="12*3 = 36 on the display")
            saved = http.post("/v1/recordings/times/stop", json={"until": {"window": "galculator"}}).json()
            assert saved["state"] == "saved" and saved["steps"] == len(KEYS), saved
            shown = http.get("/v1/skills/times").json()
            assert shown["kind"] == "desktop" and [s["tool"] for s in shown["steps"]] == ["desktop_click"] * len(KEYS)

            human.click(center(element(desk, win["id"], "toggle button", "7")))
            wait_until(lambda: display(desk, win).strip() == "7", 5, what="7 on the display")
            ran = http.post("/v1/skills/times/run", json={}).json()
            assert ran["state"] == "done", ran
            wait_until(lambda: display(desk, win).strip() == "36", 5, what="the replayed 12*3 = 36 on the display")
        finally:
            state.desktop = None

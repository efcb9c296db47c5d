"""The cockpit's Runs tab in Chromium: a quick run started from the box, its plan and steps live (an image a step
answered shown with it), the takeover answered there with a note, cancel, and the history with each run's trace."""

from __future__ import annotations

import threading
import time

import pytest

from e2e.agent_fixtures import api, app_page, model, site  # noqa: F401 - fixtures
from e2e.runs_api import done, of
from e2e.scripted_model import Req, call
from e2e.test_agent_mcp_servers import EVERYTHING, NODE
from tests.support import BridgeProcess, Bridges


@pytest.fixture(scope="module")
def agent_bridge(module_bridge_process: Bridges, tmp_path_factory, model) -> BridgeProcess:
    """A bridge whose runs also get server-everything's tools (get-tiny-image: a step that answers an image)."""
    config_dir = tmp_path_factory.mktemp("agent-cockpit")
    (config_dir / "config.toml").write_text(
        f'[mcp_servers.everything]\ncommand = "{NODE}"\nargs = ["{EVERYTHING}", "stdio"]\n')
    return module_bridge_process(config_dir=config_dir, env={"DBG_MODEL_URL": model.url})


def test_the_runs_tab_runs_a_task_shows_its_steps_and_answers_its_takeover(model, agent_bridge, api, app_page,
                                                                         context):
    def policy(req: Req):
        if req.verifying:
            return call("verdict", done=True, reason="Quince is there")
        if not req.called("plan"):
            return call("plan", steps=["Click Load more", "Hand over to check"],
                        stop_conditions=[{"kind": "text", "value": "Quince"}])
        if not req.called("page_act"):
            return call("page_act", action="click", selector="#more")
        if not req.called("everything__get-tiny-image"):  # a step that answers an image
            return call("everything__get-tiny-image")
        if not req.called("pause_for_human"):
            return call("pause_for_human", reason="check the new item")
        return call("finish", summary=req.last["content"])

    model.policies["default"] = policy  # the quick-run box uses the bridge's default model name
    cockpit = context.new_page()
    cockpit.goto(agent_bridge.base + "/#runs")
    cockpit.locator("#run-task").fill("Load more items and let me check")
    cockpit.locator("#run-start").click()
    cockpit.locator("#run-takeover:not([hidden])").wait_for(timeout=20000)
    assert "check the new item" in cockpit.locator("#takeover-text").inner_text()
    assert cockpit.locator("#count-takeovers").is_visible()
    plan = cockpit.locator("#run-plan li").all_inner_texts()
    assert plan[:2] == ["Click Load more", "Hand over to check"] and plan[2] == "stop when text “Quince”"
    step = cockpit.locator("#run-steps tr[data-tool=page_act]")
    assert step.locator("td").nth(0).inner_text() == "1" and "#more" in step.locator("td.args").inner_text()
    assert "error" not in step.locator("td.result").inner_text()
    shot = cockpit.locator("#run-steps tr[data-tool='everything__get-tiny-image'] img.shot")
    cockpit.wait_for_function("img => img.complete && img.naturalWidth > 0", arg=shot.element_handle(), timeout=10000)
    # the same takeover is in the page, as a card; the cockpit answers it with a note
    app_page.locator("dbg-human [data-question]").wait_for(timeout=10000)
    cockpit.locator("#takeover-note").fill("Quince is fine")
    cockpit.locator("button[data-takeover=skip]").click()
    cockpit.locator("#run-summary[data-state=done]").wait_for(timeout=20000)
    assert "Quince is fine" in cockpit.locator("#run-summary").inner_text()
    app_page.locator("dbg-human [data-question]").wait_for(state="detached", timeout=10000)
    run_id = cockpit.locator("#run-live").get_attribute("data-run")
    events = api.events(run_id)
    answer = [e for e in of(events, "human") if e["event"] == "answer"][0]
    assert (answer["action"], answer["via"], answer["note"]) == ("skip", "cockpit", "Quince is fine")
    assert done(events)["state"] == "done"
    # the history lists it; Show replays a past run from its trace
    row = cockpit.locator(f"#runs tr[data-run='{run_id}']")
    row.wait_for(timeout=10000)
    assert row.get_attribute("data-state") == "done"


def test_the_runs_tab_cancels_a_live_run(model, agent_bridge, api, app_page, context):
    model.policies["default"] = lambda req: (call("plan", steps=["wait"]) if not req.called("plan") else
                                             call("page_wait", text="never", timeout=30))
    cockpit = context.new_page()
    cockpit.goto(agent_bridge.base + "/#runs")
    cockpit.locator("#run-task").fill("Wait for nothing")
    cockpit.locator("#run-start").click()
    cockpit.locator("#run-steps tr[data-tool=page_wait]").wait_for(timeout=20000)
    cockpit.locator("#run-cancel").click()
    cockpit.locator("#run-summary[data-state=cancelled]").wait_for(timeout=20000)
    refused = cockpit.evaluate("fetch('/cockpit/runs/start', {method: 'POST', headers: {'Content-Type': "
                               "'application/json'}, body: '{\"task\": \"\"}'}).then(r => r.status)")
    assert refused == 400


def test_show_renders_a_finished_run_from_its_trace_and_activity_says_its_end(model, agent_bridge, api, app_page,
                                                                           context):
    """A run that replanned, paused for the human and ended done on the final check; then Show in the Runs tab
    renders it from its trace (plan, steps, the human's answer, the checks, the verdict, the end) and Live activity
    says its start and its end in words."""

    def policy(req: Req):
        if req.verifying:
            return call("verdict", done=True, reason="the list shows Quince")
        if not req.called("plan"):
            return call("plan", steps=["1. Ask which item", "2. Click Load more"],
                        stop_conditions=[{"kind": "text", "value": "Item: ?"}])
        if not req.called("pause_for_human"):
            return call("pause_for_human", reason="which item?")
        if not req.called("page_act"):
            return call("page_act", action="click", selector="#more")
        if not req.called("finish"):
            return call("finish", summary="Loaded Quince")
        return call("finish", summary="Loaded Quince", evidence="Quince is listed",
                    stop_conditions=[{"kind": "text", "value": "Quince"}])

    model.policies["shown"] = policy
    run_id = api.start("Load the item the human names", model="shown")
    paused = api.events(run_id, until="human")[-1]
    assert api.post(f"/v1/runs/{run_id}/resume", {"action": "resume", "note": "Quince"}).status_code == 200
    assert done(api.events(run_id, after=paused["seq"]))["state"] == "done"

    cockpit = context.new_page()
    errors: list[str] = []
    cockpit.on("pageerror", lambda exc: errors.append(str(exc)))
    cockpit.goto(agent_bridge.base + "/#runs")
    row = cockpit.locator(f"#runs tr[data-run='{run_id}']")
    row.wait_for(timeout=10000)
    assert row.locator("td.end").inner_text() == "done" and row.locator("td.why").inner_text() == "Loaded Quince"
    row.locator("button", has_text="Show").click()
    cockpit.locator("#run-summary[data-state=done]").wait_for(timeout=10000)
    assert cockpit.locator("#run-summary").inner_text() == "DONE: Loaded Quince"
    assert cockpit.locator("#run-title").inner_text() == "Load the item the human names"
    assert cockpit.locator("#run-state").inner_text() == "done" and cockpit.locator("#run-cancel").is_hidden()
    assert cockpit.locator("#run-id").inner_text() == run_id
    assert f"model shown at {model.url}" in cockpit.locator("#run-meta").inner_text()
    assert cockpit.locator("#run-plan li").all_inner_texts() == ["Ask which item", "Click Load more",
                                                                  "stop when text “Quince”"]
    assert "#more" in cockpit.locator("#run-steps tr[data-tool=page_act] td.args").inner_text()
    assert cockpit.locator("#run-steps tr.human").inner_text() == "human: resume via terminal — Quince"
    phases = cockpit.locator("#run-steps tr.phase").all_inner_texts()
    assert "stop conditions: text “Item: ?” NOT met" in phases
    assert any(p.startswith("replanning: verification failed: text 'Item: ?' not met") for p in phases), phases
    assert "stop conditions now: text “Quince”" in phases
    assert "final check on the page now: text “Quince” met" in phases
    assert "verdict: done — the list shows Quince" in phases
    assert cockpit.locator("#run-model").is_hidden() and cockpit.locator("#run-error").inner_text() == ""
    assert not errors, errors
    # Setup says which model runs use; Live activity says the run's start and end, in words
    cockpit.goto(agent_bridge.base + "/#setup")
    assert cockpit.locator("#fact-model").inner_text() == f"default at {model.url}"
    cockpit.goto(agent_bridge.base + "/#activity")
    ended = cockpit.locator(f"#feed tr[data-kind=run][data-run='{run_id}']", has_text="ended done")
    ended.wait_for(timeout=10000)
    assert "Loaded Quince" in ended.locator("td.details").inner_text()
    started = cockpit.locator(f"#feed tr[data-kind=run][data-run='{run_id}']", has_text="started")
    assert "Load the item the human names" in started.locator("td.details").inner_text()


def test_while_the_model_thinks_the_live_card_says_so_and_its_badge_and_history_row_agree(model, agent_bridge, api,
                                                                                       app_page, context):
    """A model call held 6 s: the live card shows the planning badge and a line saying the model is working with
    the seconds counting; the history row of that run says the same state as the badge; the line goes once the
    model answers."""
    held = threading.Event()

    def slow(req: Req):
        if not req.called("plan") and not held.is_set():
            held.set()
            time.sleep(6)  # the model server thinking (its own thread): the run waits on the HTTP answer
        if req.verifying:
            return call("verdict", done=True, reason="nothing to do")
        if not req.called("plan"):
            return call("plan", steps=["look"])
        return call("finish", summary="looked")

    model.policies["default"] = slow
    cockpit = context.new_page()
    cockpit.goto(agent_bridge.base + "/#runs")
    cockpit.locator("#run-task").fill("Look at the page")
    cockpit.locator("#run-start").click()
    cockpit.locator("#run-model:not([hidden])", has_text="the model is working (planning, call 1): 5 s").wait_for(
        timeout=20000)
    assert cockpit.locator("#run-state").inner_text() == "planning"
    run_id = cockpit.locator("#run-live").get_attribute("data-run")
    row = cockpit.locator(f"#runs tr[data-run='{run_id}']")
    row.wait_for(timeout=10000)
    assert row.get_attribute("data-state") == "planning" == cockpit.locator("#run-state").get_attribute("data-state")
    cockpit.locator("#run-summary[data-state=done]").wait_for(timeout=30000)
    assert cockpit.locator("#run-model").is_hidden()
    assert row.get_attribute("data-state") == "done"

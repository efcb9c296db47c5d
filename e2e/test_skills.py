"""Skills from a human's demonstration on an app nobody here wrote (JSON Editor's own test pages, from npm, pinned in
e2e/apps/json-editor): Playwright drives the tab with real input as the human while the bridge records; the
recording compiles into a skill with detected parameters; the skill replays with other values, without a model, on
a fresh page and on one whose layout changed (a wrapper div added, a class renamed); the app's own state is read
back; a replay whose button is gone fails naming the step. Over /v1 (plain HTTP) and MCP (skill_list/skill_run)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest

from bridge.server.principals import terminal_headers
from e2e.corpus import APPS, CorpusServer
from tests.support import ok, open_page, text_of, wait_until

APP = "json-editor/node_modules/@json-editor/json-editor/tests/pages/advanced.html"
PATH = "/" + APP
#: The app's own state: the value of its editor (what its Submit button logs).
STATE = "JSON.stringify(window.editor.getValue()[0])"


@pytest.fixture(scope="module")
def corpus(bridge) -> Iterator[CorpusServer]:
    assert (APPS / "json-editor" / "node_modules").is_dir(), "run ./scripts/test.sh (npm ci in e2e/apps/json-editor)"
    server = CorpusServer(bridge.client_js())
    yield server
    server.close()


class V1:
    """The bridge's /v1 API as the human's terminal sends it (its bearer token and the human key), as plain HTTP."""

    def __init__(self, bridge: Any) -> None:
        headers = {"Authorization": f"Bearer {bridge.token}"} if bridge.token else {}
        self.http = httpx2.Client(base_url=bridge.base, timeout=60,
                                  headers={**headers, **terminal_headers(bridge.config_dir)})

    def __call__(self, method: str, path: str, body: Any = None, status: int = 200, **params: Any) -> Any:
        r = self.http.request(method, path, json=body, params=params or None)
        assert r.status_code == status, r.text
        return r.json()


@pytest.fixture(scope="module")
def v1(bridge) -> Iterator[V1]:
    api = V1(bridge)
    yield api
    api.http.close()


def editor_ready(page: Any) -> None:
    page.wait_for_function("window.editor && window.editor.ready && document.querySelector('[name=\"root[0][name]\"]')",
                           timeout=10000)


def demonstrate(page: Any, name: str, age: str, city: str) -> None:
    """What the human does, with real input: retype the first person's name, age and city, pick a gender and the
    first pet's 'spayed / neutered' with the keyboard, press Submit."""
    for field, value in (("root[0][name]", name), ("root[0][age]", age), ("root[0][location][city]", city)):
        page.click(f'[name="{field}"]')
        page.keyboard.press("Control+a")
        page.keyboard.type(value)
    page.focus('[name="root[0][gender]"]')
    page.keyboard.press("ArrowDown")  # male -> female: a real key on a closed <select> changes it
    page.focus('[name="root[0][pets][0][fixed]"]')
    page.keyboard.press("ArrowDown")
    page.click("#submit")


def test_a_demonstration_becomes_a_skill_that_replays_with_other_values_on_a_fresh_and_a_changed_page(
        corpus, context, v1, mcp):
    page = open_page(context, corpus.url(APP))
    editor_ready(page)
    before = json.loads(page.evaluate(STATE))
    rec = v1("POST", "/v1/recordings", {"name": "edit-person", "pageId": page.page_id})
    assert rec["state"] == "recording"
    page.wait_for_selector("dbg-human >> [data-recording]")  # the tab shows it records
    demonstrate(page, "Ada Lovelace", "36", "London")
    wait_until(lambda: v1("GET", "/v1/recordings/edit-person")["steps"] >= 6, what="the steps reach the bridge")
    recorded = json.loads(page.evaluate(STATE))
    assert recorded["name"] == "Ada Lovelace" and recorded["gender"] == "female"
    assert before["pets"][0]["fixed"] is True and recorded["pets"][0]["fixed"] is False
    done = v1("POST", "/v1/recordings/edit-person/stop", {"until": {"text": "0 - Ada Lovelace"}})
    assert done["state"] == "saved", done
    skill = v1("GET", "/v1/skills/edit-person")
    print(json.dumps(skill, indent=1))
    params = {p["name"]: p for p in skill["params"]}
    # typed values are parameters named after their fields, with what was typed as the default
    assert {p["default"] for p in params.values()} >= {"Ada Lovelace", "36", "London"}
    name_param = next(n for n, p in params.items() if p["default"] == "Ada Lovelace")
    assert skill["until"] == {"text": "0 - {{" + name_param + "}}"}  # the stop condition follows the parameter
    assert [s["action"] for s in skill["steps"]] == ["goto", "fill", "fill", "fill", "select", "select", "click"]

    # a fresh page: another person, through plain HTTP
    fresh = open_page(context, corpus.url(APP))
    out = v1("POST", "/v1/skills/edit-person/run", {"pageId": fresh.page_id, "params": {name_param: "Grace Hopper"}})
    assert out["state"] == "done", out
    fresh.wait_for_function(CONNECTED_AGAIN)
    state = json.loads(fresh.evaluate(STATE))
    assert state["name"] == "Grace Hopper" and state["age"] == 36 and state["gender"] == "female"
    assert state["location"]["city"] == "London" and state["pets"][0]["fixed"] is False
    assert state != before

    # the app deployed with a changed layout: a wrapper div around the form, the Submit button's id renamed
    corpus.change(PATH, (b"<div id='editor_holder'></div>", b"<main class='v2'><div id='editor_holder'></div></main>"),
                  (b"id='submit'", b"id='submit-v2'"), (b"getElementById('submit')", b"getElementById('submit-v2')"))
    try:
        changed = open_page(context, corpus.url(APP))
        result = mcp.call("skill_run", {"name": "edit-person", "pageId": changed.page_id,
                                        "params": {name_param: "Katherine Johnson"}})
        assert ok(result)["state"] == "done", text_of(result)
        changed.wait_for_function(CONNECTED_AGAIN)
        assert changed.evaluate("!!document.querySelector('main.v2 #editor_holder input') && !document.querySelector('#submit')")  # it ran on the new layout
        assert json.loads(changed.evaluate(STATE))["name"] == "Katherine Johnson"

        # the Submit button removed: the replay fails naming that step, after the steps before it
        corpus.change(PATH, (b"<button id='submit'>Submit (console.log)</button>", b""))
        gone = open_page(context, corpus.url(APP))
        failed = v1("POST", "/v1/skills/edit-person/run", {"pageId": gone.page_id})
        assert failed["state"] == "failed"
        message = failed["error"]["message"]
        print(message)
        assert failed["error"]["code"] == "skill_step_failed"
        assert "Step 7 of 7 (click button 'Submit (console.log)') matched nothing" in message
        assert "Steps that ran: 1. goto" in message and "buttons on the page:" in message
    finally:
        corpus.change(PATH)

    listed = ok(mcp.call("skill_list", {}))["skills"]
    assert any(s["name"] == "edit-person" and s["steps"] == 7 for s in listed)


#: After a skill's goto the tab's client is connected again (the replay itself waited for that; this is the test's
#: Playwright handle catching up).
CONNECTED_AGAIN = "window.__dbg && window.__dbg.status().state === 'connected' && window.editor && window.editor.ready"

"""Apps nobody here wrote, installed from npm (e2e/apps/<name>, pinned), each driven through a real task by MCP tools
only: typing and Enter in keyCode-era apps, counts inside inline elements, shadow DOM, a large component UI."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest

from e2e.corpus import APPS, CorpusServer
from tests.support import ok, open_page, text_of

TODOMVC = "todomvc/node_modules/todomvc/examples/"


@pytest.fixture(scope="module")
def corpus(bridge) -> Iterator[CorpusServer]:
    for app in ("todomvc", "swagger-ui", "rapidoc", "uikit"):
        assert (APPS / app / "node_modules").is_dir(), f"run ./scripts/test.sh (npm ci in e2e/apps/{app})"
    server = CorpusServer(bridge.client_js(), api=api)
    API_PORT[0] = server.port
    yield server
    server.close()


class Agent:
    """What an agent does through MCP, on one page."""

    def __init__(self, mcp: Any, page: Any) -> None:
        self.mcp, self.page_id = mcp, page.page_id

    def act(self, **kw: Any) -> Any:
        return ok(self.mcp.call("page_act", {"pageId": self.page_id, **kw}))

    def wait(self, **kw: Any) -> Any:
        return ok(self.mcp.call("page_wait", {"pageId": self.page_id, "timeout": 10, **kw}))

    def find(self, **kw: Any) -> Any:
        return ok(self.mcp.call("page_find", {"pageId": self.page_id, **kw}))

    def snapshot(self, **kw: Any) -> str:
        return text_of(self.mcp.call("page_snapshot", {"pageId": self.page_id, **kw}))

    def ref_near(self, tree: str, text: str, role: str, before: bool = False) -> str:
        """The ref of the first `role` line at or just after the line naming `text` (or just before it: a row's
        checkbox, say)."""
        lines = tree.splitlines()
        at = next(i for i, line in enumerate(lines) if text in line)
        for line in (lines[max(0, at - 2):at + 1][::-1] if before else lines[at:at + 3]):
            m = re.search(rf'(?:^|[\s|:]){role}(?: "[^"]*")?(?: \[(?!ref=)[^\]]*\])* \[ref=([^\]]+)\]', line)
            if m:  # a line of its own, or inline in a table row's line
                return m.group(1)
        raise AssertionError(f"no {role} near {text!r} in:\n" + "\n".join(lines[max(0, at - 3):at + 4]))


def todo_task(agent: Agent) -> None:
    """Add two todos by typing + Enter, read the count, toggle one, filter, as a person would."""
    for title in ("Buy milk", "Walk the dog"):
        agent.act(action="type", text="What needs to be done?", value=title)
        agent.act(action="press", text="What needs to be done?", key="Enter")
    assert agent.wait(text="2 items left")["met"]
    assert agent.find(text="2 items left")["total"] == 1
    tree = agent.snapshot()
    agent.act(action="check", ref=agent.ref_near(tree, "Buy milk", "checkbox", before=True))
    assert agent.wait(text="1 item left")["met"]
    agent.act(action="click", text="Completed", exact=True)
    assert agent.wait(text="Walk the dog", state="hidden")["met"]
    assert agent.find(text="Buy milk")["total"] == 1


@pytest.mark.parametrize("example", ["backbone", "vanillajs", "angularjs"])
def test_todomvc_typing_enter_counts_toggle_and_filter(example, corpus, context, mcp):
    page = open_page(context, corpus.url(TODOMVC + example + "/index.html"))
    todo_task(Agent(mcp, page))
    shown = "[...document.querySelectorAll('#todo-list li')].filter((li) => li.checkVisibility())"
    assert page.evaluate(shown + ".map((li) => li.textContent.trim())") == ["Buy milk"]


def test_todomvc_vanillajs_edit_by_double_click_and_enter(corpus, context, mcp):
    page = open_page(context, corpus.url(TODOMVC + "vanillajs/index.html"))
    agent = Agent(mcp, page)
    agent.act(action="type", text="What needs to be done?", value="Buy milk")
    agent.act(action="press", text="What needs to be done?", key="Enter")
    agent.act(action="dblclick", text="Buy milk", exact=True)
    agent.act(action="press", selector="#todo-list li.editing .edit", key="Control+a")
    agent.act(action="type", selector="#todo-list li.editing .edit", value="Buy oat milk")
    agent.act(action="press", selector="#todo-list li.editing .edit", key="Enter")  # keypress, keyCode 13
    assert agent.wait(text="Buy oat milk", exact=True)["met"]
    assert page.evaluate("document.querySelector('#todo-list label').textContent") == "Buy oat milk"


def petstore(port: int) -> dict[str, Any]:
    """A small Swagger 2.0 spec whose API is the corpus server's /api."""
    return {
        "swagger": "2.0", "info": {"title": "Pet corner", "version": "1.0.0"}, "host": f"127.0.0.1:{port}",
        "basePath": "/api", "schemes": ["http"], "tags": [{"name": "pet", "description": "Everything about your pets"}],
        "paths": {
            "/pet/{petId}": {"get": {
                "tags": ["pet"], "summary": "Find pet by ID", "operationId": "getPetById",
                "produces": ["application/json"],
                "parameters": [{"name": "petId", "in": "path", "description": "ID of pet to return", "required": True,
                                "type": "integer", "format": "int64"}],
                "responses": {"200": {"description": "successful operation"}, "404": {"description": "Pet not found"}}}},
            "/pet/findByStatus": {"get": {
                "tags": ["pet"], "summary": "Finds pets by status", "operationId": "findPetsByStatus",
                "parameters": [{"name": "status", "in": "query", "required": True, "type": "string"}],
                "responses": {"200": {"description": "successful operation"}}}},
        },
    }


API_CALLS: list[str] = []


def api(path: str) -> Any:
    """The corpus server's backend: the spec and pets for Swagger UI, an echo for RapiDoc's example API."""
    if path.startswith("/multiple-examples-in-request-parameters/"):
        API_CALLS.append(path)
        return {"echo": path.split("?")[0]}
    if not path.startswith("/api/"):
        return None
    API_CALLS.append(path)
    if path == "/api/swagger.json":
        return petstore(API_PORT[0])
    return {"id": int(path.rsplit("/", 1)[1]), "name": "doggie", "status": "available"}


API_PORT: list[int] = [0]


def test_swagger_ui_load_a_spec_expand_an_operation_try_it_and_read_the_response(corpus, context, mcp):
    page = open_page(context, corpus.url("swagger-ui/node_modules/swagger-ui-dist/index.html"))
    agent = Agent(mcp, page)
    # the published page points at https://petstore.swagger.io (unreachable here): explore our spec instead
    agent.act(action="fill", selector=".download-url-input", value=corpus.url("api/swagger.json"))
    agent.act(action="press", selector=".download-url-input", key="Enter")  # implicit submission: Explore
    assert agent.wait(text="/pet/{petId}")["met"]  # rendered with zero-width spaces after each '/'
    agent.act(action="click", text="/pet/{petId}", exact=True)
    assert agent.wait(text="Try it out")["met"]
    agent.act(action="click", text="Try it out")
    agent.act(action="fill", text="petId", value="7")
    agent.act(action="click", text="Execute", exact=True)
    assert agent.wait(text='"name": "doggie"')["met"]
    assert API_CALLS[-1] == "/api/pet/7"


def test_swagger_ui_expanding_an_operation_answers_once_its_body_has_rendered(corpus, context, mcp):
    """The operation's body renders a moment after the click that expands it: the act answers once the DOM is still,
    so a find right after the answer (no wait between) sees its Try it out button, expand after expand."""
    page = open_page(context, corpus.url("swagger-ui/node_modules/swagger-ui-dist/index.html"))
    agent = Agent(mcp, page)
    agent.act(action="fill", selector=".download-url-input", value=corpus.url("api/swagger.json"))
    agent.act(action="press", selector=".download-url-input", key="Enter")
    assert agent.wait(text="/pet/{petId}")["met"]
    for _ in range(4):
        agent.act(action="click", text="/pet/{petId}", exact=True)
        assert agent.find(text="Try it out")["total"] == 1
        agent.act(action="click", text="/pet/{petId}", exact=True)  # collapsed again
        assert agent.wait(text="Try it out", state="hidden")["met"]


def serve_rapidoc_script(context: Any) -> None:
    """The published page loads RapiDoc from unpkg.com (unreachable here): answer with the installed file."""
    script = APPS / "rapidoc" / "node_modules" / "rapidoc" / "dist" / "rapidoc-min.js"
    context.route("https://unpkg.com/rapidoc/dist/rapidoc-min.js",
                  lambda route: route.fulfill(status=200, content_type="text/javascript", body=script.read_bytes()))


def test_rapidoc_lit_components_navigate_fill_and_try_inside_shadow_roots(corpus, context, mcp):
    serve_rapidoc_script(context)
    page = open_page(context, corpus.url("rapidoc/node_modules/rapidoc/index.html"))
    agent = Agent(mcp, page)
    assert page.evaluate("!!document.querySelector('rapi-doc').shadowRoot")  # everything below is in shadow trees
    tree = agent.snapshot()
    agent.act(action="fill", ref=agent.ref_near(tree, "- row: path-param-1", "textbox"), value="p1-opt-1")
    agent.act(action="fill", ref=agent.ref_near(tree, "- row: path-param-2", "textbox"), value="p2-opt-2")
    agent.act(action="click", text="TRY", exact=True)
    assert agent.wait(text="/multiple-examples-in-request-parameters/p1-opt-1/p2-opt-2\"")["met"]  # the echoed JSON
    assert API_CALLS[-1].startswith("/multiple-examples-in-request-parameters/p1-opt-1/p2-opt-2")
    assert agent.find(text="Response Status: OK:200")["total"] >= 1
    # a nav item is a div with a click handler, found by its text inside the shadow tree
    agent.act(action="click", text="Request body with multiple examples", exact=True)
    assert agent.wait(text="/multiple-example-in-request-body", exact=True)["met"]
    assert agent.find(role="heading", text="Request body with multiple examples")["total"] == 1
    assert agent.find(selector="rapi-doc >>> api-request")["total"] == 1


UIKIT = "uikit/node_modules/uikit/tests/"


def test_uikit_modal_opens_closes_by_button_and_by_escape(corpus, context, mcp):
    page = open_page(context, corpus.url(UIKIT + "modal.html"))
    agent = Agent(mcp, page)
    assert page.evaluate("typeof UIkit.modal") == "function"
    opener = agent.find(role="button", text="Default", exact=True)["matches"][0]["ref"]  # a table header says it too
    agent.act(action="click", ref=opener)
    assert agent.wait(text="Headline", exact=True)["met"]
    agent.act(action="click", text="Cancel", exact=True)
    assert agent.wait(text="Headline", exact=True, state="hidden")["met"]
    agent.act(action="click", ref=opener)
    assert agent.wait(text="Headline", exact=True)["met"]
    agent.act(action="press", text="Save", exact=True, key="Escape")  # UIkit closes on keydown keyCode 27
    assert agent.wait(text="Headline", exact=True, state="hidden")["met"]


def test_uikit_switcher_tabs(corpus, context, mcp):
    page = open_page(context, corpus.url(UIKIT + "switcher.html"))
    agent = Agent(mcp, page)
    agent.act(action="click", text="Switch to tab 3")
    assert agent.wait(text="Bazinga! Previous tab")["met"]
    assert agent.find(text="Hello again! Next tab")["total"] == 0  # hidden panels are not read

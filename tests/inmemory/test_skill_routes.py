"""/v1/skills, /v1/recordings and /v1/memory on an in-process app: the bearer token as /mcp, the bridge's one error
shape, a 4xx (never a 500) for every bad input, edits checked before they are saved."""

from __future__ import annotations

import pytest
from starlette.testclient import TestClient

from bridge.server.app import create_app
from bridge.settings import Settings

SKILL = {"name": "add", "scope": "http://a.test", "params": [{"name": "email", "default": "a@b.c"}],
         "steps": [{"action": "goto", "url": "http://a.test/"},
                   {"action": "fill", "target": {"selector": "#e"}, "value": "{{email}}"}]}


@pytest.fixture
def client(tmp_path):
    app = create_app(Settings(config_dir=tmp_path, port=8000, no_audit=True), "tok")
    with TestClient(app, base_url="http://127.0.0.1:8000", headers={"Authorization": "Bearer tok"}) as c:
        yield c


def error(r, status: int, code: str) -> str:
    assert r.status_code == status, r.text
    body = r.json()
    assert set(body) == {"error"} and set(body["error"]) == {"code", "message"} and body["error"]["code"] == code
    return body["error"]["message"]


def test_every_route_wants_the_token(client):
    for method, path in (("GET", "/v1/skills"), ("POST", "/v1/recordings"), ("GET", "/v1/memory"),
                         ("DELETE", "/v1/skills/add")):
        error(client.request(method, path, headers={"Authorization": "Bearer nope"}), 401, "unauthorized")


def test_a_skill_is_saved_listed_shown_edited_and_deleted(client):
    assert client.put("/v1/skills/add", json=SKILL).json()["revision"] == 1
    assert client.put("/v1/skills/add", json=SKILL).json()["revision"] == 2
    assert [s["name"] for s in client.get("/v1/skills").json()["skills"]] == ["add"]
    assert client.get("/v1/skills", params={"scope": "http://other.test"}).json() == {"skills": []}
    assert client.get("/v1/skills/add").json()["params"] == [{"name": "email", "default": "a@b.c", "secret": False,
                                                              "label": ""}]
    assert client.delete("/v1/skills/add").json() == {"deleted": "add"}
    assert "Skills here: none yet" in error(client.get("/v1/skills/add"), 404, "unknown_skill")


@pytest.mark.parametrize(("method", "path", "body", "status", "code"), [
    ("PUT", "/v1/skills/add", "not json", 400, "bad_json"),
    ("PUT", "/v1/skills/add", [1, 2], 400, "bad_request"),
    ("PUT", "/v1/skills/add", {**SKILL, "steps": [{"action": "teleport"}]}, 400, "bad_skill"),
    ("PUT", "/v1/skills/other", SKILL, 400, "bad_skill"),
    ("PUT", "/v1/skills/bad%20name", SKILL, 400, "invalid_argument"),
    ("POST", "/v1/skills/add/run", {"params": "x"}, 400, "invalid_argument"),
    ("POST", "/v1/skills/nope/run", {}, 404, "unknown_skill"),
    ("POST", "/v1/recordings", {}, 400, "invalid_argument"),
    ("POST", "/v1/recordings", {"name": "ok"}, 409, "no_page"),
    ("POST", "/v1/recordings", {"name": "bad name!", "pageId": "1/host"}, 400, "invalid_argument"),
    ("GET", "/v1/recordings/none", None, 404, "unknown_recording"),
    ("POST", "/v1/recordings/none/stop", {"until": 5}, 400, "invalid_argument"),
    ("PATCH", "/v1/memory/m123", {"text": "x"}, 404, "unknown_fact"),
    ("DELETE", "/v1/memory/m123", None, 404, "unknown_fact"),
    ("POST", "/v1/skills/x/from-run", {"run": "../../token"}, 404, "unknown_run"),
])
def test_bad_input_is_a_4xx_in_the_error_shape(client, method, path, body, status, code):
    kw = {"content": body} if isinstance(body, str) else {"json": body} if body is not None else {}
    error(client.request(method, path, **kw), status, code)

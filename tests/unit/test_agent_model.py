"""A model error names its real cause and its fix: a context window too small (the server's flag), a refused key
(the key's flag), nothing listening (the URL); a run's own endpoint and key win over the bridge's, and the bridge's
key never goes to another endpoint."""

from __future__ import annotations

import asyncio
import socket

import httpx
import pytest

from bridge.runs.model import ModelError, OpenAIModel, build_model, shown_url
from bridge.settings import Settings


def answering(status: int, text: str) -> OpenAIModel:
    model = OpenAIModel("http://127.0.0.1:9/v1", "m", None, 5, 0, False)
    model.http = httpx.AsyncClient(transport=httpx.MockTransport(lambda r: httpx.Response(status, text=text)))
    return model


def failure(model: OpenAIModel) -> ModelError:
    with pytest.raises(ModelError) as caught:
        asyncio.run(model.complete([{"role": "user", "content": "hi"}], []))
    return caught.value


def test_a_prompt_over_the_context_window_names_the_servers_context_flag():
    llama = ('{"error":{"code":400,"message":"Requested tokens (3399) exceed context window of 2048",'
             '"type":"invalid_request_error"}}')
    err = failure(answering(400, llama))
    assert err.code == "model_context" and "--n_ctx 8192" in str(err) and "docs/runs.md" in str(err)
    openai = "This model's maximum context length is 2048 tokens. However, you requested 3399 tokens"
    assert failure(answering(400, openai)).code == "model_context"


def test_a_refused_key_names_the_key_and_a_missing_model_names_the_model_list():
    err = failure(answering(401, '{"error":"invalid api key"}'))
    assert err.code == "model_auth" and "--model-key" in str(err) and "OPENAI_API_KEY" in str(err)
    err = failure(answering(404, "not found"))
    assert err.code == "model_refused" and "/models" in str(err)


def test_nothing_listening_names_the_url_to_fix():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    err = failure(OpenAIModel(f"http://127.0.0.1:{port}/v1", "m", None, 5, 0, False))
    assert err.code == "model_unavailable"
    assert f"Nothing answers at http://127.0.0.1:{port}/v1" in str(err) and "--model-url" in str(err)


def test_a_runs_own_endpoint_and_key_win_and_the_bridges_key_stays_with_the_bridges_endpoint():
    settings = Settings(model_url="http://127.0.0.1:1/v1", model_key="bridge-key")
    own = build_model(settings, None, None, "http://user:pw@127.0.0.1:2/v1?x=1", "run-key")
    assert own.http.headers["authorization"] == "Bearer run-key" and own.endpoint == "http://127.0.0.1:2/v1"
    other = build_model(settings, None, None, "http://127.0.0.1:3/v1", None)
    assert "authorization" not in other.http.headers
    same = build_model(settings, None, None, "http://127.0.0.1:1/v1/", None)
    assert same.http.headers["authorization"] == "Bearer bridge-key"
    assert shown_url("https://k:s@h.example/v1?key=1") == "https://h.example/v1"


def test_a_run_request_takes_an_http_endpoint_and_keeps_its_key_secret():
    from pydantic import ValidationError

    from bridge.runs.budgets import RunRequest

    request = RunRequest(task="t", model_url="http://127.0.0.1:8011/v1", model_key="sk-secret")
    assert "sk-secret" not in repr(request) and "sk-secret" not in request.model_dump_json()
    assert request.model_key.get_secret_value() == "sk-secret"
    for bad in ("file:///etc/passwd", "127.0.0.1:8011/v1", "http://has space/v1"):
        with pytest.raises(ValidationError):
            RunRequest(task="t", model_url=bad)

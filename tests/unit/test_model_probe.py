"""doctor's model check reads the context window an endpoint states (llama.cpp's /props, vLLM's max_model_len,
a /models entry's meta) and judges it against a run's first request plus room for its steps."""

from __future__ import annotations

import httpx

from bridge.cli import model_probe


def client(routes: dict[str, tuple[int, object]]) -> httpx.Client:
    def answer(request: httpx.Request) -> httpx.Response:
        status, body = routes.get(request.url.path, (404, {"error": "no"}))
        return httpx.Response(status, json=body)

    return httpx.Client(transport=httpx.MockTransport(answer))


def test_the_window_comes_from_llama_cpps_props_or_a_models_entry():
    llama = client({"/props": (200, {"default_generation_settings": {"n_ctx": 4096}})})
    assert model_probe.declared(llama, "http://h/v1") == (4096, "http://h/props")
    vllm = client({"/v1/models": (200, {"data": [{"id": "m", "max_model_len": 32768}]})})
    assert model_probe.declared(vllm, "http://h/v1") == (32768, "http://h/v1/models (max_model_len)")
    meta = client({"/v1/models": (200, {"data": [{"id": "m", "meta": {"n_ctx": 2048}}]})})
    assert model_probe.declared(meta, "http://h/v1") == (2048, "http://h/v1/models (n_ctx)")
    silent = client({"/v1/models": (200, {"data": [{"id": "m"}]})})
    assert model_probe.declared(silent, "http://h/v1") is None


def test_a_window_fits_when_it_holds_the_first_request_and_room_for_steps():
    assert model_probe._fit(8192, 4000, "8192", "fix").ok
    small = model_probe._fit(2048, 4000, "2048 tokens", "fix")
    assert not small.ok and "too small" in small.detail and small.fix == "fix"
    tight = model_probe._fit(5000, 4000, "5000 tokens", "fix")
    assert not tight.ok and "its later steps will not" in tight.detail
    assert model_probe.suggestion(4000) == 8192 and model_probe.suggestion(7000) == 16384


def test_a_refusal_names_the_window_llama_cpp_python_states():
    said = ("This model's maximum context length is 2048 tokens. However, you requested 6287 tokens (6287 in the "
            "messages, 1 in the completion).")
    refusing = client({"/v1/chat/completions": (400, {"error": {"message": said}})})
    probe = model_probe.probed(refusing, "http://h/v1", "m", 6286)
    assert (probe.what, probe.window) == ("refused", 2048)
    taking = client({"/v1/chat/completions": (200, {"choices": [{"message": {"content": "ok"}}]})})
    assert model_probe.probed(taking, "http://h/v1", "m", 6286).what == "accepted"

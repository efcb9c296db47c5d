"""Every numeric query parameter and header the bridge reads (cursors, counts, seconds, Content-Length) is parsed
with bounds: property-based over the parsers, and fuzzed over the routes that read them — always a 2xx or a 4xx in
the one error shape, never a 5xx, and the bridge answers normally afterwards."""

from __future__ import annotations

import re
from collections.abc import Iterator
from urllib.parse import quote

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.requests import Request
from starlette.testclient import TestClient

from bridge.runs.budgets import Limits, RunRequest
from bridge.skills.recording import Recording
from bridge.runs.runs import Run
from bridge.server.app import create_app
from bridge.server.http import HTTPError, parse_count, parse_seconds, read_body
from bridge.server.principals import HEADER, read_key
from bridge.settings import Settings

#: What a header or query value can hold: any text (latin-1 on the wire for headers), digits of every script,
#: signs, exponents, huge numbers.
values = st.one_of(
    st.text(max_size=40),
    st.from_regex(r"[0-9]{1,30}", fullmatch=True),
    st.from_regex(r"-?[0-9]{0,6}(\.[0-9]{0,6})?(e[+-]?[0-9]{1,4})?", fullmatch=True),
    st.sampled_from(["²", "٣", "1" * 5000, "inf", "nan", "-0", "+1", " 7", "7 ", "0x1f", "1_000", "１２"]),
    st.integers(min_value=-(10**30), max_value=10**30).map(str),
)


@settings(deadline=None)  # 2 shared cores: no timing in a test
@given(values, st.integers(min_value=0, max_value=10**18))
def test_parse_count_gives_a_bounded_int_or_a_400(raw, maximum):
    try:
        got = parse_count(raw, "n", maximum)
    except HTTPError as exc:
        assert exc.status == 400 and exc.code == "bad_request" and "whole number" in exc.message
        assert not (re.fullmatch(r"[0-9]{1,18}", raw) and int(raw) <= maximum)
        return
    assert 0 <= got <= maximum
    assert raw == "" or (re.fullmatch(r"[0-9]{1,18}", raw) and got == int(raw))


@settings(deadline=None)
@given(values, st.floats(min_value=0, max_value=1e6))
def test_parse_seconds_gives_a_bounded_finite_number_or_a_400(raw, maximum):
    try:
        got = parse_seconds(raw, "wait", maximum)
    except HTTPError as exc:
        assert exc.status == 400 and "seconds" in exc.message
        return
    assert 0 <= got <= maximum


def request_with(content_length: str) -> Request:
    scope = {"type": "http", "method": "POST", "path": "/", "headers": [(b"content-length",
                                                                         content_length.encode("utf-8"))]}

    async def receive() -> dict:
        return {"type": "http.request", "body": b"{}", "more_body": False}

    return Request(scope, receive)


@settings(deadline=None)
@given(values)
def test_a_content_length_header_is_a_number_within_the_limit_or_a_4xx(raw):
    import asyncio

    try:
        asyncio.run(read_body(request_with(raw), 1000))
    except HTTPError as exc:
        assert exc.status in (400, 413)


# ---- over the routes ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    config_dir = tmp_path_factory.mktemp("cursors")
    app = create_app(Settings(config_dir=config_dir, port=8000, no_audit=True, no_consent=True), "tok")
    headers = {"Authorization": "Bearer tok", HEADER: read_key(config_dir) or ""}
    with TestClient(app, base_url="http://127.0.0.1:8000", headers=headers) as c:
        state = app.state
        c.portal.call(_seed, state)  # type: ignore[union-attr]
        yield c


async def _seed(state) -> None:
    """A run and a recording, so the routes reach their parsers (an unknown one is a 404 first)."""
    run = Run(RunRequest(task="t"), Limits(steps=1, batches=1, replans=0, model_calls=1, seconds=9), None)
    run.id = "r-fuzz"
    run.emit("run_done", state="done", summary="")
    run.state = "done"
    state.agent.runs.by_id[run.id] = run
    state.bridge.skills.recordings.by_name["fuzz"] = Recording("fuzz", "1", state="saved")


def cockpit(client: TestClient) -> dict[str, str]:
    client.get("/")  # the cockpit's cookie
    return {"Origin": "http://127.0.0.1:8000"}


ROUTES = [
    ("/v1/runs/r-fuzz/events", "after", "last-event-id"),
    ("/v1/recordings/fuzz", "since", None),
    ("/v1/recordings/fuzz", "wait", None),
    ("/cockpit/runs/r-fuzz/events", "after", "last-event-id"),
    ("/cockpit/events", None, "last-event-id"),
    ("/bridge/events", "i", "last-event-id"),
]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.sampled_from(ROUTES), values)
def test_every_numeric_query_and_header_fuzzed_is_never_a_5xx(client, route, raw):
    path, query, header = route
    extra = cockpit(client) if path.startswith("/cockpit/") else {}
    if path == "/cockpit/events":  # an endless stream when the cursor is good: only its refusals are read here
        extra = {}
    if query:
        r = client.get(path, params={query: raw}, headers=extra)
        assert r.status_code < 500, (path, query, raw, r.text)
        if r.status_code >= 400:
            assert set(r.json()) == {"error"}
    if header and not set(raw) & set("\r\n\x00"):  # what no HTTP client can send in a header
        r = client.get(path, headers={**extra, header: raw.encode("utf-8")})
        assert r.status_code < 500, (path, header, raw, r.text)
    assert client.get("/v1/runs").status_code == 200


@given(values)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_a_cockpit_image_step_fuzzed_is_a_404_never_a_5xx(client, raw):
    r = client.get(f"/cockpit/runs/r-fuzz/image/{quote(raw, safe='') or '0'}", headers=cockpit(client))
    assert r.status_code < 500 and r.status_code in (403, 404)

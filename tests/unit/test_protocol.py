"""The page-channel wire protocol: every malformed message is refused at the edge with a ProtocolError naming the field."""

from __future__ import annotations

import json

import pytest

from bridge.pages.protocol import (
    PAGE_ID_RE,
    ByeMsg,
    ExecFrame,
    FramesMsg,
    LeavingMsg,
    ProtocolError,
    RegisterReply,
    RegisterRequest,
    ResultMsg,
    dump,
    parse_register,
    parse_up,
)
from bridge.pages.registry import split_page_id

SECRET = "s" * 43


def register_raw(**fields) -> str:
    return json.dumps({"v": 1, **fields})


def test_a_minimal_register_request_gets_defaults():
    req = parse_register("{}")
    assert isinstance(req, RegisterRequest)
    assert (req.v, req.instanceId, req.secret, req.reclaim, req.port, req.frames) == (1, None, None, False, None, [])


def test_a_full_register_request_round_trips_its_fields():
    req = parse_register(register_raw(instanceId="ab123", secret=SECRET, reclaim=True, url="http://localhost:5173/",
                                      title="App", origin="http://localhost:5173", port=5173, attach="vite",
                                      frames=[{"frameId": "f0", "parent": "host", "crossOrigin": True}]))
    assert req.instanceId == "ab123" and req.secret == SECRET and req.reclaim and req.port == 5173
    assert req.frames[0].frameId == "f0" and req.frames[0].parent == "host" and req.frames[0].crossOrigin


def test_unknown_register_fields_are_ignored_not_fatal():
    assert parse_register(register_raw(futureField={"x": 1}, instanceId="5173")).instanceId == "5173"


@pytest.mark.parametrize(
    "fields, named",
    [
        ({"instanceId": "AB123"}, "instanceId"),
        ({"instanceId": "123456"}, "instanceId"),
        ({"instanceId": "../etc"}, "instanceId"),
        ({"secret": "short"}, "secret"),
        ({"secret": "x" * 129}, "secret"),
        ({"secret": "has spaces in it and is long enough to pass length"}, "secret"),
        ({"port": 0}, "port"),
        ({"port": 70000}, "port"),
        ({"port": "not a port"}, "port"),
        ({"url": "u" * 5000}, "url"),
        ({"title": 5}, "title"),
        ({"reclaim": "perhaps"}, "reclaim"),
        ({"attach": "a" * 65}, "attach"),
        ({"frames": [{"frameId": "window"}]}, "frames.0.frameId"),
        ({"frames": [{"frameId": "f0", "parent": "top"}]}, "frames.0.parent"),
        ({"frames": [{"frameId": f"f{i}"} for i in range(257)]}, "frames"),
        ({"frames": "f0"}, "frames"),
    ],
)
def test_a_malformed_register_request_raises_a_protocol_error_naming_the_field(fields, named):
    with pytest.raises(ProtocolError) as info:
        parse_register(register_raw(**fields))
    assert named in str(info.value)


@pytest.mark.parametrize("raw", ["{not json", "", "\xff", "[]", "\"text\"", "null", b"\xff\xfe\x00"])
def test_a_register_body_that_is_not_a_json_object_is_a_protocol_error(raw):
    with pytest.raises(ProtocolError) as info:
        parse_register(raw)
    assert "body" in str(info.value)


def test_a_result_message_parses_from_text_and_from_a_dict_ignoring_credentials():
    msg = {"instanceId": "ab123", "secret": SECRET, "type": "result", "requestId": "r1", "ok": True,
           "result": {"a": [1, 2]}}
    for raw in (json.dumps(msg), msg, json.dumps(msg).encode()):
        parsed = parse_up(raw)
        assert isinstance(parsed, ResultMsg)
        assert (parsed.requestId, parsed.ok, parsed.result, parsed.error) == ("r1", True, {"a": [1, 2]}, None)


def test_a_failed_result_carries_code_message_and_stack():
    parsed = parse_up({"type": "result", "requestId": "r1", "ok": False,
                       "error": {"code": "csp_blocked", "message": "no eval", "stack": "at x"}})
    assert isinstance(parsed, ResultMsg) and parsed.error is not None
    assert (parsed.error.code, parsed.error.message, parsed.error.stack) == ("csp_blocked", "no eval", "at x")


def test_frames_and_bye_messages_parse_to_their_types():
    frames = parse_up({"type": "frames", "frames": [{"frameId": "host"}, {"frameId": "f3", "parent": "host"}],
                       "url": "http://localhost/x"})
    assert isinstance(frames, FramesMsg) and [f.frameId for f in frames.frames] == ["host", "f3"]
    assert frames.url == "http://localhost/x" and frames.title is None
    assert isinstance(parse_up('{"type": "bye"}'), ByeMsg)


def test_a_leaving_message_says_where_it_goes_or_that_it_stayed():
    went = parse_up({"type": "leaving", "to": "http://localhost/next"})
    assert isinstance(went, LeavingMsg) and went.to == "http://localhost/next" and not went.stayed
    assert parse_up('{"type": "leaving", "stayed": true}').stayed  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "msg, named",
    [
        ({"type": "result", "ok": True}, "requestId"),
        ({"type": "result", "requestId": "r1"}, "ok"),
        ({"type": "result", "requestId": "r" * 65, "ok": True}, "requestId"),
        ({"type": "result", "requestId": "r1", "ok": "maybe"}, "ok"),
        ({"type": "result", "requestId": "r1", "ok": False, "error": {"message": 5}}, "error.message"),
        ({"type": "result", "requestId": "r1", "ok": False, "error": {"code": "c" * 65}}, "error.code"),
        ({"type": "result", "requestId": "r1", "ok": False, "error": "boom"}, "error"),
        ({"type": "frames"}, "frames"),
        ({"type": "frames", "frames": [{"frameId": "nope"}]}, "frames.0.frameId"),
        ({"type": "launch-missiles"}, "type"),
        ({"requestId": "r1", "ok": True}, "type"),
    ],
)
def test_a_malformed_up_message_raises_a_protocol_error_naming_the_field(msg, named):
    for raw in (msg, json.dumps(msg)):
        with pytest.raises(ProtocolError) as info:
            parse_up(raw)
        assert named in str(info.value)


@pytest.mark.parametrize("raw", ["{oops", "[1]", "42", ""])
def test_an_up_message_that_is_not_a_json_object_is_a_protocol_error(raw):
    with pytest.raises(ProtocolError):
        parse_up(raw)


def test_a_protocol_error_is_a_value_error_with_at_most_five_problems():
    with pytest.raises(ValueError) as info:
        parse_register(register_raw(frames=[{"frameId": f"bad{i}"} for i in range(20)]))
    assert str(info.value).count("frames.") == 5


def test_down_messages_serialize_without_nulls_and_with_their_type():
    exec_ = json.loads(dump(ExecFrame(requestId="r1", frameId="f0", command="eval", params={"code": "1"},
                                      timeout=5)))
    assert exec_ == {"type": "exec", "requestId": "r1", "frameId": "f0", "command": "eval",
                     "params": {"code": "1"}, "timeout": 5.0}
    reply = json.loads(dump(RegisterReply(instanceId="5173", secret=SECRET, ttl=600, heartbeat=15, maxResult=1000)))
    assert reply["type"] == "registered" and reply["v"] == 1 and reply["renamed"] is False


@pytest.mark.parametrize(
    "page_id, parts",
    [
        ("5173/host", ("5173", "host")),
        ("ab123/f0", ("ab123", "f0")),
        ("ab123", ("ab123", "host")),
        (" 5173/f12 ", ("5173", "f12")),
        ("AB123/host", None),
        ("ab123/frame0", None),
        ("ab12/host", None),
        ("5173/host/extra", None),
        ("", None),
    ],
)
def test_page_ids_split_into_instance_and_frame_or_are_refused(page_id, parts):
    assert split_page_id(page_id) == parts
    assert bool(PAGE_ID_RE.match(page_id.strip())) == (parts is not None)

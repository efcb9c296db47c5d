"""Every default tool (page_*, user_*, inbox) through the official MCP client against one fake page: each is called,
its answer checked against its outputSchema, and the module fails when the table has a tool it did not call."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from bridge.pages.protocol import RegisterRequest
from bridge.tools import inbox, user
from bridge.tools.page import tools as page
from tests.inmemory.harness import Bridge, FakeConnection, bridge, echo, eventually
from tests.inmemory.test_human_loop import human

pytestmark = pytest.mark.anyio

DEFAULT = [t.name for t in (*page.TOOLS, *user.TOOLS, *inbox.TOOLS)]
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 16).decode()


def navigating(b: Bridge, to: str, answer: Any = echo, documents: list[FakeConnection] | None = None):
    """A page that, told to navigate, answers from its document and comes back under its id as a new document at
    `to` (as a browser's tab re-registers after a navigation; its connection is appended to `documents`); `answer`
    handles everything else, in both documents."""

    async def new_document(frame: dict[str, Any]) -> dict[str, Any] | None:
        if frame["command"] == "location":
            return {"ok": True, "result": {"href": to, "origin": "http://localhost:5173", "title": "Other",
                                           "readyState": "complete"}}
        return await answer(frame)

    async def handler(frame: dict[str, Any]) -> dict[str, Any] | None:
        if frame["command"] != "navigate":
            return await answer(frame)
        inst = next(iter(b.state.registry.instances.values()))
        b.state.background.spawn(come_back(inst))
        return {"ok": True, "result": {"from": "http://localhost:5173/", "action": "goto", "doc": "doc-1",
                                       "crossDocument": True}}

    async def come_back(inst: Any) -> None:
        # a browser's new document registers after the old one's answer arrived, never before
        await eventually(lambda: len(b.state.pending) == 0, what="the navigate answer to be taken")
        req = RegisterRequest(instanceId=inst.id, secret=inst.secret, reclaim=True, url=to, title="Other",
                              origin="http://localhost:5173", port=5173, attach="fake", doc="doc-2")
        again, _ = b.state.registry.register(req, "http://localhost:5173")
        conn = FakeConnection(b.state, new_document)
        conn.inst = again
        b.state.registry.attach(again, conn)
        if documents is not None:
            documents.append(conn)

    return handler


async def test_page_navigate_answers_once_the_new_document_is_back_under_the_same_page_id(tmp_path: Path):
    async with bridge(tmp_path) as b:
        documents: list[FakeConnection] = []
        first = b.connect_page(navigating(b, "http://localhost:5173/other", documents=documents))
        out = await b.ok("page_navigate", {"action": "goto", "url": "/other", "timeout": 5})
        assert out["reloaded"] is True and out["url"] == "http://localhost:5173/other" and out["title"] == "Other"
        assert out["pageId"] == f"{first.inst.id}/host" and list(b.state.registry.instances) == [first.inst.id]
        assert first.execs("navigate")[0]["params"]["url"] == "/other" and documents[0].inst.doc == "doc-2"
        assert [f["command"] for f in documents[0].execs()] == ["wait", "location"]  # load state, then where


async def test_every_default_tool_answers_within_its_output_schema(tmp_path: Path):
    async def app(frame: dict[str, Any]) -> dict[str, Any] | None:
        if frame["command"] == "screenshot":
            return {"ok": True, "result": {"data": PNG, "width": 4, "height": 2, "scale": 1}}
        if frame["command"] == "highlight":
            return {"ok": True, "result": {"shown": len(frame["params"]["refs"])}}
        if frame["command"] == "vitals":
            return {"ok": True, "result": {"frames": [], "cursor": 0, "profiling": "unsupported"}}
        return await the_human(frame)

    calls: list[tuple[str, dict[str, Any]]] = [
        ("page_list", {}), ("page_exec", {"code": "6*7"}), ("page_snapshot", {}), ("page_find", {"text": "Save"}),
        ("page_act", {"action": "click", "ref": "e1@ab"}), ("page_wait", {"text": "Done"}),
        ("page_navigate", {"action": "goto", "url": "/other", "timeout": 5}), ("page_console", {}), ("page_vitals", {}),
        ("page_network", {}),
        ("page_source", {"ref": "e1@ab"}), ("page_highlight", {"refs": ["e1@ab"]}), ("page_screenshot", {}),
        ("user_ask", {"question": "Which colour?", "choices": ["Red", "Blue"]}),
        ("user_notify", {"message": "Deployed"}), ("inbox", {}),
    ]
    async with bridge(tmp_path) as b:
        the_human = human(b, "Blue")
        schemas = {t.name: t.output_schema for t in (await b.client.list_tools()).tools}
        b.connect_page(navigating(b, "http://localhost:5173/other", app))
        answers = {}
        for tool, args in calls:  # after page_navigate, the page's new document answers
            answers[tool] = out = await b.ok(tool, args)
            Draft202012Validator(schemas[tool]).validate(out)
    assert [t for t, _ in calls] == DEFAULT, "a default tool is not called here"
    assert answers["page_exec"]["result"] == 42 and answers["user_ask"]["answer"] == "Blue"
    assert answers["page_navigate"]["reloaded"] is True and answers["page_screenshot"]["bytes"] == 24
    assert any(i["kind"] == "answer" for i in answers["inbox"]["items"])

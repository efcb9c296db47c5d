"""The bridge knows who calls it (client name, version, protocol era, last call: the cockpit lists them), and a
note an answer carries is said once per agent, not in every answer."""

from __future__ import annotations

import pytest

from pathlib import Path

from tests.inmemory.harness import bridge

pytestmark = pytest.mark.anyio


async def acted(frame):
    return {"ok": True, "result": {"done": [{"action": "click", "ref": "e1@ab"}], "changed": [],
                                   "untrusted": "events were synthesized in the page (isTrusted=false)"}}


async def test_page_act_says_its_input_was_synthetic_the_first_time_only(tmp_path: Path):
    async with bridge(tmp_path) as b:
        b.connect_page(acted)
        first = await b.ok("page_act", {"action": "click", "ref": "e1@ab"})
        second = await b.ok("page_act", {"action": "click", "ref": "e1@ab"})
        assert "isTrusted=false" in first["untrusted"] and "untrusted" not in second


async def test_every_calling_agent_is_listed_with_its_name_era_calls_and_last_tool(tmp_path: Path):
    async with bridge(tmp_path) as b:
        await b.ok("page_list")
        await b.call("inbox")
        (agent,) = b.state.clients.agents.rows()
        assert agent["name"] and agent["era"] >= "2025" and agent["calls"] == 2 and agent["lastTool"] == "inbox"
        assert agent["lastCall"] >= agent["firstCall"]

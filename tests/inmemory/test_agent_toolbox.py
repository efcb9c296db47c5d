"""A run calls the bridge's tools through the one road into tools (the MCP server's own call_tool): the same
answers, the same [invalid_argument] errors and the same audit records as a call over MCP."""

from pathlib import Path

from bridge.runs.toolbox import RunContext, Toolbox
from bridge.server.mcp_server import build_server
from tests.inmemory.harness import Bridge, settings
from bridge.state import BridgeState
from mcp import Client
from tests.support import run_async


def test_a_runs_call_answers_and_is_audited_exactly_as_over_mcp(tmp_path: Path):
    async def go():
        state = BridgeState(settings(tmp_path))
        state.leases.tail = 0.0  # the client's calls and the run's, one after the other: no tail to wait out
        server = build_server(state)
        async with Client(server) as client:
            b = Bridge(state, client)
            b.connect_page()
            box = Toolbox(state.road)
            await box.load()
            assert "page_exec" in box.rows and box.rows["page_snapshot"].read_only
            progress = []
            ctx = RunContext("r1", lambda *a: progress.append(a))
            over_mcp = await b.call("page_exec", {"code": "1+2"})
            in_run = await box.call("page_exec", {"code": "1+2"}, ctx, [])
            assert not in_run.is_error and in_run.structured["result"] == over_mcp.structured_content["result"] == 3
            bad_mcp = await b.call("page_exec", {"code": "1", "timeout": "soon"})
            bad_run = await box.call("page_exec", {"code": "1", "timeout": "soon"}, ctx, [])
            assert bad_run.is_error and bad_run.code == "invalid_argument"
            assert bad_run.text == bad_mcp.content[0].text
            typo = await box.call("page_exec", {"cod": "1"}, ctx, [])
            assert typo.code == "invalid_argument" and "has no argument 'cod'" in typo.text
            coerced = await box.call("page_exec", {"code": "1+1", "timeout": "5"}, ctx, [])
            assert not coerced.is_error and coerced.coerced == ['coerced timeout "5" → 5']
            unknown = await box.call("nope", {}, ctx, [])
            assert unknown.code == "unknown_tool"
            records = [r for r in state.audit.recent if r["kind"] == "tool" and r["tool"] == "page_exec"]
            assert [r["outcome"] for r in records] == ["ok", "ok", "error", "error", "error", "ok"]
            assert records[0]["args"] == records[1]["args"] and records[0]["args"]["code"] == "1+2"
            assert "dbg-bridge run" in [a["name"] for a in state.clients.agents.rows()]
        for task in list(state.background.tasks):
            task.cancel()

    run_async(go())

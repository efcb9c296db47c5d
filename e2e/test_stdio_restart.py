"""`dbg-bridge mcp` (the stdio forwarder) survives a bridge restart: its session is initialized again by itself,
and a call sent while the bridge is down waits for it to come back."""

from __future__ import annotations

import asyncio
import os
import sys
import threading

import pytest
from mcp import Client, StdioServerParameters

from tests.support import ROOT, run_async


@pytest.mark.parametrize("mode", ["legacy", "auto"], ids=["2025-11-25", "2026-07-28"])
def test_the_stdio_forwarder_reinitializes_after_a_restart_and_waits_while_the_bridge_is_down(tmp_path, mode,
                                                                                              bridge_process):
    bridge = bridge_process(config_dir=tmp_path)

    async def go() -> list[bool]:
        params = StdioServerParameters(command=sys.executable,
                                       args=["-m", "bridge", "mcp", "--port", str(bridge.port)],
                                       env={**os.environ, "DBG_CONFIG_DIR": str(tmp_path)}, cwd=str(ROOT))
        async with Client(params, mode=mode) as client:
            first = await client.call_tool("page_list", {})
            await asyncio.to_thread(bridge.restart)
            after_restart = await client.call_tool("page_list", {})
            await asyncio.to_thread(bridge.stop)
            call = asyncio.ensure_future(client.call_tool("page_list", {}))  # sent while nothing listens
            await asyncio.sleep(1.5)  # the behaviour under test: still waiting while nothing listens
            assert not call.done()
            threading.Thread(target=bridge.start, daemon=True).start()
            while_down = await asyncio.wait_for(call, 40)
            return [not r.is_error and "pages" in r.structured_content for r in (first, after_restart, while_down)]

    assert run_async(go(), 120) == [True, True, True]

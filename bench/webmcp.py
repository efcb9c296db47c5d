"""A page's own WebMCP tool called through the bridge (page_call_tool, and mirrored as its own MCP tool) beside
page_exec of the same work in the page, and page_tools, from an MCP client (the official SDK over HTTP), against
real Chromium on the @mcp-b/global app (e2e/apps/webmcp, `npm ci` there first).

    .venv/bin/python bench/webmcp.py [--runs N]

Prints one aligned table (per call: p50/p99 ms, calls/s, bridge CPU ms) and writes bench/results/webmcp.json.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (CHROMIUM, CHROMIUM_ARGS, BridgeProcess, cpu_row, machine, open_mcp, rss_mb,  # noqa: E402
                     table, write_json)

from e2e.corpus import CorpusServer  # noqa: E402

#: The same work as the page's list_todos tool, written as page_exec code (the reference: no WebMCP in between).
SAME_IN_EXEC = "JSON.stringify(Array.from(document.getElementById('todos').children, (li) => li.textContent))"
#: The page's tool run by page_exec through the page's own API (what page_call_tool does, minus the bridge's checks).
API_IN_EXEC = ("const mc = document.modelContext; const t = (await mc.getTools()).find((x) => x.name === 'list_todos');"
               " return await mc.executeTool(t, '{}');")


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=200, help="calls per row (default 200)")
    return p.parse_args(argv)


async def bench(args: argparse.Namespace) -> dict[str, Any]:
    from playwright.async_api import async_playwright

    started = machine()
    with tempfile.TemporaryDirectory() as tmp:
        bridge = BridgeProcess(Path(tmp), "--mirror-page-tools").start()  # DBG_NO_CONSENT=1: nobody to click Allow
        server = CorpusServer(bridge.client_js())
        try:
            async with async_playwright() as pw:
                browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                page = await browser.new_page()
                await page.goto(server.url("webmcp/index.html"))
                await page.wait_for_function("window.__dbg && window.__dbg.status().state === 'connected'")
                pid = await page.evaluate("window.__dbg.pageId")
                mirrored = pid.replace("/", "_") + "__list_todos"
                async with open_mcp(bridge.mcp_url, bridge.token) as mcp:
                    async def check(name: str, args_: dict[str, Any]) -> None:
                        out = await mcp.call_tool(name, args_)
                        assert not out.is_error, out.content[0].text

                    for _ in range(100):  # the page's tools reach the bridge as the app registers them
                        out = await mcp.call_tool("page_tools", {"pageId": pid})
                        if any(t["name"] == "list_todos" for t in out.structured_content["tools"]):
                            break
                        await asyncio.sleep(0.05)
                    cells = (
                        ("page_exec (same work, as code)", "page_exec", {"pageId": pid, "code": SAME_IN_EXEC}),
                        ("page_exec (the page's API)", "page_exec", {"pageId": pid, "code": API_IN_EXEC}),
                        ("page_call_tool list_todos", "page_call_tool", {"pageId": pid, "name": "list_todos"}),
                        (f"{mirrored} (mirrored)", mirrored, {}),
                        ("page_tools (3 tools, 2 frames)", "page_tools", {"pageId": pid}),
                    )
                    rows = []
                    for what, name, args_ in cells:
                        async def one(_: int, name: str = name, args_: dict[str, Any] = args_) -> None:
                            await check(name, args_)

                        rows.append(await cpu_row(what, one, bridge.proc.pid, args.runs, warmup=10, digits=2))
                    rss = rss_mb(bridge.proc.pid)
                await browser.close()
        finally:
            server.close()
            bridge.stop()
    return {"bench": "webmcp", "machine": started, "loadavg_1m_end": round(os.getloadavg()[0], 2),
            "runs": args.runs, "bridge_rss_mb": round(rss, 1), "rows": rows}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    t0 = time.perf_counter()
    data = asyncio.run(bench(args))
    print(f"WebMCP on the @mcp-b/global app, {args.runs} calls each, one at a time; bridge RSS "
          f"{data['bridge_rss_mb']} MB; load {data['machine']['loadavg_1m']} → {data['loadavg_1m_end']}")
    print(table(data["rows"], [("what", "call"), ("p50_ms", "p50 ms"), ("p99_ms", "p99 ms"),
                               ("calls_per_s", "calls/s"), ("bridge_cpu_ms", "bridge CPU ms")]))
    print(f"wrote {write_json('webmcp.json', data)} in {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

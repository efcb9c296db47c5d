"""page_exec('1+1') round trip through a real bridge, over MCP HTTP with the official client, against real Chromium.

Cells: WebSocket and SSE page channel x host page and same-origin iframe (f0) x 1 and 8 concurrent callers.
Beside them, in the same run and on the same pages: Playwright's own page.evaluate('1+1') (CDP, no bridge) and the
MCP SDK baseline page_list (an MCP round trip that never touches a page).

    .venv/bin/python bench/exec_latency.py [--quick] [--calls N] [--warmup N]

Prints one aligned table and writes bench/results/exec_latency.json.
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

from _common import (CHROMIUM, CHROMIUM_ARGS, BridgeProcess, cpu_s, machine, open_mcp, rss_mb,  # noqa: E402
                     stats, table, timed_calls, write_json)

TARGET_P50 = {"ws": 3.0, "sse": 6.0}
TARGET_CPS_8 = 400.0
CONCURRENCY = (1, 8)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                epilog="Targets: page_exec p50 <= 3 ms (WS), <= 6 ms (SSE); >= 400 calls/s "
                                       "with 8 callers. Figures are noisy on a shared 2-core machine.")
    p.add_argument("--quick", action="store_true", help="fewer iterations (300 calls per cell, 50 warm-up)")
    p.add_argument("--calls", type=int, default=None, help="calls per cell (default 2000; 300 with --quick)")
    p.add_argument("--warmup", type=int, default=None, help="warm-up calls per target (default 200; 50 with --quick)")
    p.add_argument("--headed", action="store_true", help="show the browser window")
    return p.parse_args(argv)


async def wait_connected(page: Any, channel: str) -> str:
    """Wait until the page client is connected on `channel` and its frames are ready; return its host pageId."""
    await page.wait_for_function(
        "(ch) => window.__dbg && window.__dbg.status().state === 'connected' && window.__dbg.status().channel === ch"
        " && window.__dbg.status().frames.length > 0 && window.__dbg.status().frames.every(f => f.ready)",
        arg=channel, timeout=20000)
    return await page.evaluate("window.__dbg.pageId")


async def cell(bridge_pid: int, call: Any, n: int, conc: int) -> dict[str, Any]:
    """Time n calls from conc callers; add the bridge's and this process's CPU time per call."""
    b0, c0 = cpu_s(bridge_pid), cpu_s()
    lat, wall = await timed_calls(call, n, conc)
    b1, c1 = cpu_s(bridge_pid), cpu_s()
    return {**stats(lat, wall), "cpu_bridge_ms": round(1000 * (b1 - b0) / n, 3),
            "cpu_caller_ms": round(1000 * (c1 - c0) / n, 3)}


async def run(args: argparse.Namespace) -> dict[str, Any]:
    from playwright.async_api import async_playwright

    n = args.calls or (300 if args.quick else 2000)
    warm = args.warmup if args.warmup is not None else (50 if args.quick else 200)
    started = machine()
    tmp = Path(tempfile.mkdtemp(prefix="dbg-bench-"))
    bridge = BridgeProcess(tmp, "--log-level", "warning").start()
    bpid = bridge.proc.pid
    rows: list[dict[str, Any]] = []
    try:
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=not args.headed)
            ctx = await browser.new_context()
            ws_page = await ctx.new_page()
            await ws_page.goto(bridge.base + "/demo")
            sse_page = await ctx.new_page()
            await sse_page.add_init_script("window.__DBG_CONFIG = {channel: 'sse'}")
            await sse_page.goto(bridge.base + "/demo")
            pages = {"ws": ws_page, "sse": sse_page}
            ids: dict[str, str] = {}
            for ch, page in pages.items():
                ids[ch] = await wait_connected(page, ch)
            print(f"bridge {bridge.base} pid {bridge.proc.pid}; pages: ws={ids['ws']} sse={ids['sse']}; "
                  f"{n} calls per cell, {warm} warm-up", flush=True)

            async with open_mcp(bridge.mcp_url, bridge.token) as client:
                bridge_ms: list[float] = []

                async def page_exec(pid: str) -> None:
                    r = await client.call_tool("page_exec", {"code": "1+1", "pageId": pid})
                    if r.is_error or r.structured_content["result"] != 2:
                        raise RuntimeError(f"page_exec {pid} failed: {r.content}")
                    bridge_ms.append(r.structured_content["ms"])

                async def page_list() -> None:
                    r = await client.call_tool("page_list", {})
                    if r.is_error:
                        raise RuntimeError(f"page_list failed: {r.content}")

                # Warm up every path once before any measurement.
                for ch in pages:
                    inst = ids[ch].split("/")[0]
                    for pid in (ids[ch], f"{inst}/f0"):
                        await timed_calls(lambda i, pid=pid: page_exec(pid), warm, 8)
                await timed_calls(lambda i: page_list(), warm, 8)
                for page in pages.values():
                    frame = next(f for f in page.frames if f.url.endswith("/demo/frame"))
                    for target in (page, frame):
                        await timed_calls(lambda i, t=target: t.evaluate("1+1"), warm, 8)

                for conc in CONCURRENCY:
                    s = await cell(bpid, lambda i: page_list(), n, conc)
                    rows.append({"what": "page_list (MCP baseline)", "channel": "-", "target": "-", "conc": conc,
                                 **s, "bridge_p50_ms": None,
                                 "target_txt": f">= {TARGET_CPS_8:.0f}/s" if conc == 8 else ""})
                for ch, page in pages.items():
                    inst = ids[ch].split("/")[0]
                    frame = next(f for f in page.frames if f.url.endswith("/demo/frame"))
                    for label, pid, pw_target in (("host", ids[ch], page), ("f0", f"{inst}/f0", frame)):
                        for conc in CONCURRENCY:
                            bridge_ms.clear()
                            s = await cell(bpid, lambda i, pid=pid: page_exec(pid), n, conc)
                            bm = sorted(bridge_ms)
                            goal = (f"p50 <= {TARGET_P50[ch]:g} ms" if conc == 1
                                    else f">= {TARGET_CPS_8:.0f}/s")
                            met = (s["p50_ms"] <= TARGET_P50[ch]) if conc == 1 else (s["calls_per_s"] >= TARGET_CPS_8)
                            rows.append({"what": "page_exec via MCP", "channel": ch, "target": label, "conc": conc,
                                         **s, "bridge_p50_ms": round(bm[len(bm) // 2], 3),
                                         "target_txt": goal + (" ok" if met else " MISS")})
                            s = await cell(bpid, lambda i, t=pw_target: t.evaluate("1+1"), n, conc)
                            rows.append({"what": "playwright evaluate", "channel": ch, "target": label, "conc": conc,
                                         **s, "bridge_p50_ms": None, "cpu_bridge_ms": None, "target_txt": ""})
            bridge_rss = rss_mb(bridge.proc.pid)
            await browser.close()
    finally:
        bridge.stop()
    return {"bench": "exec_latency", "machine": started, "loadavg_1m_end": round(os.getloadavg()[0], 2),
            "calls_per_cell": n, "warmup": warm,
            "bridge_rss_mb": round(bridge_rss, 1),
            "targets": {"p50_ms_ws": TARGET_P50["ws"], "p50_ms_sse": TARGET_P50["sse"], "calls_per_s_8": TARGET_CPS_8},
            "rows": rows}


COLUMNS = [("what", "what"), ("channel", "chan"), ("target", "frame"), ("conc", "conc"), ("n", "n"),
           ("p50_ms", "p50 ms"), ("p99_ms", "p99 ms"), ("calls_per_s", "calls/s"),
           ("bridge_p50_ms", "in-bridge p50 ms"), ("cpu_bridge_ms", "bridge CPU ms/call"),
           ("cpu_caller_ms", "caller CPU ms/call"), ("target_txt", "target")]


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    t0 = time.monotonic()
    result = asyncio.run(run(args))
    print()
    print(table(result["rows"], COLUMNS))
    print(f"\n'in-bridge' = the page round trip as the bridge times it (the `ms` field of page_exec): send the exec "
          f"frame, get the result back.\n'CPU ms/call' = CPU time of the bridge process / of this caller process "
          f"(MCP client or Playwright client) per call.\nBridge RSS at the end: {result['bridge_rss_mb']} MB. "
          f"Load average at start: {result['machine']['loadavg_1m']} on {result['machine']['cpus']} CPUs "
          f"(figures are noisy on a shared machine). Took {time.monotonic() - t0:.0f} s.")
    path = write_json("exec_latency.json", result)
    print(f"JSON: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

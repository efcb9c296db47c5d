"""The hot path: one `1+1` call through dbg-bridge beside the MCP SDK layer alone, in one run.

Rows, all measured with the same official Python client and the same loops, one after another:
  - the MCP SDK layer alone (bench/echo_server.py: an `echo` tool, no browser) — the reference;
  - dbg-bridge page_exec to a real Chromium tab on the WebSocket channel, and on SSE;
  - Playwright's in-process page.evaluate('1+1') on the same tab (CDP, no MCP);
  - beside each row that reaches the browser, Chromium's CPU per call (all its processes summed, from /proc);
  - page_exec again to a plain headless Chromium no Playwright drives (no DevTools protocol attached), WS and SSE;
  - the SDK-alone and page_exec rows again from the TypeScript MCP SDK (bench/ts_client, `npm ci` there first).
Each at 1 caller (latency) and 8 callers (throughput). Ratios to the SDK-alone row are what count: the machine
drifts between runs, rarely within one.

    .venv/bin/python bench/hot_path.py [--quick] [--calls N]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (CHROMIUM, CHROMIUM_ARGS, BridgeProcess, cpu_of, cpu_s, descendants, machine,  # noqa: E402
                     open_mcp, rss_mb, stats, table, timed_calls, write_json)

from tests.support import free_port, wait_until  # noqa: E402

TARGET_LATENCY_RATIO = 1.3  # page_exec WS p50 / SDK echo p50
TARGET_THROUGHPUT_RATIO = 0.9  # page_exec WS calls/s with 8 callers / SDK echo calls/s
TARGET_SSE_RATIO = 1.5  # SSE p50 / WS p50


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], epilog=(
        f"Targets: page_exec WS p50 <= {TARGET_LATENCY_RATIO}x the SDK-alone echo, 8-caller throughput >= "
        f"{TARGET_THROUGHPUT_RATIO}x it, SSE p50 <= {TARGET_SSE_RATIO}x WS."))
    p.add_argument("--quick", action="store_true", help="300 calls per cell instead of 2000")
    p.add_argument("--calls", type=int, default=None, help="calls per cell")
    return p.parse_args(argv)


def chromium_pids() -> list[int]:
    """Chromium's processes (browser, renderers, GPU, network service) under this script (Playwright launched them)."""
    return descendants(os.getpid(), "chrom")


async def cell(pids: list[int], call: Any, n: int, conc: int, browser: bool = False) -> dict[str, Any]:
    """One measurement: latencies, calls/s, the server's CPU per call, and with `browser` Chromium's (every one of its
    processes summed: the tab's renderer, the browser process and the network service carry a page's traffic)."""
    before = [cpu_s(p) for p in pids]
    chrome = cpu_of(chromium_pids()) if browser else {}
    lat, wall = await timed_calls(call, n, conc)
    server_cpu = sum(cpu_s(p) - b for p, b in zip(pids, before))
    out: dict[str, Any] = {**stats(lat, wall), "server_cpu_ms": round(1000 * server_cpu / n, 3)}
    if browser:
        after = cpu_of(chromium_pids())
        out["chromium_cpu_ms"] = round(1000 * sum(c - chrome.get(p, 0.0) for p, c in after.items()) / n, 3)
    return out


async def run(args: argparse.Namespace) -> dict[str, Any]:
    from playwright.async_api import async_playwright

    n = args.calls or (300 if args.quick else 2000)
    warm = 50 if args.quick else 200
    started = machine()
    port = free_port()
    echo = subprocess.Popen([sys.executable, str(Path(__file__).with_name("echo_server.py")), str(port)])
    bridge = BridgeProcess(Path(tempfile.mkdtemp(prefix="dbg-hot-")), "--log-level", "warning").start()
    rows: list[dict[str, Any]] = []
    try:
        import httpx

        wait_until(lambda: _answers(httpx, port), 20, what="echo server")
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            ctx = await browser.new_context()
            pages: dict[str, Any] = {}
            for ch in ("ws", "sse"):
                page = await ctx.new_page()
                await page.add_init_script(f"window.__DBG_CONFIG = {{channel: '{ch}'}}")
                await page.goto(bridge.base + "/demo")
                await page.wait_for_function(
                    "(ch) => window.__dbg && window.__dbg.status().state === 'connected' && "
                    "window.__dbg.status().channel === ch", arg=ch, timeout=20000)
                pages[ch] = (page, await page.evaluate("window.__dbg.pageId"))
            async with open_mcp(f"http://127.0.0.1:{port}/mcp", None) as echo_client, \
                    open_mcp(bridge.mcp_url, bridge.token) as client:
                async def echo_call(i: int) -> None:
                    r = await echo_client.call_tool("echo", {"code": "1+1"})
                    assert not r.is_error

                def exec_call(pid: str) -> Any:
                    async def call(i: int) -> None:
                        r = await client.call_tool("page_exec", {"code": "1+1", "pageId": pid})
                        if r.is_error or r.structured_content["result"] != 2:
                            raise RuntimeError(f"page_exec failed: {r.content}")
                    return call

                cells = [("MCP SDK alone, echo tool", "-", [echo.pid], echo_call, False)]
                for ch, (page, pid) in pages.items():
                    cells.append(("dbg-bridge page_exec", ch, [bridge.proc.pid], exec_call(pid), True))
                ws_page = pages["ws"][0]
                cells.append(("Playwright page.evaluate", "cdp", [], lambda i: ws_page.evaluate("1+1"), True))
                for _, _, _, call, _ in cells:
                    await timed_calls(call, warm, 8)
                for conc in (1, 8):
                    for what, ch, pids, call, in_browser in cells:
                        rows.append({"what": what, "channel": ch, "conc": conc,
                                     **(await cell(pids, call, n, conc, in_browser))})
                if TS_CLIENT.with_name("node_modules").exists():
                    ws_pid = pages["ws"][1]
                    for conc in (1, 8):
                        for what, url, token, tool, targs in (
                                ("TS SDK client: SDK alone echo", f"http://127.0.0.1:{port}/mcp", None, "echo", {"code": "1+1"}),
                                ("TS SDK client: page_exec", bridge.mcp_url, bridge.token, "page_exec",
                                 {"code": "1+1", "pageId": ws_pid})):
                            rows.append({"what": what, "channel": "ws" if tool == "page_exec" else "-", "conc": conc,
                                         **ts_cell(url, token, tool, targs, n, conc, warm)})
                else:
                    print("(no TypeScript-SDK rows: run `npm ci --prefix bench/ts_client` first)")
            await browser.close()
        rows += await plain_rows(bridge, n, warm)
        rss = {"bridge": round(rss_mb(bridge.proc.pid), 1), "echo": round(rss_mb(echo.pid), 1)}
    finally:
        bridge.stop()
        echo.terminate()
        echo.wait(10)
    return {"bench": "hot_path", "machine": started, "loadavg_1m_end": round(os.getloadavg()[0], 2),
            "calls_per_cell": n, "rss_mb": rss, "rows": rows}


async def plain_rows(bridge: BridgeProcess, n: int, warm: int) -> list[dict[str, Any]]:
    """page_exec to a Chromium that no Playwright drives (headless, launched as a plain process, on a test page that
    loads the client with ?channel=): no DevTools protocol is attached, so its CPU per call is the browser's own.
    Playwright's instrumentation costs the browser process ~0.4 ms per WebSocket call and more per fetch."""
    from tests.support import DevServer

    rows: list[dict[str, Any]] = []
    dev = DevServer(bridge.client_js())
    try:
        async with open_mcp(bridge.mcp_url, bridge.token) as client:
            for ch in ("ws", "sse"):
                proc = subprocess.Popen([CHROMIUM, "--headless=new", *CHROMIUM_ARGS,
                                         f"--user-data-dir={tempfile.mkdtemp(prefix='dbg-hot-chromium-')}",
                                         dev.url(f"/single.html?channel={ch}")],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                try:
                    pid = await _listed(client, ch)

                    async def call(i: int, pid: str = pid) -> None:
                        r = await client.call_tool("page_exec", {"code": "1+1", "pageId": pid})
                        if r.is_error or r.structured_content["result"] != 2:
                            raise RuntimeError(f"page_exec failed: {r.content}")

                    await timed_calls(call, warm, 8)
                    for conc in (1, 8):
                        rows.append({"what": "page_exec, Chromium without Playwright", "channel": ch, "conc": conc,
                                     **(await cell([bridge.proc.pid], call, n, conc, True))})
                finally:
                    proc.terminate()
                    proc.wait(10)
    finally:
        dev.close()
    return rows


async def _listed(client: Any, channel: str) -> str:
    """The pageId of the one live tab on `channel` (bounded wait while the plain Chromium starts)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        rows = (await client.call_tool("page_list", {})).structured_content["pages"]
        live = [r["pageId"] for r in rows if r.get("channel") == channel and r.get("state", "live") == "live"]
        if live:
            return live[0]
        await asyncio.sleep(0.1)
    raise RuntimeError(f"no page on {channel} within 30 s")


TS_CLIENT = Path(__file__).with_name("ts_client") / "client.mjs"


def ts_cell(url: str, token: str | None, tool: str, targs: dict[str, Any], n: int, conc: int,
            warm: int) -> dict[str, Any]:
    """The same calls from the TypeScript MCP SDK (bench/ts_client), in a Node process of its own."""
    import json

    out = subprocess.run(["node", str(TS_CLIENT), url, token or "-", tool, json.dumps(targs), str(n), str(conc),
                          str(warm)], capture_output=True, text=True, timeout=600, check=True)
    data = json.loads(out.stdout.strip().splitlines()[-1])
    return {**stats(data["lat"], data["wall"]), "server_cpu_ms": None}


def _answers(httpx: Any, port: int) -> bool:
    try:
        httpx.get(f"http://127.0.0.1:{port}/mcp", timeout=1)
        return True
    except httpx.HTTPError:
        return False


def ratios(rows: list[dict[str, Any]]) -> list[str]:
    def get(what: str, ch: str, conc: int) -> dict[str, Any]:
        return next(r for r in rows if r["what"].startswith(what) and r["channel"] == ch and r["conc"] == conc)

    echo1, echo8 = get("MCP SDK", "-", 1), get("MCP SDK", "-", 8)
    ts = [r for r in rows if r["what"].startswith("TS SDK")]
    ts_line = []
    if ts:
        ts_echo = next(r for r in ts if "echo" in r["what"] and r["conc"] == 1)
        ts_exec = next(r for r in ts if "page_exec" in r["what"] and r["conc"] == 1)
        ts_line = [f"TS SDK client: page_exec WS p50 / SDK echo p50 = {ts_exec['p50_ms'] / ts_echo['p50_ms']:.2f}x "
                   f"({ts_exec['p50_ms'] - ts_echo['p50_ms']:.2f} ms of bridge + page round trip)"]
    ws1, ws8, sse1 = get("dbg-bridge", "ws", 1), get("dbg-bridge", "ws", 8), get("dbg-bridge", "sse", 1)
    lat = ws1["p50_ms"] / echo1["p50_ms"]
    thr = ws8["calls_per_s"] / echo8["calls_per_s"]
    sse = sse1["p50_ms"] / ws1["p50_ms"]
    ok = lambda good: "ok" if good else "MISS"  # noqa: E731
    cpu = [f"Chromium CPU per call: SSE {sse1['chromium_cpu_ms']:.2f} ms, WS {ws1['chromium_cpu_ms']:.2f} ms "
           f"({sse1['chromium_cpu_ms'] / ws1['chromium_cpu_ms']:.2f}x); bridge + Chromium: SSE "
           f"{sse1['server_cpu_ms'] + sse1['chromium_cpu_ms']:.2f} ms, WS {ws1['server_cpu_ms'] + ws1['chromium_cpu_ms']:.2f} ms"]
    plain = [r for r in rows if r["what"].startswith("page_exec, Chromium without") and r["conc"] == 1]
    if len(plain) == 2:
        pws, psse = (next(r for r in plain if r["channel"] == ch) for ch in ("ws", "sse"))
        cpu.append(f"Chromium without Playwright: SSE p50 / WS p50 = {psse['p50_ms'] / pws['p50_ms']:.2f}x, Chromium CPU "
                   f"per call SSE {psse['chromium_cpu_ms']:.2f} ms, WS {pws['chromium_cpu_ms']:.2f} ms; WS p50 / SDK "
                   f"echo p50 = {pws['p50_ms'] / echo1['p50_ms']:.2f}x")
    return [f"page_exec WS p50 / SDK echo p50 = {lat:.2f}x (target <= {TARGET_LATENCY_RATIO}x: {ok(lat <= TARGET_LATENCY_RATIO)})",
            f"page_exec WS 8-caller calls/s / SDK echo = {thr:.2f}x (target >= {TARGET_THROUGHPUT_RATIO}x: {ok(thr >= TARGET_THROUGHPUT_RATIO)})",
            f"SSE p50 / WS p50 = {sse:.2f}x (target <= {TARGET_SSE_RATIO}x: {ok(sse <= TARGET_SSE_RATIO)})", *cpu, *ts_line]


COLUMNS = [("what", "what"), ("channel", "chan"), ("conc", "conc"), ("n", "n"), ("p50_ms", "p50 ms"),
           ("p99_ms", "p99 ms"), ("calls_per_s", "calls/s"), ("server_cpu_ms", "server CPU ms/call"), ("chromium_cpu_ms", "Chromium CPU ms/call")]


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    t0 = time.monotonic()
    result = asyncio.run(run(args))
    print()
    print(table(result["rows"], COLUMNS))
    print()
    print("\n".join(ratios(result["rows"])))
    print(f"RSS: bridge {result['rss_mb']['bridge']} MB, echo server {result['rss_mb']['echo']} MB. Load average "
          f"{result['machine']['loadavg_1m']} at start, {result['loadavg_1m_end']} at the end, on "
          f"{result['machine']['cpus']} CPUs. Took {time.monotonic() - t0:.0f} s.")
    print(f"JSON: {write_json('hot_path.json', result)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

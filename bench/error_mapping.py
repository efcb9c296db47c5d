"""What mapping an error to the lines written costs: page_console reading one uncaught error from the React +
TypeScript app on Vite's dev server (e2e/frameworks/react-ts, real Chromium), the first time in a document (the
bridge asks the page for the modules' source maps and decodes them) and once cached, beside the reference of the same
call reading one console.log entry (the same round trip, nothing to map). Also the bridge's own work per error, in
process: parse + decode a map + map the frames (first), and parse + map with the map decoded (cached).

    .venv/bin/python bench/error_mapping.py [--runs N]

Prints one aligned table and writes bench/results/error_mapping.json.
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

from _common import (CHROMIUM, CHROMIUM_ARGS, BridgeProcess, cpu_s, machine, open_mcp, stats,  # noqa: E402
                     table, write_json)

from bridge.pages import stacks  # noqa: E402
from e2e.frameworks.vite import ViteApp  # noqa: E402


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=20, help="reads per row (default 20)")
    return p.parse_args(argv)


async def bench(args: argparse.Namespace) -> dict[str, Any]:
    from playwright.async_api import async_playwright

    started = machine()
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as tmp:
        bridge = BridgeProcess(Path(tmp) / "bridge")
        (Path(tmp) / "bridge").mkdir()
        bridge.start()
        vite = ViteApp("react-ts", Path(tmp), bridge.client_js()).start()
        try:
            async with async_playwright() as pw:
                browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                page = await browser.new_page()
                ready = "window.__dbg && window.__dbg.status().state === 'connected' && !!document.getElementById('add')"
                await page.goto(vite.url())
                await page.wait_for_function(ready)
                pid = await page.evaluate("window.__dbg.pageId")
                async with open_mcp(bridge.mcp_url, bridge.token) as mcp:
                    async def console(since: int, level: str) -> dict[str, Any]:
                        out = await mcp.call_tool("page_console", {"pageId": pid, "since": since, "level": level})
                        assert not out.is_error, out.content[0].text
                        return out.structured_content

                    async def cursor() -> int:
                        return (await console(0, "error"))["cursor"]

                    async def row(what: str, setup, level: str, check) -> dict[str, Any]:
                        lat, cpu = [], 0.0
                        for _ in range(args.runs):
                            since = await setup()
                            c0 = cpu_s(bridge.proc.pid)
                            t0 = time.perf_counter()
                            out = await console(since, level)
                            lat.append((time.perf_counter() - t0) * 1000)
                            cpu += cpu_s(bridge.proc.pid) - c0
                            check(out)
                        return {"what": what, **stats(lat, sum(lat) / 1000),
                                "bridge_cpu_ms": round(cpu * 1000 / args.runs, 2)}

                    async def logged() -> int:
                        since = await cursor()
                        await page.evaluate("console.log('bench', 1)")
                        return since

                    async def fresh_error() -> int:  # a new document: the bridge has no map of its modules
                        await page.reload()
                        await page.wait_for_function(ready)
                        since = await cursor()
                        await page.click("#add")
                        return since

                    async def same_error() -> int:
                        return max(0, (await cursor()) - 1)

                    def mapped(out: dict[str, Any]) -> None:
                        entry = next(e for e in out["entries"] if "TypeError" in e["text"])
                        assert entry["at"].startswith("priceWithTax (src/cart.ts:"), entry

                    await logged()
                    rows.append(await row("reference: one console.log entry", logged, "log",
                                          lambda out: out["entries"]))
                    rows.append(await row("one error, first in its document", fresh_error, "error", mapped))
                    await fresh_error()
                    await console(0, "error")
                    rows.append(await row("one error, maps cached", same_error, "error", mapped))
                maps = await page_maps(page, vite)
                await browser.close()
        finally:
            vite.stop()
            bridge.stop()
    rows += in_process(maps, args.runs * 10)
    return {"bench": "error_mapping", "machine": started, "loadavg_1m_end": round(os.getloadavg()[0], 2),
            "runs": args.runs, "rows": rows}


async def page_maps(page: Any, vite: ViteApp) -> dict[str, Any]:
    """The raw stack of the app's error and its modules' maps, as the page hands them to the bridge."""
    await page.evaluate("window.addEventListener('error', (e) => { window.__benchStack = String(e.error.stack); })")
    await page.click("#add")
    stack = await page.evaluate("window.__benchStack")
    urls = sorted({f.url for f in stacks.parse(stack) if stacks.needs_map(f)})
    got = await page.evaluate("(urls) => window.__dbg.commands.maps({urls}, {role: 'host', frameId: 'host'})", urls)
    return {"stack": stack, "maps": got["maps"]}


def in_process(data: dict[str, Any], n: int) -> list[dict[str, Any]]:
    """The bridge's own work for the app's error (its whole stack: 2 app modules, React's frames), timed here."""
    def once(cache: stacks.SourceMaps, fresh: bool) -> None:
        frames = stacks.parse(data["stack"])
        for url, part in data["maps"].items():
            key = ("p", "d", url, "")
            if fresh or key not in cache:
                cache.put(key, part)
        mapped = [stacks.map_frame(f, cache.get(("p", "d", f.url, ""))) for f in frames]
        stacks.folded(mapped)

    out = []
    for what, fresh in (("in process: parse + decode maps + map (first)", True),
                        ("in process: parse + map (maps cached)", False)):
        cache = stacks.SourceMaps()
        once(cache, True)
        lat = []
        for _ in range(n):
            t0 = time.perf_counter()
            once(cache, fresh)
            lat.append((time.perf_counter() - t0) * 1000)
        out.append({"what": what, **stats(lat, sum(lat) / 1000)})
    return out


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    t0 = time.perf_counter()
    data = asyncio.run(bench(args))
    print(f"page_console reading one error of the react-ts app on Vite, {args.runs} reads per row; load "
          f"{data['machine']['loadavg_1m']} → {data['loadavg_1m_end']}")
    print(table(data["rows"], [("what", "what"), ("p50_ms", "p50 ms"), ("p99_ms", "p99 ms"),
                               ("mean_ms", "mean ms"), ("bridge_cpu_ms", "bridge CPU ms")]))
    print(f"wrote {write_json('error_mapping.json', data)} in {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

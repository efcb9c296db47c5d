"""What actionability adds to a click: page_act click on the demo's counter button, with the checks (visible, stable
for two animation frames, enabled, receives the pointer) and with `force: true` (no checks), interleaved in the same
sitting over MCP HTTP with the official client against real Chromium; Playwright's own locator click (which checks
too) beside them as the reference.

    .venv/bin/python bench/actionability.py [--calls N]

Prints one aligned table and writes bench/results/actionability.json.
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

from _common import CHROMIUM, CHROMIUM_ARGS, BridgeProcess, machine, open_mcp, stats, table, write_json  # noqa: E402


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--calls", type=int, default=200, help="clicks per cell (default 200)")
    p.add_argument("--warmup", type=int, default=20, help="warm-up clicks per cell (default 20)")
    return p.parse_args(argv)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    from playwright.async_api import async_playwright

    tmp = Path(tempfile.mkdtemp(prefix="dbg-bench-"))
    bridge = BridgeProcess(tmp, "--log-level", "warning").start()
    started = machine()
    rows: list[dict[str, Any]] = []
    try:
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = await browser.new_page()
            await page.goto(bridge.base + "/demo")
            await page.wait_for_function("window.__dbg && window.__dbg.status().state === 'connected'", timeout=20000)
            pid = await page.evaluate("window.__dbg.pageId")
            async with open_mcp(bridge.mcp_url, bridge.token) as client:
                async def click(force: bool) -> None:
                    r = await client.call_tool("page_act", {"pageId": pid, "action": "click", "selector": "#counter",
                                                            "force": force, "trusted": False})
                    if r.is_error or r.structured_content.get("effect") == "none":
                        raise RuntimeError(f"click failed: {r.content}")

                cells: dict[str, list[float]] = {"checked": [], "force": [], "playwright": []}
                walls = dict.fromkeys(cells, 0.0)
                button = page.locator("#counter")
                for i in range(args.warmup + args.calls):  # interleaved: the same load on every cell
                    for name in cells:
                        t0 = time.perf_counter()
                        if name == "playwright":
                            await button.click()
                        else:
                            await click(name == "force")
                        dt = time.perf_counter() - t0
                        if i >= args.warmup:
                            cells[name].append(dt * 1000)
                            walls[name] += dt
                for name, label in (("checked", "page_act click (actionability)"), ("force", "page_act click force"),
                                    ("playwright", "playwright locator.click")):
                    rows.append({"what": label, **stats(cells[name], walls[name])})
            await browser.close()
    finally:
        bridge.stop()
    checked, forced = rows[0]["p50_ms"], rows[1]["p50_ms"]
    return {"bench": "actionability", "machine": started, "loadavg_1m_end": round(os.getloadavg()[0], 2),
            "calls_per_cell": args.calls, "rows": rows, "actionability_p50_ms": round(checked - forced, 2)}


COLUMNS = [("what", "what"), ("n", "n"), ("p50_ms", "p50 ms"), ("p99_ms", "p99 ms"), ("calls_per_s", "calls/s")]


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    result = asyncio.run(run(args))
    print(table(result["rows"], COLUMNS))
    print(f"\nActionability adds {result['actionability_p50_ms']} ms to a click's p50 (checked minus force, same "
          f"sitting). Load average at start: {result['machine']['loadavg_1m']} on {result['machine']['cpus']} CPUs.")
    print(f"JSON: {write_json('actionability.json', result)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""How long an act that cannot succeed takes to say so: page_act type and fill into the demo page's heading (no text
field, and nothing there takes keys) over MCP HTTP with the official client against real Chromium, at the tool's
default timeout. A check that waiting cannot pass is refused at once; before it was refused only when the whole
check time (timeout less 2 s) had run out. A click on the demo's counter beside them shows what a successful act costs
in the same sitting.

    .venv/bin/python bench/refusals.py [--calls N]

Prints one aligned table and writes bench/results/refusals.json. To measure another checkout (the code before a
change), copy this file into its bench/ folder and run it there.
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

CASES = {
    "type into a heading": {"action": "type", "selector": "h1", "value": "x"},
    "fill a heading": {"action": "fill", "selector": "h1", "value": "x"},
    "click the counter (succeeds)": {"action": "click", "selector": "#counter", "trusted": False},
}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--calls", type=int, default=20, help="acts per case (default 20)")
    return p.parse_args(argv)


async def run(args: argparse.Namespace) -> dict[str, Any]:
    from playwright.async_api import async_playwright

    tmp = Path(tempfile.mkdtemp(prefix="dbg-bench-"))
    bridge = BridgeProcess(tmp, "--log-level", "warning").start()
    started = machine()
    rows: list[dict[str, Any]] = []
    codes: dict[str, str] = {}
    try:
        async with async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = await browser.new_page()
            await page.goto(bridge.base + "/demo")
            await page.wait_for_function("window.__dbg && window.__dbg.status().state === 'connected'", timeout=20000)
            pid = await page.evaluate("window.__dbg.pageId")
            async with open_mcp(bridge.mcp_url, bridge.token) as client:
                cells: dict[str, list[float]] = {name: [] for name in CASES}
                walls = dict.fromkeys(CASES, 0.0)
                for _ in range(args.calls):  # interleaved: the same load on every case
                    for name, call in CASES.items():
                        t0 = time.perf_counter()
                        r = await client.call_tool("page_act", {"pageId": pid, **call})
                        dt = time.perf_counter() - t0
                        text = r.content[0].text if r.content else ""
                        codes[name] = text.split("]")[0] + "]" if r.is_error else "ok"
                        cells[name].append(dt * 1000)
                        walls[name] += dt
                for name in CASES:
                    rows.append({"what": name, "answer": codes[name], **stats(cells[name], walls[name])})
            await browser.close()
    finally:
        bridge.stop()
    return {"bench": "refusals", "machine": started, "loadavg_1m_end": round(os.getloadavg()[0], 2),
            "calls_per_case": args.calls, "rows": rows}


COLUMNS = [("what", "what"), ("answer", "answer"), ("n", "n"), ("p50_ms", "p50 ms"), ("p99_ms", "p99 ms")]


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    result = asyncio.run(run(args))
    print(table(result["rows"], COLUMNS))
    print(f"\nLoad average at start: {result['machine']['loadavg_1m']} on {result['machine']['cpus']} CPUs.")
    print(f"JSON: {write_json('refusals.json', result)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Replaying a 10-step skill (one skill_run call: each step re-found by role + name on the live page, then acted on,
inside the bridge) beside the same 10 steps as 10 page_act calls from an MCP client (the official SDK over HTTP),
against real Chromium on e2e/pages/app.html. Also the skill over the runs API (POST /v1/skills/NAME/run).

    .venv/bin/python bench/skills.py [--runs N]

Prints one aligned table (per 10 steps: p50/p99 ms, steps/s) and writes bench/results/skills.json.
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

from tests.support import DevServer  # noqa: E402

#: The 10 steps: (skill step, the same as one page_act call by selector).
CUSTOMER = {"role": "textbox", "name": "Customer", "selector": "#who", "tag": "input"}
GIFT = {"role": "checkbox", "name": "Gift wrap", "selector": "#gift", "tag": "input"}
SIZE = {"role": "combobox", "name": "Size", "selector": "#size", "tag": "select"}
STEPS: list[tuple[dict[str, Any], dict[str, Any]]] = [
    ({"action": "fill", "target": CUSTOMER, "value": "{{customer}}"}, {"action": "fill", "selector": "#who", "value": "Ada"}),
    ({"action": "select", "target": SIZE, "value": "Large"}, {"action": "select", "selector": "#size", "value": "Large"}),
    ({"action": "check", "target": GIFT}, {"action": "check", "selector": "#gift"}),
    ({"action": "uncheck", "target": GIFT}, {"action": "uncheck", "selector": "#gift"}),
    ({"action": "select", "target": SIZE, "value": "Small"}, {"action": "select", "selector": "#size", "value": "Small"}),
    ({"action": "fill", "target": CUSTOMER, "value": "{{customer}} Lovelace"},
     {"action": "fill", "selector": "#who", "value": "Ada Lovelace"}),
    ({"action": "check", "target": GIFT}, {"action": "check", "selector": "#gift"}),
    ({"action": "select", "target": SIZE, "value": "Large"}, {"action": "select", "selector": "#size", "value": "Large"}),
    ({"action": "uncheck", "target": GIFT}, {"action": "uncheck", "selector": "#gift"}),
    ({"action": "fill", "target": CUSTOMER, "value": "{{customer}}"}, {"action": "fill", "selector": "#who", "value": "Ada"}),
]


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--runs", type=int, default=40, help="runs of the 10 steps per cell (default 40)")
    return p.parse_args(argv)


async def bench(args: argparse.Namespace) -> dict[str, Any]:
    import httpx2
    from playwright.async_api import async_playwright

    started = machine()
    with tempfile.TemporaryDirectory() as tmp:
        bridge = BridgeProcess(Path(tmp)).start()
        dev = DevServer(bridge.client_js())
        try:
            async with async_playwright() as pw:
                browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                page = await browser.new_page()
                await page.goto(dev.url("/app.html"))
                await page.wait_for_function("window.__dbg && window.__dbg.status().state === 'connected'")
                pid = await page.evaluate("window.__dbg.pageId")
                headers = {"Authorization": f"Bearer {bridge.token}"}
                skill = {"name": "bench-ten", "params": [{"name": "customer", "default": "Ada"}],
                         "steps": [s for s, _ in STEPS]}
                async with httpx2.AsyncClient(base_url=bridge.base, headers=headers, timeout=60) as http:
                    r = await http.put("/v1/skills/bench-ten", json=skill)
                    assert r.status_code == 200, r.text
                    async with open_mcp(bridge.mcp_url, bridge.token) as mcp:
                        async def skill_run(_: int) -> None:
                            out = await mcp.call_tool("skill_run", {"name": "bench-ten", "pageId": pid})
                            assert not out.is_error, out.content[0].text

                        async def ten_calls(_: int) -> None:
                            for _, act in STEPS:
                                out = await mcp.call_tool("page_act", {"pageId": pid, **act})
                                assert not out.is_error, out.content[0].text

                        async def over_http(_: int) -> None:
                            r = await http.post("/v1/skills/bench-ten/run", json={"pageId": pid})
                            assert r.json()["state"] == "done", r.text

                        rows = []
                        for what, fn in (("skill_run (MCP, 1 call)", skill_run),
                                         ("10 x page_act (MCP)", ten_calls),
                                         ("skill run (/v1 HTTP)", over_http)):
                            row = await cpu_row(what, fn, bridge.proc.pid, args.runs, warmup=3)
                            rows.append({**row, "steps_per_s": round(10 * row["calls_per_s"], 1)})
                    rss = rss_mb(bridge.proc.pid)
                await browser.close()
        finally:
            dev.close()
            bridge.stop()
    return {"bench": "skills", "machine": started, "loadavg_1m_end": round(os.getloadavg()[0], 2),
            "runs": args.runs, "bridge_rss_mb": round(rss, 1), "rows": rows}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    t0 = time.perf_counter()
    data = asyncio.run(bench(args))
    print(f"10 steps on e2e/pages/app.html, {args.runs} runs each (one run = the 10 steps); bridge RSS "
          f"{data['bridge_rss_mb']} MB; load {data['machine']['loadavg_1m']} → {data['loadavg_1m_end']}")
    print(table(data["rows"], [("what", "per 10 steps"), ("p50_ms", "p50 ms"), ("p99_ms", "p99 ms"),
                               ("steps_per_s", "steps/s"), ("bridge_cpu_ms", "bridge CPU ms")]))
    print(f"wrote {write_json('skills.json', data)} in {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())

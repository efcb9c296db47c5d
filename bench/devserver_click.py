"""A fetch-starting click on a Vite dev server page (HMR socket open), before and after "network idle that means
idle": page_act click on a button whose handler fetches a static file (a few ms) and shows the answer, through a
bridge built from the commit before the change (`--before`, default: the parent of the commit that made it) and
through this checkout, each with its own Vite 8 dev server (e2e/frameworks/react-vite8) in the same sitting; the
app's counter (a click with no request) beside each as the reference.

    .venv/bin/python bench/devserver_click.py [--calls N] [--before REV]

Prints one aligned table and writes bench/results/devserver_click.json.
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

from _common import CHROMIUM, CHROMIUM_ARGS, ROOT, BridgeProcess, machine, open_mcp, stats, table, write_json  # noqa: E402

#: The commit that made a WebSocket count only until it opens (its parent is "before").
CHANGE = "Network idle that means idle"
BUTTON = """() => {
    const b = document.createElement('button');
    b.id = 'sync'; b.textContent = 'Sync';
    b.onclick = async () => {
        const r = await fetch('/vite.svg?' + Date.now());
        const t = await r.text();
        b.textContent = 'Synced ' + r.status + ' ' + t.length + ' ' + Date.now();
    };
    document.body.prepend(b);
}"""


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--calls", type=int, default=10, help="clicks per cell (default 10; a 'before' fetch click "
                                                         "takes ~3 s)")
    p.add_argument("--warmup", type=int, default=2, help="warm-up clicks per cell (default 2)")
    p.add_argument("--before", default=None, help="the bridge to compare with (a git rev; default: the parent of "
                                                  f"the commit '{CHANGE}…', else main)")
    return p.parse_args(argv)


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, check=True, capture_output=True, text=True, timeout=60).stdout


def before_rev(given: str | None) -> str:
    if given:
        return git("rev-parse", "--short", given).strip()
    found = git("log", "--format=%h", "-1", "--fixed-strings", f"--grep={CHANGE}").strip()
    return git("rev-parse", "--short", f"{found}^" if found else "main").strip()


def checkout(rev: str, into: Path) -> Path:
    """The bridge, its page client and cockpit at `rev`, runnable with `python -m bridge` from `into`."""
    into.mkdir(parents=True)
    data = subprocess.run(["git", "archive", "--format=tar", rev, "bridge", "inject", "cockpit"], cwd=ROOT, check=True,
                          capture_output=True, timeout=60).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=data, check=True, timeout=60)
    for part in ("inject", "cockpit"):  # package data kept beside the package in a checkout: found there first
        if not (into / "bridge" / part).exists():
            (into / "bridge" / part).symlink_to(into / part, target_is_directory=True)
    return into


async def measure(label: str, bridge: BridgeProcess, work: Path, browser: Any, args: argparse.Namespace) -> list[dict]:
    from e2e.frameworks.vite import ViteApp

    vite = ViteApp("react-vite8", work, bridge.client_js()).start()
    try:
        page = await browser.new_page()
        await page.goto(vite.url())
        await page.wait_for_function("window.__dbg && window.__dbg.status().state === 'connected' && "
                                     "!!document.getElementById('counter')", timeout=30000)
        await page.evaluate(BUTTON)
        pid = await page.evaluate("window.__dbg.pageId")
        cells: dict[str, list[float]] = {"sync": [], "counter": []}
        walls = dict.fromkeys(cells, 0.0)
        settled: list[bool] = []
        async with open_mcp(bridge.mcp_url, bridge.token) as client:
            for i in range(args.warmup + args.calls):
                for name in cells:
                    t0 = time.perf_counter()
                    r = await client.call_tool("page_act", {"pageId": pid, "action": "click", "selector": f"#{name}"})
                    dt = time.perf_counter() - t0
                    if r.is_error:
                        raise RuntimeError(f"{label}: click #{name} failed: {r.content}")
                    if i >= args.warmup:
                        cells[name].append(dt * 1000)
                        walls[name] += dt
                        if name == "sync":
                            settled.append(bool((r.structured_content.get("requests") or {}).get("settled")))
        await page.close()
        return [{"what": f"{label}: click, fetch ~ms", **stats(cells["sync"], walls["sync"]),
                 "settled": f"{sum(settled)}/{len(settled)}"},
                {"what": f"{label}: click, no request (ref)", **stats(cells["counter"], walls["counter"]),
                 "settled": "-"}]
    finally:
        vite.stop()


async def run(args: argparse.Namespace) -> dict[str, Any]:
    from playwright.async_api import async_playwright

    tmp = Path(tempfile.mkdtemp(prefix="dbg-bench-"))
    rev = before_rev(args.before)
    old = checkout(rev, tmp / "before")
    started = machine()
    rows: list[dict[str, Any]] = []
    async with async_playwright() as pw:
        browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for label, cwd in ((f"before ({rev})", old), ("after (this checkout)", ROOT)):
                (tmp / label[:5]).mkdir()
                bridge = BridgeProcess(tmp / label[:5], "--log-level", "warning", cwd=cwd).start()
                try:
                    rows += await measure(label, bridge, tmp / f"vite-{label[:5]}", browser, args)
                finally:
                    bridge.stop()
        finally:
            await browser.close()
    return {"bench": "devserver_click", "machine": started, "loadavg_1m_end": round(os.getloadavg()[0], 2),
            "before": rev, "calls_per_cell": args.calls, "rows": rows}


COLUMNS = [("what", "what"), ("n", "n"), ("p50_ms", "p50 ms"), ("p99_ms", "p99 ms"), ("max_ms", "max ms"),
           ("settled", "settled")]


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    result = asyncio.run(run(args))
    print(table(result["rows"], COLUMNS))
    print(f"\nBefore = the bridge at {result['before']}. Load average at start: {result['machine']['loadavg_1m']} on "
          f"{result['machine']['cpus']} CPUs.")
    print(f"JSON: {write_json('devserver_click.json', result)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

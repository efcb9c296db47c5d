"""200 real Chromium tabs on the demo page (one browser, one context per channel), over WebSocket and then SSE.

For each channel: open the tabs (a few at a time), time until the bridge lists every tab live on that channel and
every tab's two frames, then send page_exec('1+1') to all tabs at once (host, then iframe f0), a few rounds, and
count the answers. Closes that context before the next channel.

    .venv/bin/python bench/many_tabs.py [--quick] [--tabs 200] [--channels ws,sse] [--rounds 3]

Prints a table and writes bench/results/many_tabs.json.
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

from _common import (CHROMIUM, CHROMIUM_ARGS, BridgeProcess, machine, open_mcp, rss_mb, stats,  # noqa: E402
                     table, write_json)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                epilog="Memory: Chromium caps renderer processes (about 80 on this RAM) and tabs share "
                                       "them beyond that; expect a few GB for 200 demo tabs. Figures are noisy on a "
                                       "shared 2-core machine.")
    p.add_argument("--tabs", type=int, default=200, help="tabs per channel (default 200)")
    p.add_argument("--channels", default="ws,sse", help="comma-separated, in order (default ws,sse)")
    p.add_argument("--rounds", type=int, default=3, help="all-tabs page_exec rounds per frame (default 3)")
    p.add_argument("--open", choices=("window", "playwright"), default="window",
                   help="how tabs are opened: 'window' = the first tab calls window.open(url, '_blank', 'noopener') "
                        "for the rest, like a user opening tabs (default); 'playwright' = context.new_page() + goto "
                        "for each, --open-concurrency at a time (slower: Playwright round trips per tab)")
    p.add_argument("--open-concurrency", type=int, default=8, help="with --open playwright: tabs loading at once")
    p.add_argument("--quick", action="store_true", help="50 tabs, 2 rounds")
    p.add_argument("--timeout", type=float, default=300, help="seconds to wait for all tabs to connect")
    return p.parse_args(argv)


def mem_available_mb() -> float:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def descendants(pid: int) -> list[int]:
    """Every live process below `pid` (the Playwright driver and Chromium's processes, for this script)."""
    children: dict[int, list[int]] = {}
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            ppid = int((d / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(ppid, []).append(int(d.name))
    out, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def browser_memory(exclude: int) -> tuple[int, float]:
    """(Chromium process count, summed PSS in MB) over this script's descendants, leaving out the bridge."""
    count, pss = 0, 0.0
    for pid in descendants(os.getpid()):
        if pid == exclude:
            continue
        try:
            comm = Path(f"/proc/{pid}/comm").read_text().strip()
            if "chrom" not in comm:
                continue
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    pss += int(line.split()[1]) / 1024
                    count += 1
                    break
        except OSError:
            continue
    return count, pss


async def run_channel(pw_browser: Any, bridge: BridgeProcess, client: Any, http: Any, channel: str,
                      args: argparse.Namespace, tabs: int, rounds: int) -> dict[str, Any]:
    ctx = await pw_browser.new_context()
    if channel != "ws":
        await ctx.add_init_script(f"window.__DBG_CONFIG = {{channel: '{channel}'}}")
    mem0 = mem_available_mb()
    out: dict[str, Any] = {"channel": channel, "tabs": tabs}

    async def live() -> tuple[set[str], int, int]:
        """Live host pageIds (any channel), how many of them are on `channel`, and their live frames."""
        rows = (await http.get(bridge.base + "/bridge/sessions")).json()["pages"]
        live_rows = [r for r in rows if r["state"] == "live"]
        hosts = {r["pageId"] for r in live_rows if r["pageId"].endswith("/host")}
        on_channel = sum(1 for r in live_rows if r["pageId"].endswith("/host") and r["channel"] == channel)
        frames = sum(1 for r in live_rows if not r["pageId"].endswith("/host"))
        return hosts, on_channel, frames

    already, _, _ = await live()  # empty: the previous channel's context is closed
    sem = asyncio.Semaphore(args.open_concurrency)
    failures: list[str] = []
    url = bridge.base + "/demo"

    async def open_one() -> None:
        async with sem:
            page = await ctx.new_page()
            try:
                await page.goto(url, wait_until="load", timeout=120000)
            except Exception as exc:  # noqa: BLE001 - counted and reported
                failures.append(str(exc).splitlines()[0])

    async def open_by_window() -> None:
        first = await ctx.new_page()
        await first.goto(url, wait_until="commit")
        await first.evaluate("([url, n]) => { for (let i = 0; i < n; i++) window.open(url, '_blank', 'noopener'); }",
                             [url, tabs - 1])

    t0 = time.perf_counter()
    if args.open == "window":
        opener = asyncio.ensure_future(open_by_window())
    else:
        opener = asyncio.gather(*(open_one() for _ in range(tabs)))
    t_open = t_conn = t_frames = None
    hosts: set[str] = set()
    frames = on_channel = 0
    while time.perf_counter() - t0 < args.timeout:
        if t_open is None and opener.done():
            opener.result()
            t_open = time.perf_counter() - t0
        hosts, on_channel, frames = await live()
        hosts -= already
        if t_conn is None and len(hosts) >= tabs:
            t_conn = time.perf_counter() - t0
        if t_conn is not None and frames >= 2 * len(hosts):
            t_frames = time.perf_counter() - t0
        if t_open is not None and t_frames is not None:
            break
        await asyncio.sleep(0.1)
    if not opener.done():
        opener.cancel()
    out.update({"opened_s": t_open, "all_connected_s": t_conn, "all_frames_listed_s": t_frames,
                "connected": len(hosts), "on_channel": on_channel, "frames_listed": frames,
                "load_failures": len(failures),
                "first_failure": failures[0] if failures else None})
    print(f"[{channel}] {len(ctx.pages)} tabs open (opener done at {t_open and round(t_open, 1)} s); "
          f"{len(hosts)} connected, {on_channel} of them over {channel} "
          f"(all at {t_conn and round(t_conn, 1)} s), frames listed at {t_frames and round(t_frames, 1)} s",
          flush=True)
    out["chromium_processes"], out["chromium_pss_mb"] = browser_memory(bridge.proc.pid)
    out["mem_available_drop_mb"] = round(mem0 - mem_available_mb())
    out["bridge_rss_mb"] = round(rss_mb(bridge.proc.pid), 1)

    ids = sorted(hosts)
    calls: list[dict[str, Any]] = []
    for r in range(rounds):
        for frame in ("host", "f0"):
            targets = [i if frame == "host" else i.split("/")[0] + "/f0" for i in ids]
            lat: list[float] = []
            errors: list[str] = []

            async def one(pid: str) -> None:
                t = time.perf_counter()
                res = await client.call_tool("page_exec", {"code": "1+1", "pageId": pid, "timeout": 60})
                lat.append((time.perf_counter() - t) * 1000)
                if res.is_error or res.structured_content["result"] != 2:
                    errors.append(" ".join(getattr(c, "text", "") for c in res.content)[:200])

            t = time.perf_counter()
            await asyncio.gather(*(one(p) for p in targets))
            wall = time.perf_counter() - t
            s = stats(lat, wall)
            calls.append({"channel": channel, "round": r + 1, "frame": frame, "sent": len(targets),
                          "answered": len(targets) - len(errors), "all_done_ms": round(wall * 1000, 1),
                          "p50_ms": s["p50_ms"], "p99_ms": s["p99_ms"], "max_ms": s["max_ms"],
                          "first_error": errors[0] if errors else None})
    out["exec"] = calls
    await ctx.close()
    await asyncio.sleep(1)
    return out


async def run(args: argparse.Namespace) -> dict[str, Any]:
    import httpx
    from playwright.async_api import async_playwright

    tabs = 50 if args.quick and args.tabs == 200 else args.tabs
    rounds = 2 if args.quick and args.rounds == 3 else args.rounds
    started = machine()
    tmp = Path(tempfile.mkdtemp(prefix="dbg-bench-"))
    bridge = BridgeProcess(tmp, "--log-level", "warning").start()
    results: list[dict[str, Any]] = []
    try:
        headers = {"Authorization": f"Bearer {bridge.token}"}
        async with httpx.AsyncClient(headers=headers, timeout=30) as http, \
                open_mcp(bridge.mcp_url, bridge.token, max_connections=None) as client, \
                async_playwright() as pw:
            browser = await pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for ch in [c.strip() for c in args.channels.split(",") if c.strip()]:
                results.append(await run_channel(browser, bridge, client, http, ch, args, tabs, rounds))
            await browser.close()
    except BaseException:
        print(f"bridge log ({bridge.log}), last lines:\n" + "\n".join(bridge.log.read_text().splitlines()[-30:]),
              file=sys.stderr)
        raise
    finally:
        bridge.stop()
    return {"bench": "many_tabs", "machine": started, "tabs": tabs, "rounds": rounds, "open": args.open,
            "channels": results}


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    t0 = time.monotonic()
    r = asyncio.run(run(args))
    conn_cols = [("channel", "chan"), ("tabs", "tabs"), ("opened_s", "opener done s"),
                 ("all_connected_s", "all connected s"), ("all_frames_listed_s", "all frames listed s"),
                 ("connected", "connected"), ("on_channel", "on this channel"), ("frames_listed", "frames listed"),
                 ("load_failures", "load fails"),
                 ("chromium_processes", "chromium procs"), ("chromium_pss_mb", "chromium PSS MB"),
                 ("bridge_rss_mb", "bridge RSS MB")]
    rows = [{**c, **{k: round(c[k], 2) for k in ("opened_s", "all_connected_s", "all_frames_listed_s",
                                                  "chromium_pss_mb") if c[k] is not None}} for c in r["channels"]]
    print()
    print(table(rows, conn_cols))
    print()
    exec_cols = [("channel", "chan"), ("round", "round"), ("frame", "frame"), ("sent", "sent"),
                 ("answered", "answered"), ("all_done_ms", "all answered ms"), ("p50_ms", "p50 ms"),
                 ("p99_ms", "p99 ms"), ("max_ms", "max ms")]
    print(table([e for c in r["channels"] for e in c["exec"]], exec_cols))
    errs = [e["first_error"] for c in r["channels"] for e in c["exec"] if e["first_error"]]
    errs += [c["first_failure"] for c in r["channels"] if c["first_failure"]]
    if errs:
        print("\nfirst errors:", *sorted(set(errs))[:5], sep="\n  ")
    print(f"\nTabs opened by {'window.open from the first tab' if r['open'] == 'window' else 'Playwright new_page'}; "
          "'all connected' = the bridge lists every tab live (polled every 0.1 s); 'on this channel' = how many of "
          "them use the channel asked for (a WS tab whose socket does not open within 3 s falls back to SSE).")
    print(f"All {r['tabs']} page_exec calls of a round go out at once on one MCP session; round 1 includes warm-up. "
          f"Load average at start {r['machine']['loadavg_1m']} on {r['machine']['cpus']} CPUs; figures are noisy. "
          f"Took {time.monotonic() - t0:.0f} s.")
    print(f"JSON: {write_json('many_tabs.json', r)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

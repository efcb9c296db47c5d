"""1,000 pages on one bridge: bridge memory, connect time, and page_exec latency to random pages vs one page.

The pages are tests/fakepage.py FakePages (Python clients speaking the page protocol over WebSocket or SSE), run in
a separate worker process (this script re-run with --worker, on uvloop) so that their event loop never shares a CPU
time slice with the MCP caller's. Per-process CPU time over each measurement is printed, so you can see whether the
fake pages, the caller or the bridge is the busy one.

    .venv/bin/python bench/many_pages.py [--quick] [--pages 1000] [--channel ws|sse] [--calls N]

Prints a table and writes bench/results/many_pages_<channel>.json.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (BridgeProcess, cpu_s, machine, open_mcp, rss_mb, stats, table, timed_calls,  # noqa: E402
                     write_json)

TARGET_RSS_MB = 150.0
TARGET_RATIO = 1.2


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                epilog=f"Targets: bridge RSS < {TARGET_RSS_MB:.0f} MB with 1,000 pages; page_exec p50 "
                                       f"with N pages within {TARGET_RATIO}x of one page. Figures are noisy on a "
                                       "shared 2-core machine.")
    p.add_argument("--pages", type=int, default=1000, help="pages to connect (default 1000)")
    p.add_argument("--channel", choices=("ws", "sse"), default="ws", help="page channel (default ws)")
    p.add_argument("--quick", action="store_true", help="fewer calls (400 per cell instead of 2000)")
    p.add_argument("--calls", type=int, default=None, help="page_exec calls per cell")
    p.add_argument("--connect-concurrency", type=int, default=50, help="pages connecting at once (default 50)")
    p.add_argument("--idle", type=float, default=10.0, help="seconds of idle bridge CPU measured with 1 and N pages")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--base", help=argparse.SUPPRESS)
    return p.parse_args(argv)


# ---- the fake-page worker process ---------------------------------------------------------------------------


async def worker(base: str, channel: str) -> None:
    """Reads commands on stdin: `connect K CONC` (answers a JSON line with the new pageIds) and `quit`."""
    import httpx

    from tests.fakepage import FakePage

    # SSE streams each hold a connection for good: they get a client with no connection cap. Results go up on a
    # second, small client: httpcore walks every pooled connection on each request, so POSTing through the pool
    # that holds 1,000 streams would make the fake pages, not the bridge, the slow part of the measurement.
    http = httpx.AsyncClient(timeout=60, limits=httpx.Limits(max_connections=None, max_keepalive_connections=200))
    post_http = httpx.AsyncClient(timeout=60, limits=httpx.Limits(max_connections=64, max_keepalive_connections=64))

    class BenchPage(FakePage):
        async def send(self, msg: dict[str, Any]) -> Any:
            if self._ws is not None:
                return await super().send(msg)
            body = {"instanceId": self.instance_id, "secret": self.secret, **msg}
            return await post_http.post(self.base + "/bridge/result", content=json.dumps(body), headers=self._headers())

    pages: list[FakePage] = []
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader()
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    while True:
        line = (await reader.readline()).decode().split()
        if not line or line[0] == "quit":
            break
        if line[0] == "connect":
            k, conc = int(line[1]), int(line[2])
            sem = asyncio.Semaphore(conc)

            async def one() -> FakePage:
                async with sem:
                    return await BenchPage(base, channel=channel, http=http).connect()

            t0 = time.perf_counter()
            new = await asyncio.gather(*(one() for _ in range(k)))
            pages.extend(new)
            out = {"ids": [p.page_id for p in new], "seconds": time.perf_counter() - t0}
            sys.stdout.write(json.dumps(out) + "\n")
            sys.stdout.flush()
    await asyncio.gather(*(p.close() for p in pages))
    await http.aclose()
    await post_http.aclose()


# ---- the caller -------------------------------------------------------------------------------------------


class Worker:
    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc

    @classmethod
    async def start(cls, base: str, channel: str) -> Worker:
        proc = await asyncio.create_subprocess_exec(
            sys.executable, __file__, "--worker", "--base", base, "--channel", channel,
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, limit=1 << 24)
        return cls(proc)

    async def connect(self, k: int, conc: int) -> dict[str, Any]:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(f"connect {k} {conc}\n".encode())
        await self.proc.stdin.drain()
        line = await asyncio.wait_for(self.proc.stdout.readline(), 600)
        if not line:
            raise RuntimeError("fake-page worker died (see its stderr above)")
        return json.loads(line)

    async def stop(self) -> None:
        if self.proc.returncode is None:
            assert self.proc.stdin
            self.proc.stdin.write(b"quit\n")
            await self.proc.stdin.drain()
            try:
                await asyncio.wait_for(self.proc.wait(), 30)
            except TimeoutError:
                self.proc.kill()
                await self.proc.wait()


async def measure(client: Any, ids: list[str], n: int, conc: int, pids: dict[str, int]) -> dict[str, Any]:
    rng = random.Random(1)
    in_bridge: list[float] = []

    async def call(i: int) -> None:
        pid = ids[rng.randrange(len(ids))]
        r = await client.call_tool("page_exec", {"code": "1+1", "pageId": pid})
        if r.is_error or r.structured_content["result"] != 2:
            raise RuntimeError(f"page_exec {pid} failed: {r.content}")
        in_bridge.append(r.structured_content["ms"])

    await timed_calls(call, max(50, n // 10), conc)  # warm-up
    in_bridge.clear()
    before = {k: cpu_s(v) for k, v in pids.items()}
    before["caller"] = cpu_s()
    lat, wall = await timed_calls(call, n, conc)
    used = {k: cpu_s(pids.get(k)) - before[k] for k in before}
    ib = sorted(in_bridge)
    out = {**stats(lat, wall), "bridge_p50_ms": round(ib[len(ib) // 2], 3)}
    for k, v in used.items():
        out[f"cpu_{k}_pct"] = round(100 * v / wall)
    out["cpu_bridge_ms_per_call"] = round(1000 * used["bridge"] / len(lat), 3)
    return out


async def idle_cpu(pid: int, seconds: float) -> float:
    """The bridge's CPU% while no call runs: what its connected pages cost it in the background (pings, timers, GC)."""
    c0, t0 = cpu_s(pid), time.monotonic()
    await asyncio.sleep(seconds)
    return round(100 * (cpu_s(pid) - c0) / (time.monotonic() - t0), 2)


async def live_pages(client: Any) -> int:
    """Live pages by page_list, read page by page (nextCursor)."""
    live, cursor = 0, None
    while True:
        listed = await client.call_tool("page_list", {"limit": 1000, **({"cursor": cursor} if cursor else {})})
        live += sum(1 for r in listed.structured_content["pages"] if r["state"] == "live")
        cursor = listed.structured_content.get("nextCursor")
        if cursor is None:
            return live


async def run(args: argparse.Namespace) -> dict[str, Any]:
    n = args.calls or (400 if args.quick else 2000)
    started = machine()
    tmp = Path(tempfile.mkdtemp(prefix="dbg-bench-"))
    bridge = BridgeProcess(tmp, "--log-level", "warning").start()
    bpid = bridge.proc.pid
    rows: list[dict[str, Any]] = []
    out: dict[str, Any] = {"bench": "many_pages", "machine": started, "channel": args.channel, "pages": args.pages,
                           "calls_per_cell": n, "targets": {"rss_mb": TARGET_RSS_MB, "p50_ratio": TARGET_RATIO}}
    w = await Worker.start(bridge.base, args.channel)
    try:
        async with open_mcp(bridge.mcp_url, bridge.token) as client:
            await client.call_tool("page_list", {})
            await asyncio.sleep(0.5)
            out["rss_idle_mb"] = rss_mb(bpid)
            first = await w.connect(1, 1)
            ids = first["ids"]
            pids = {"bridge": bpid, "pages": w.proc.pid}
            out["rss_1_page_mb"] = rss_mb(bpid)
            out["idle_cpu_1_page_pct"] = await idle_cpu(bpid, args.idle)
            for conc in (1, 8):
                rows.append({"pages": 1, "conc": conc, **await measure(client, ids, n, conc, pids)})
            print(f"bridge {bridge.base} pid {bpid}; connecting {args.pages - 1} more {args.channel} pages "
                  f"({args.connect_concurrency} at a time)...", flush=True)
            more = await w.connect(args.pages - 1, args.connect_concurrency)
            ids += more["ids"]
            out["connect_seconds"] = round(more["seconds"], 2)
            out["live_pages"] = await live_pages(client)
            await asyncio.sleep(1)
            out["rss_n_pages_mb"] = rss_mb(bpid)
            out["idle_cpu_n_pages_pct"] = await idle_cpu(bpid, args.idle)
            for conc in (1, 8):
                rows.append({"pages": len(ids), "conc": conc, **await measure(client, ids, n, conc, pids)})
            lat, wall = await timed_calls(lambda i: client.call_tool("page_list", {}), 20, 1)
            out["page_list_n_pages"] = stats(lat, wall)
            out["rss_end_mb"] = rss_mb(bpid)
    finally:
        await w.stop()
        bridge.stop()
    out["rows"] = rows
    one, many = rows[0], rows[2]
    out["p50_ratio"] = round(many["p50_ms"] / one["p50_ms"], 3)
    out["p99_ratio"] = round(many["p99_ms"] / one["p99_ms"], 3)
    return out


COLUMNS = [("pages", "pages"), ("conc", "conc"), ("n", "n"), ("p50_ms", "p50 ms"), ("p99_ms", "p99 ms"),
           ("calls_per_s", "calls/s"), ("bridge_p50_ms", "in-bridge p50 ms"), ("cpu_bridge_pct", "bridge CPU%"),
           ("cpu_caller_pct", "caller CPU%"), ("cpu_pages_pct", "fake pages CPU%"),
           ("cpu_bridge_ms_per_call", "bridge CPU ms/call")]


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    if args.worker:
        try:
            import uvloop

            uvloop.run(worker(args.base, args.channel))
        except ImportError:
            asyncio.run(worker(args.base, args.channel))
        return 0
    t0 = time.monotonic()
    r = asyncio.run(run(args))
    print()
    print(table(r["rows"], COLUMNS))
    mb = r["rss_n_pages_mb"]
    per_page_kb = (mb - r["rss_1_page_mb"]) * 1024 / max(1, r["pages"] - 1)
    print(f"\nchannel {r['channel']}: {r['live_pages']} of {r['pages']} pages live; connected {r['pages'] - 1} in "
          f"{r['connect_seconds']} s ({(r['pages'] - 1) / max(r['connect_seconds'], 0.01):.0f} pages/s)")
    print(f"bridge RSS: idle {r['rss_idle_mb']:.1f} MB, 1 page {r['rss_1_page_mb']:.1f} MB, {r['pages']} pages "
          f"{mb:.1f} MB ({per_page_kb:.0f} KB/page), after the calls {r['rss_end_mb']:.1f} MB   "
          f"target < {TARGET_RSS_MB:.0f} MB at 1,000: {'ok' if mb < TARGET_RSS_MB else 'MISS'}")
    print(f"p50 with {r['pages']} pages / p50 with 1 page = {r['p50_ratio']:.2f}x (p99 {r['p99_ratio']:.2f}x)   "
          f"target <= {TARGET_RATIO}x: {'ok' if r['p50_ratio'] <= TARGET_RATIO else 'MISS'}")
    pl = r["page_list_n_pages"]
    print(f"page_list with {r['pages']} pages (its first answer: 100 tabs and a nextCursor): p50 {pl['p50_ms']:.1f} ms")
    print(f"bridge CPU while idle: {r['idle_cpu_1_page_pct']:.2f}% with 1 page, {r['idle_cpu_n_pages_pct']:.2f}% with "
          f"{r['pages']} pages")
    print(f"CPU% = CPU time / wall time over the cell (100% = one core); bridge CPU ms/call = the bridge's CPU "
          f"time per page_exec (its capacity on one free core is about 1000 / that calls/s).")
    print(f"Load average at start "
          f"{r['machine']['loadavg_1m']} on {r['machine']['cpus']} CPUs; figures are noisy. "
          f"Took {time.monotonic() - t0:.0f} s.")
    print(f"JSON: {write_json('many_pages_' + r['channel'] + '.json', r)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

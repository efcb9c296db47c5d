"""Team bridge: page_exec across replicas beside the same replica, in one run; then many pages over 3 replicas.

A private redis-server (no persistence) and three `serve --cluster` replicas A, B, C. One fake page (WebSocket) on
A; the official MCP client calls it through A (same replica) and through B (B -> Redis -> A -> page -> A -> Redis
-> B), in alternating blocks so both see the same machine load. Then --pages fake pages are spread over the three
replicas: RSS per replica, Redis memory, and the p50 to random pages on other replicas over the p50 to one page.

    .venv/bin/python bench/cluster.py [--calls 400] [--pages 300]

Prints a table and writes bench/results/cluster.json.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import BridgeProcess, machine, open_mcp, rss_mb, stats, table, write_json  # noqa: E402

from tests.fakepage import FakePage  # noqa: E402
from tests.support import RedisServer  # noqa: E402

TARGET_EXTRA_MS = 1.0


def parse_args() -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                epilog=f"Target: cross-replica p50 at most +{TARGET_EXTRA_MS:g} ms over same-replica. "
                                       "Figures are noisy on a shared 2-core machine.")
    p.add_argument("--calls", type=int, default=400, help="page_exec calls per path (default 400)")
    p.add_argument("--pages", type=int, default=300, help="fake pages spread over the replicas (default 300)")
    return p.parse_args()


def redis_memory_mb(port: int) -> float:
    out = subprocess.run(["redis-cli", "-p", str(port), "info", "memory"], capture_output=True, text=True, timeout=10)
    for line in out.stdout.splitlines():
        if line.startswith("used_memory:"):
            return int(line.split(":")[1]) / (1 << 20)
    return float("nan")


async def blocks(calls: dict[str, Any], n: int, block: int = 50) -> dict[str, list[float]]:
    """Alternate blocks of sequential calls between the paths until each made n."""
    lat: dict[str, list[float]] = {k: [] for k in calls}
    while any(len(v) < n for v in lat.values()):
        for name, call in calls.items():
            for _ in range(min(block, n - len(lat[name]))):
                t0 = time.perf_counter()
                await call()
                lat[name].append((time.perf_counter() - t0) * 1000)
    return lat


async def run(args: argparse.Namespace) -> dict[str, Any]:
    import httpx

    redis = RedisServer().start()
    procs: list[BridgeProcess] = []
    pages: list[FakePage] = []
    tmp = Path(tempfile.mkdtemp(prefix="bench-cluster-"))
    try:
        for name in "abc":
            (tmp / name).mkdir()
            procs.append(BridgeProcess(tmp / name, "--cluster", redis.url, "--log-level", "warning").start())
        a, b, c = procs
        http = httpx.AsyncClient(timeout=60, limits=httpx.Limits(max_connections=200))
        one = await FakePage(a.base, http=http).connect()
        pages.append(one)
        rows: list[dict[str, Any]] = []
        out: dict[str, Any] = {"machine": machine()}
        async with open_mcp(a.mcp_url, a.token) as via_a, open_mcp(b.mcp_url, b.token) as via_b:
            args_ = {"code": "1+1", "pageId": one.page_id}

            async def same() -> None:
                r = await via_a.call_tool("page_exec", args_)
                assert not r.is_error, r

            async def cross() -> None:
                r = await via_b.call_tool("page_exec", args_)
                assert not r.is_error, r

            await blocks({"same": same, "cross": cross}, 30)  # warm up both paths
            lat = await blocks({"same": same, "cross": cross}, args.calls)
            s_same, s_cross = stats(lat["same"], 1), stats(lat["cross"], 1)
            rows.append({"path": "same replica (MCP on A, page on A)", **s_same})
            rows.append({"path": "cross replica (MCP on B, page on A)", **s_cross})
            out["same"], out["cross"] = s_same, s_cross
            out["extra_p50_ms"] = round(s_cross["p50_ms"] - s_same["p50_ms"], 3)

            # many pages spread over the replicas
            t0 = time.perf_counter()
            sem = asyncio.Semaphore(50)

            async def connect(i: int) -> FakePage:
                async with sem:
                    return await FakePage(procs[i % 3].base, http=http, url=f"http://127.0.0.1/p{i}").connect()

            many = await asyncio.gather(*(connect(i) for i in range(args.pages)))
            pages.extend(many)
            connect_s = time.perf_counter() - t0
            remote = [p for i, p in enumerate(many) if i % 3 != 1]  # pages on A and C, called through B
            deadline = time.monotonic() + 30
            while True:  # B's mirror sees them all (bounded)
                live, args_list = 0, {"limit": 1000}
                while True:  # through page_list's pages
                    got = (await via_b.call_tool("page_list", args_list)).structured_content or {}
                    live += sum(1 for r in got.get("pages", []) if r["state"] == "live" and r["pageId"].endswith("/host"))
                    if "nextCursor" not in got:
                        break
                    args_list = {"limit": 1000, "cursor": got["nextCursor"]}
                if live >= args.pages + 1 or time.monotonic() > deadline:
                    break
                await asyncio.sleep(0.2)

            async def random_remote() -> None:
                page = random.choice(remote)
                r = await via_b.call_tool("page_exec", {"code": "1+1", "pageId": page.page_id})
                assert not r.is_error, r

            lat2 = await blocks({"one": cross, "random": random_remote}, args.calls)
            s_one, s_rand = stats(lat2["one"], 1), stats(lat2["random"], 1)
            rows.append({"path": f"cross, with {args.pages + 1} pages: one page", **s_one})
            rows.append({"path": f"cross, with {args.pages + 1} pages: random page", **s_rand})
            out["many"] = {"pages": args.pages + 1, "connect_s": round(connect_s, 2), "live_seen_on_b": live,
                           "p50_one_ms": s_one["p50_ms"], "p50_random_ms": s_rand["p50_ms"],
                           "ratio": round(s_rand["p50_ms"] / s_one["p50_ms"], 2),
                           "rss_mb": {n: round(rss_mb(p.proc.pid), 1) for n, p in zip("abc", procs) if p.proc},
                           "redis_used_memory_mb": round(redis_memory_mb(redis.port), 2)}
        print(table(rows, [("path", "path"), ("n", "n"), ("p50_ms", "p50 ms"), ("p99_ms", "p99 ms"),
                           ("mean_ms", "mean ms")]))
        print(f"\ncross-replica extra p50: {out['extra_p50_ms']:+.3f} ms (target at most +{TARGET_EXTRA_MS:g} ms)")
        m = out["many"]
        print(f"{m['pages']} pages over 3 replicas: connected in {m['connect_s']} s, {m['live_seen_on_b']} live in "
              f"B's page_list; RSS per replica (MB) {m['rss_mb']}; Redis used_memory {m['redis_used_memory_mb']} MB; "
              f"random/one p50 ratio {m['ratio']}")
        return out
    finally:
        for p in pages:
            await p.close()
        for p in procs:
            p.stop()
        redis.stop()


def main() -> None:
    args = parse_args()
    out = asyncio.run(run(args))
    print(f"wrote {write_json('cluster.json', out)}")


if __name__ == "__main__":
    main()

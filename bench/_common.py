"""Shared bench helpers: a bridge process, the official MCP client, timing loops, stats, the table, JSON out.

Benchmarks, not tests: they print figures beside targets and never fail on a miss.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import platform
import resource
import statistics
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from tests.support import CHROMIUM, CHROMIUM_ARGS, BridgeProcess  # noqa: E402

RESULTS = ROOT / "bench" / "results"

__all__ = ["CHROMIUM", "CHROMIUM_ARGS", "BridgeProcess", "ROOT", "RESULTS", "open_mcp", "timed_calls", "stats",
           "rss_mb", "cpu_s", "cpu_of", "descendants", "table", "write_json", "machine"]

CLK = os.sysconf("SC_CLK_TCK")


@contextlib.asynccontextmanager
async def open_mcp(url: str, token: str | None, max_connections: int | None = 100) -> AsyncIterator[Any]:
    """The official MCP client (mcp.Client over Streamable HTTP, an httpx2 client carrying the bearer token)."""
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {token}"} if token else {}
    # httpx2's default pool is 100 connections: plenty for 8 callers; many_tabs raises it for 200 at once.
    limits = httpx2.Limits(max_connections=max_connections, max_keepalive_connections=max_connections)
    async with httpx2.AsyncClient(headers=headers, timeout=120, limits=limits) as http:
        async with Client(streamable_http_client(url, http_client=http)) as client:
            yield client


async def timed_calls(call: Callable[[int], Awaitable[Any]], n: int, concurrency: int) -> tuple[list[float], float]:
    """Run `call(i)` n times from `concurrency` workers; return per-call latencies (ms) and the wall time (s)."""
    lat: list[float] = []
    counter = iter(range(n))

    async def worker() -> None:
        for i in counter:
            t0 = time.perf_counter()
            await call(i)
            lat.append((time.perf_counter() - t0) * 1000)

    t0 = time.perf_counter()
    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return lat, time.perf_counter() - t0


async def cpu_row(what: str, call: Callable[[int], Awaitable[Any]], pid: int, n: int, warmup: int,
                  digits: int = 1) -> dict[str, Any]:
    """One table row: `warmup` calls, then n sequential calls timed, with the bridge process's CPU per call (ms)."""
    await timed_calls(call, warmup, 1)
    cpu0 = cpu_s(pid)
    lat, wall = await timed_calls(call, n, 1)
    return {"what": what, **stats(lat, wall), "bridge_cpu_ms": round((cpu_s(pid) - cpu0) * 1000 / n, digits)}


def pct(sorted_ms: list[float], q: float) -> float:
    """Nearest-rank percentile of an already sorted list."""
    if not sorted_ms:
        return float("nan")
    k = max(0, min(len(sorted_ms) - 1, int(round(q / 100 * len(sorted_ms) + 0.5)) - 1))
    return sorted_ms[k]


def stats(lat: list[float], wall: float) -> dict[str, float]:
    s = sorted(lat)
    return {"n": len(s), "p50_ms": round(pct(s, 50), 3), "p99_ms": round(pct(s, 99), 3),
            "mean_ms": round(statistics.fmean(s), 3) if s else float("nan"),
            "max_ms": round(s[-1], 3) if s else float("nan"),
            "calls_per_s": round(len(s) / wall, 1) if wall > 0 else float("nan")}


def rss_mb(pid: int) -> float:
    """Resident set size of a process from /proc/<pid>/status (VmRSS), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError(f"no VmRSS for pid {pid}")


def cpu_s(pid: int | None = None) -> float:
    """User+system CPU seconds used so far by a process (this one when pid is None)."""
    if pid is None:
        r = resource.getrusage(resource.RUSAGE_SELF)
        return r.ru_utime + r.ru_stime
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK


def descendants(root: int, name: str = "") -> list[int]:
    """Every live process below `root` (children, theirs…) whose command name contains `name`, from /proc."""
    parent: dict[int, int] = {}
    comm: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            head, rest = (entry / "stat").read_text().rsplit(")", 1)
        except OSError:
            continue
        pid = int(entry.name)
        parent[pid], comm[pid] = int(rest.split()[1]), head.split("(", 1)[1]
    out = []
    for pid in parent:
        p = parent[pid]
        while p > 1 and p != root:
            p = parent.get(p, 0)
        if p == root and pid != root and name in comm[pid]:
            out.append(pid)
    return out


def cpu_of(pids: list[int]) -> dict[int, float]:
    """CPU seconds so far of each process that still exists."""
    out = {}
    for pid in pids:
        try:
            out[pid] = cpu_s(pid)
        except OSError:
            pass
    return out


def table(rows: list[dict[str, Any]], columns: list[tuple[str, str]]) -> str:
    """An aligned text table: columns are (key, header); numbers right-aligned, text left-aligned."""
    def fmt(v: Any) -> str:
        if v is None:
            return "-"
        if isinstance(v, float):
            return f"{v:.1f}" if abs(v) >= 100 else f"{v:.2f}"
        return str(v)

    cells = [[fmt(r.get(k)) for k, _ in columns] for r in rows]
    widths = [max(len(h), *(len(c[i]) for c in cells)) if cells else len(h) for i, (_, h) in enumerate(columns)]
    numeric = [all(isinstance(r.get(k), (int, float)) or r.get(k) is None for r in rows) for k, _ in columns]

    def line(values: list[str]) -> str:
        return "  ".join(v.rjust(w) if num else v.ljust(w) for v, w, num in zip(values, widths, numeric)).rstrip()

    out = [line([h for _, h in columns]), line(["-" * w for w in widths])]
    out += [line(c) for c in cells]
    return "\n".join(out)


def machine() -> dict[str, Any]:
    load = os.getloadavg()
    return {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform(),
            "loadavg_1m": round(load[0], 2), "time": time.strftime("%Y-%m-%dT%H:%M:%S%z")}


def write_json(name: str, data: dict[str, Any]) -> Path:
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / name
    path.write_text(json.dumps(data, indent=2) + "\n")
    return path

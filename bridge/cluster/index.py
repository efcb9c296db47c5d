"""The index of pages in Redis, read in batches: every instance key (for page_list and the mirror's resync), and
which replicas are alive."""

from __future__ import annotations

from redis.asyncio import Redis

from bridge.cluster import redis_state as keys

PAGE_BATCH = 500


async def records(redis: Redis) -> list[tuple[str, dict[str, str], int]]:
    """Every instance key, through the index in batches: (id, fields, pttl). Drops index entries that expired."""
    out: list[tuple[str, dict[str, str], int]] = []
    start = 0
    while True:
        ids = await redis.zrange(keys.INDEX, start, start + PAGE_BATCH - 1)
        if not ids:
            return out
        async with redis.pipeline(transaction=False) as pipe:
            for iid in ids:
                pipe.hgetall(keys.inst_key(iid))
                pipe.pttl(keys.inst_key(iid))
            got = await pipe.execute()
        stale = []
        for n, iid in enumerate(ids):
            fields, pttl = got[2 * n], got[2 * n + 1]
            if fields:
                out.append((iid, fields, pttl))
            else:
                stale.append(iid)
        if stale:
            await redis.zrem(keys.INDEX, *stale)
        start += PAGE_BATCH - len(stale)


async def alive(redis: Redis, owners: set[str]) -> set[str]:
    """Which of these replicas have a liveness key."""
    names = sorted(owners)
    if not names:
        return set()
    async with redis.pipeline(transaction=False) as pipe:
        for o in names:
            pipe.exists(keys.replica_key(o))
        found = await pipe.execute()
    return {o for o, there in zip(names, found) if there}

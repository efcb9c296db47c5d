"""Where skills and memory facts are kept: the store of the shared-state backend the settings pick
(bridge/shared/seam.py `open_store`, by the --cluster URL) — JSON files in the config dir on one bridge
(`disk_store`), a Redis hash per kind with `--cluster redis://…` (`redis_store`: every replica sees the same)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any, Protocol

#: A key (a skill's name, a fact's id) is a file name and a Redis hash field: kept to a safe alphabet.
KEY_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,79}$")


class Store(Protocol):
    """JSON documents by kind ('skills', 'memory') and key."""

    async def get(self, kind: str, key: str) -> dict[str, Any] | None: ...
    async def put(self, kind: str, key: str, doc: dict[str, Any]) -> None: ...
    async def delete(self, kind: str, key: str) -> bool: ...
    async def all(self, kind: str) -> list[dict[str, Any]]: ...


class DiskStore:
    """config_dir/<kind>/<key>.json, written whole through a temporary file (a crash never leaves half a file)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def _path(self, kind: str, key: str) -> Path:
        return self.root / kind / f"{key}.json"

    async def get(self, kind: str, key: str) -> dict[str, Any] | None:
        try:
            return json.loads(self._path(kind, key).read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None

    async def put(self, kind: str, key: str, doc: dict[str, Any]) -> None:
        path = self._path(kind, key)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(doc, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        os.replace(tmp, path)

    async def delete(self, kind: str, key: str) -> bool:
        try:
            self._path(kind, key).unlink()
            return True
        except FileNotFoundError:
            return False

    async def all(self, kind: str) -> list[dict[str, Any]]:
        folder = self.root / kind
        out = []
        for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
            try:
                out.append(json.loads(path.read_text(encoding="utf-8")))
            except (OSError, ValueError):
                continue  # a file being edited by hand: `skill show` names it; listing goes on
        return out


class RedisStore:
    """One hash per kind, `dbg:<kind>`, field = key, value = the JSON document."""

    def __init__(self, redis: Any, prefix: str = "dbg:") -> None:
        self.redis, self.prefix = redis, prefix

    async def get(self, kind: str, key: str) -> dict[str, Any] | None:
        raw = await self.redis.hget(self.prefix + kind, key)
        return json.loads(raw) if raw else None

    async def put(self, kind: str, key: str, doc: dict[str, Any]) -> None:
        await self.redis.hset(self.prefix + kind, key, json.dumps(doc, ensure_ascii=False))

    async def delete(self, kind: str, key: str) -> bool:
        return bool(await self.redis.hdel(self.prefix + kind, key))

    async def all(self, kind: str) -> list[dict[str, Any]]:
        raw = await self.redis.hgetall(self.prefix + kind)
        return [json.loads(v) for _, v in sorted(raw.items())]


def disk_store(settings: Any) -> DiskStore:
    """The local backend's store: files under the config dir."""
    return DiskStore(settings.config_dir)


def redis_store(settings: Any) -> RedisStore:
    """The redis backend's store, at the --cluster URL."""
    import redis.asyncio as aioredis  # only with --cluster: the optional extra

    return RedisStore(aioredis.from_url(settings.cluster, decode_responses=True))

"""Skills on a team bridge: with --cluster they live in the real redis-server (the one store seam memory uses too),
so a skill saved through one replica is listed, shown and deleted on another, its revision counted once; nothing is
written to either replica's config dir."""

from __future__ import annotations

from collections.abc import Iterator

import httpx2
import pytest

from bridge.server.principals import terminal_headers
from tests.support import BridgeProcess, Bridges, RedisServer

SKILL = {"name": "shared", "scope": "http://a.test", "params": [{"name": "who", "default": "Ada"}],
         "steps": [{"action": "goto", "url": "http://a.test/"},
                   {"action": "fill", "target": {"selector": "#who"}, "value": "{{who}}"}]}


@pytest.fixture(scope="module")
def two(module_bridge_process: Bridges) -> Iterator[tuple[BridgeProcess, BridgeProcess]]:
    redis = RedisServer().start()
    a = module_bridge_process("--cluster", redis.url, name="skills-a")
    b = module_bridge_process("--cluster", redis.url, name="skills-b")
    yield a, b
    module_bridge_process.stop_all()  # before their Redis goes
    redis.stop()


def api(p: BridgeProcess) -> httpx2.Client:
    """That replica's /v1 as the human's terminal reaches it (the token and that replica's human key)."""
    return httpx2.Client(base_url=p.base, headers={"Authorization": f"Bearer {p.token}",
                                                   **terminal_headers(p.config_dir)}, timeout=30)


def test_a_skill_saved_on_one_replica_is_the_same_skill_on_another(two):
    a, b = two
    with api(a) as on_a, api(b) as on_b:
        assert on_a.put("/v1/skills/shared", json=SKILL).json()["revision"] == 1
        assert on_b.put("/v1/skills/shared", json=SKILL).json()["revision"] == 2  # one skill, one revision count
        assert [s["name"] for s in on_b.get("/v1/skills").json()["skills"]] == ["shared"]
        assert on_a.get("/v1/skills/shared").json()["revision"] == 2
        assert not (a.config_dir / "skills").exists() and not (b.config_dir / "skills").exists()
        assert on_b.delete("/v1/skills/shared").status_code == 200
        assert on_a.get("/v1/skills/shared").json()["error"]["code"] == "unknown_skill"

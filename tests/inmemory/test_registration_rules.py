"""The pageId rules, one suite written for every shared-state backend (bridge/shared/seam.py): this bridge alone
(`local`) and a team bridge on a private redis-server (`redis`, where the rules are decided in one Lua script). The
port first, and only for that port's origin; a tab's own id back with its secret; never an id that is live."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import redis

from bridge.state import BridgeState
from bridge.pages.protocol import RegisterRequest
from bridge.pages.registry import Instance
from bridge.settings import Settings
from tests.support import RedisServer

pytestmark = pytest.mark.anyio

ORIGIN = "http://127.0.0.1:5173"


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    server = RedisServer().start()
    yield server.url
    server.stop()


class Channel:
    kind = "fake"

    async def send(self, text: str) -> None:
        pass

    def close(self) -> None:
        pass


class Pages:
    """Register, connect and drop pages through one backend, as the page channel does."""

    def __init__(self, state: BridgeState, url: str | None) -> None:
        self.state, self.store = state, redis.Redis.from_url(url, decode_responses=True) if url else None

    async def register(self, origin: str = ORIGIN, asked: Instance | None = None, secret: str | None = None,
                       reclaim: bool = False) -> tuple[Instance, bool]:
        req = RegisterRequest(url=origin + "/app", origin=origin, instanceId=asked.id if asked else None,
                              secret=secret if secret is not None else (asked.secret if asked else None),
                              reclaim=reclaim)
        return await self.state.shared.pages.register(req, origin)

    async def live(self, inst: Instance) -> None:
        self.state.registry.attach(inst, Channel())
        await self._written(inst, "live")

    async def gone(self, inst: Instance) -> None:
        assert self.state.registry.detach(inst, inst.conn)
        await self._written(inst, "reconnecting")

    async def _written(self, inst: Instance, state: str) -> None:
        """A team bridge writes a page's state to Redis off the call's path: wait (bounded) until it has."""
        if self.store is None:
            return
        import anyio

        with anyio.fail_after(5):
            while self.store.hget(f"dbg:inst:{inst.id}", "state") != state:
                await anyio.sleep(0.01)


#: Every backend the rules hold on: its team bridge starts and stops in process for each test (Cluster.stop).
BACKENDS = ["local", "redis"]


def test_the_suite_runs_over_every_backend_the_seams_table_names():
    """A backend added to bridge/shared/seam.py's table (by URL scheme) fails here until this suite runs over it."""
    from bridge.shared.seam import BACKENDS as TABLE

    assert {row.parts for row in TABLE.values()} == {TABLE[name].parts for name in BACKENDS}


@pytest.fixture(params=BACKENDS)
async def pages(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Pages]:
    url = request.getfixturevalue("redis_url") if request.param == "redis" else None
    if url:
        redis.Redis.from_url(url).flushall()  # every test starts from an empty team bridge
    state = BridgeState(Settings(config_dir=tmp_path, no_audit=True, cluster=url))
    await state.shared.start()
    try:
        yield Pages(state, url)
    finally:
        await state.shared.stop()


async def test_a_page_gets_its_origins_port_as_its_id_and_a_second_tab_a_fresh_one(pages: Pages):
    first, renamed = await pages.register()
    assert (first.id, renamed) == ("5173", False)
    await pages.live(first)
    second, renamed = await pages.register()
    assert second.id != "5173" and not renamed


async def test_the_port_goes_only_to_that_ports_own_origin(pages: Pages):
    other, _ = await pages.register(origin="http://localhost:9999")
    assert other.id == "9999"
    mine, _ = await pages.register()
    assert mine.id == "5173"


async def test_a_tab_gets_its_own_id_back_with_its_secret_once_its_channel_is_gone(pages: Pages):
    inst, _ = await pages.register()
    await pages.live(inst)
    await pages.gone(inst)
    back, renamed = await pages.register(asked=inst)
    assert (back.id, renamed) == ("5173", False)


async def test_a_live_id_is_never_taken_without_a_reclaim_and_never_with_a_wrong_secret(pages: Pages):
    inst, _ = await pages.register()
    await pages.live(inst)
    duplicate, renamed = await pages.register(asked=inst)  # a duplicated tab carries the same credentials
    assert duplicate.id != "5173" and renamed
    forged, renamed = await pages.register(asked=inst, secret="x" * 43, reclaim=True)
    assert forged.id != "5173" and renamed
    reloaded, renamed = await pages.register(asked=inst, reclaim=True)  # its own reload: it claims the id back
    assert (reloaded.id, renamed) == ("5173", False)

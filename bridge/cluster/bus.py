"""The connection to Redis: one command client, and one subscriber on this replica's direct channel and the
broadcast channel, re-subscribed after every loss. Knows whether Redis is reachable; says so by name when not."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from pydantic import ValidationError
from redis.asyncio import BlockingConnectionPool, Redis
from redis.backoff import NoBackoff
from redis.exceptions import RedisError
from redis.retry import Retry

from bridge import errors
from bridge.cluster import messages, redis_state as keys

log = logging.getLogger("bridge.cluster")

#: Errors that mean "Redis is not reachable right now".
DOWN = (RedisError, OSError, asyncio.TimeoutError)


async def cancel_until_done(task: asyncio.Task[None], grace: float = 5.0) -> None:
    """Cancel `task` and wait until it has ended, cancelling it again while it runs on. On Python 3.11 redis-py's
    socket writes go through `asyncio.wait_for`, which drops a cancellation that lands as the write completes
    (CPython gh-86296, fixed in 3.12): the task then carries on, and a loop waits for its next wake-up for good
    (Cluster.stop hung that way now and then). Gives up, saying so, after `grace` seconds."""
    deadline = asyncio.get_running_loop().time() + grace
    while not task.done():
        if asyncio.get_running_loop().time() > deadline:
            log.error("cluster: %s did not stop within %.0f s of being cancelled; left running", task.get_name(), grace)
            return
        task.cancel()
        await asyncio.wait({task}, timeout=0.1)
    if not task.cancelled() and task.exception() is not None:
        log.warning("cluster: %s ended with %r while stopping", task.get_name(), task.exception())


def unavailable(what: str) -> errors.BridgeError:
    return errors.BridgeError(
        f"The cluster's Redis is not reachable, so {what} failed. Pages connected to this replica keep working; "
        "check that redis-server runs and that --cluster points at it, then retry.",
        code="cluster_unavailable")


class Bus:
    def __init__(self, url: str, rid: str, handle: Callable[[messages.Message], None],
                 on_up: Callable[[], Awaitable[None]], on_down: Callable[[], None]) -> None:
        self.rid = rid
        # Fail fast: a call must not hang on a dead Redis (one retry, for a pooled connection a restarted Redis
        # closed); the subscriber loop reconnects by itself. A bounded pool: a burst of registrations queues for a
        # connection instead of opening hundreds at once (which, on a loaded machine, time out connecting).
        pool = BlockingConnectionPool.from_url(url, max_connections=48, timeout=5.0, decode_responses=True,
                                               socket_connect_timeout=2.0, socket_timeout=5.0,
                                               retry=Retry(NoBackoff(), 1), health_check_interval=0)
        self.redis = Redis(connection_pool=pool)
        self.handle, self.on_up, self.on_down = handle, on_up, on_down
        self.up = False
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run(), name="cluster Bus._run")

    async def close(self) -> None:
        if self._task is not None:
            await cancel_until_done(self._task)
        await self.redis.aclose()

    def went_down(self, exc: BaseException) -> None:
        if self.up:
            log.warning("cluster: Redis unreachable (%s); local pages keep working, retrying", exc)
            self.up = False
            self.on_down()

    async def publish(self, rid: str | None, msg: messages.Msg) -> int:
        """Send `msg` to one replica (rid) or to all (None): how many subscribers got it (0: that replica is not
        listening, being dead or reconnecting). Raises cluster_unavailable when Redis is down."""
        try:
            return int(await self.redis.publish(keys.channel(rid) if rid else keys.ALL, messages.dump(msg)))
        except DOWN as exc:
            self.went_down(exc)
            raise unavailable("sending to another replica") from None

    async def _run(self) -> None:
        delay = 0.1
        while True:
            pubsub = self.redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(keys.channel(self.rid), keys.ALL)
                if not self.up:
                    await self.on_up()
                    self.up = True
                    log.info("cluster: connected to Redis as replica %s", self.rid)
                delay = 0.1
                while True:
                    if not self.up:  # a command failed meanwhile: resync once Redis answers again
                        await self.on_up()
                        self.up = True
                    msg = await pubsub.get_message(ignore_subscribe_messages=True, timeout=1.0)
                    if msg is None or msg.get("type") != "message":
                        continue
                    try:
                        data = messages.parse(msg["data"])
                    except ValidationError as exc:
                        log.warning("cluster: ignored a malformed message on %s: %s", msg.get("channel"),
                                    str(exc).splitlines()[0])
                        continue
                    try:
                        self.handle(data)
                    except Exception:  # one bad message must not stop the subscriber
                        log.exception("cluster: handling %s failed", data.t)
            except asyncio.CancelledError:
                raise
            except DOWN as exc:
                self.went_down(exc)
            finally:
                try:
                    await pubsub.aclose()
                except DOWN:
                    pass
            await asyncio.sleep(delay)
            delay = min(delay * 2, 1.0)

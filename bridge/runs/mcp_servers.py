"""Other MCP servers whose tools runs get (`[mcp_servers.NAME]` in config.toml): each started once per bridge
(stdio `command`/`args`/`env`, or an HTTP `url` + `headers`), health-checked with `initialize` + `tools/list`,
skipped with a logged reason when unhealthy, its tools offered as `NAME__tool`, each call bounded by the server's
`timeout`, and stopped when the bridge stops."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from typing import Any

from mcp.types import CallToolResult, TextContent

from bridge.runs.toolbox import Row
from bridge.settings import McpServer

log = logging.getLogger("bridge.runs.mcp")

SEP = "__"
#: Seconds a server may take to start and answer initialize + tools/list.
START_TIMEOUT = 30.0
NAME = re.compile(r"^[A-Za-z0-9_-]{1,40}$")


class Server:
    def __init__(self, name: str, config: McpServer, log_dir: Any) -> None:
        self.name, self.config, self.log_dir = name, config, log_dir
        self.session: Any = None
        self.tools: list[Any] = []
        self.status = "starting"
        self.reason = ""
        self.ready = asyncio.Event()
        self._stop = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._serve(), name=f"mcp server {self.name}")

    async def _serve(self) -> None:
        """Hold the connection open until stop (anyio scopes are entered and left in this one task)."""
        from mcp.client.session import ClientSession

        try:
            async with contextlib.AsyncExitStack() as stack:
                read, write = await stack.enter_async_context(self._transport(stack))
                session = await stack.enter_async_context(ClientSession(read, write))
                async with asyncio.timeout(START_TIMEOUT):
                    await session.initialize()
                    listed = await session.list_tools()
                self.session, self.tools = session, list(listed.tools)
                self.status = "ready"
                log.info("MCP server %s ready: %d tools", self.name, len(self.tools))
                self.ready.set()
                await self._stop.wait()
        except (Exception, TimeoutError) as exc:  # any failure of a server we did not write: skipped, said why
            while isinstance(exc, BaseExceptionGroup) and exc.exceptions:  # the task group's first real error
                exc = exc.exceptions[0]
            self.status, self.reason = "unhealthy", f"{type(exc).__name__}: {exc}"[:300]
            log.warning("MCP server %s skipped: %s", self.name, self.reason)
        finally:
            self.session = None
            if self.status == "ready":
                self.status = "stopped"
            self.ready.set()

    def _transport(self, stack: contextlib.AsyncExitStack) -> Any:
        cfg = self.config
        if cfg.url:
            import httpx2
            from mcp.client.streamable_http import streamable_http_client

            http = httpx2.AsyncClient(headers=cfg.headers, timeout=cfg.timeout)
            stack.push_async_callback(http.aclose)
            return streamable_http_client(cfg.url, http_client=http)
        from mcp.client.stdio import StdioServerParameters, stdio_client

        self.log_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
        errlog = stack.enter_context(open(self.log_dir / f"mcp-{self.name}.log", "a"))  # noqa: SIM115
        params = StdioServerParameters(command=cfg.command or "", args=cfg.args, env=cfg.env or None)
        return stdio_client(params, errlog=errlog)

    async def call(self, tool: str, args: dict[str, Any]) -> CallToolResult:
        if self.session is None:
            return _error("server_unavailable", f"The MCP server {self.name} is not running ({self.status}"
                                                f"{': ' + self.reason if self.reason else ''}). Use another tool.")
        try:
            async with asyncio.timeout(self.config.timeout):
                return await self.session.call_tool(tool, args)
        except TimeoutError:
            return _error("server_timeout", f"{self.name}{SEP}{tool} did not answer within {self.config.timeout:g} s "
                                            "(the server's timeout). Try again once, or use another tool.")
        except Exception as exc:  # noqa: BLE001 - a foreign server's failure is the model's to read
            return _error("server_error", f"{self.name}{SEP}{tool} failed: {type(exc).__name__}: {exc}"[:500])

    async def stop(self) -> None:
        self._stop.set()
        if self.task is not None:
            await asyncio.wait({self.task}, timeout=5)
            if not self.task.done():
                self.task.cancel()


def _error(code: str, text: str) -> CallToolResult:
    return CallToolResult(content=[TextContent(type="text", text=f"[{code}] {text}")], is_error=True)


class McpServers:
    """Every configured server of this bridge."""

    def __init__(self, configs: dict[str, McpServer], log_dir: Any) -> None:
        self.servers = {}
        for name, cfg in configs.items():
            if not NAME.match(name) or not (cfg.command or cfg.url):
                log.warning("MCP server %r skipped: a name of letters, digits, - and _, and a command or a url, "
                            "are needed", name)
                continue
            self.servers[name] = Server(name, cfg, log_dir)

    def start(self) -> None:
        for s in self.servers.values():
            s.start()

    async def ready(self, timeout: float = START_TIMEOUT) -> None:
        """Wait (bounded) until every server is ready or known unhealthy."""
        waits = [asyncio.ensure_future(s.ready.wait()) for s in self.servers.values()]
        if waits:
            _, pending = await asyncio.wait(waits, timeout=timeout)
            for p in pending:
                p.cancel()

    def rows(self) -> list[Row]:
        out = []
        for s in self.servers.values():
            if s.status != "ready":
                continue
            for t in s.tools:
                hints = t.annotations
                out.append(Row(f"{s.name}{SEP}{t.name}", f"[{s.name}] {t.description or ''}".strip(),
                               dict(t.input_schema or {"type": "object", "properties": {}}),
                               bool(hints and hints.read_only_hint), f"mcp:{s.name}"))
        return out

    async def call(self, name: str, args: dict[str, Any]) -> CallToolResult:
        server, _, tool = name.partition(SEP)
        s = self.servers.get(server)
        if s is None:
            return _error("unknown_tool", f"No MCP server {server!r} is configured.")
        return await s.call(tool, args)

    def status(self) -> list[dict[str, Any]]:
        return [{"name": s.name, "status": s.status, "reason": s.reason, "tools": len(s.tools)}
                for s in self.servers.values()]

    async def stop(self) -> None:
        await asyncio.gather(*(s.stop() for s in self.servers.values()))

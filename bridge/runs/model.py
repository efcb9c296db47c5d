"""The model a run asks: any OpenAI-compatible chat-completions endpoint with tool calling (streaming off or on,
a timeout per call, retries with backoff on 429/5xx/connection errors), or the connected MCP client's own model
through sampling (`client`). Both answer one `Reply`."""

from __future__ import annotations

import asyncio
import json
import logging
import random
from dataclasses import dataclass, field
from typing import Any, Protocol

import httpx

from bridge.errors import BridgeError

log = logging.getLogger("bridge.runs.model")

#: Seconds before the first retry (doubled each time, with jitter; a Retry-After up to MAX_RETRY_AFTER wins).
BACKOFF = 0.5
MAX_RETRY_AFTER = 20.0


class ModelError(BridgeError):
    code = "model_error"


@dataclass
class Call:
    id: str
    name: str
    arguments: Any  # the parsed JSON object, or the raw text when it was not JSON
    raw: str = ""

    @property
    def parsed(self) -> bool:
        return isinstance(self.arguments, dict)


@dataclass
class Reply:
    text: str = ""
    calls: list[Call] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    ms: float = 0.0
    retries: int = 0


class Model(Protocol):
    name: str

    async def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply: ...


def parse_arguments(raw: Any) -> Any:
    if isinstance(raw, dict):
        return raw
    if not raw:
        return {}
    try:
        return json.loads(raw)
    except ValueError:
        return str(raw)


class OpenAIModel:
    """POST {url}/chat/completions."""

    def __init__(self, url: str, name: str, key: str | None, timeout: float, retries: int, stream: bool) -> None:
        self.url = url.rstrip("/") + "/chat/completions"
        self.endpoint = shown_url(url.rstrip("/"))
        self.name, self.retries, self.stream, self.timeout = name, retries, stream, timeout
        #: Characters streamed so far in the call in flight (the run's heartbeat shows them).
        self.received = 0
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        self.http = httpx.AsyncClient(timeout=httpx.Timeout(timeout, connect=min(10.0, timeout)), headers=headers)

    async def close(self) -> None:
        await self.http.aclose()

    async def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
        # a reply is one plan or one step: capped as the sampling road caps it, so a small model that rambles ends its
        # turn instead of writing until its context window is full (minutes on a CPU)
        body: dict[str, Any] = {"model": self.name, "messages": messages, "stream": self.stream,
                                "max_tokens": MAX_REPLY_TOKENS}
        if tools:
            body["tools"] = tools
            body["tool_choice"] = "auto"
        if self.stream:
            body["stream_options"] = {"include_usage": True}
        loop = asyncio.get_running_loop()
        started = loop.time()
        self.received = 0
        last, fix = "", ""
        for attempt in range(self.retries + 1):
            wait = BACKOFF * (2 ** attempt) * (0.8 + 0.4 * random.random())
            try:
                reply = await (self._streamed(body) if self.stream else self._plain(body))
                reply.ms, reply.retries = (loop.time() - started) * 1000, attempt
                return reply
            except _Retry as exc:
                last, fix = str(exc), "The model server failed: its own log says why."
                if exc.after is not None:
                    wait = min(exc.after, MAX_RETRY_AFTER)
            except (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError) as exc:
                last = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
                fix = _network_fix(exc, self.endpoint, self.timeout)
            if attempt < self.retries:
                log.info("model call failed (%s); retry %d in %.1f s", last, attempt + 1, wait)
                await asyncio.sleep(wait)
        raise ModelError(f"The model endpoint {self.endpoint} failed {self.retries + 1} time(s): {last}. {fix} "
                         "`dbg-bridge doctor` checks the endpoint.", code="model_unavailable")

    async def _plain(self, body: dict[str, Any]) -> Reply:
        r = await self.http.post(self.url, json=body)
        _check(r, self.endpoint)
        try:
            data = r.json()
            message = data["choices"][0]["message"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise ModelError(f"The model endpoint answered something that is not a chat completion: "
                             f"{r.text[:300]!r}.", code="model_bad_reply") from None
        calls = [Call(c.get("id") or f"call{i}", c["function"]["name"], parse_arguments(c["function"].get("arguments")),
                      str(c["function"].get("arguments") or ""))
                 for i, c in enumerate(message.get("tool_calls") or []) if c.get("function", {}).get("name")]
        usage = data.get("usage") or {}
        return Reply(message.get("content") or "", calls, int(usage.get("prompt_tokens") or 0),
                     int(usage.get("completion_tokens") or 0))

    async def _streamed(self, body: dict[str, Any]) -> Reply:
        text: list[str] = []
        parts: dict[int, dict[str, Any]] = {}
        usage: dict[str, Any] = {}
        async with self.http.stream("POST", self.url, json=body) as r:
            if r.status_code != 200:
                await r.aread()
                _check(r, self.endpoint)
            async for line in r.aiter_lines():
                if not line.startswith("data:"):
                    continue
                data = line[5:].strip()
                if data == "[DONE]":
                    break
                try:
                    chunk = json.loads(data)
                except ValueError:
                    continue
                usage = chunk.get("usage") or usage
                for choice in chunk.get("choices") or []:
                    delta = choice.get("delta") or {}
                    if delta.get("content"):
                        text.append(delta["content"])
                        self.received += len(delta["content"])
                    for tc in delta.get("tool_calls") or []:
                        part = parts.setdefault(int(tc.get("index", 0)), {"id": "", "name": "", "args": []})
                        part["id"] = tc.get("id") or part["id"]
                        fn = tc.get("function") or {}
                        part["name"] += fn.get("name") or ""
                        part["args"].append(fn.get("arguments") or "")
                        self.received += len(fn.get("arguments") or "")
        calls = [Call(p["id"] or f"call{i}", p["name"], parse_arguments("".join(p["args"])), "".join(p["args"]))
                 for i, p in sorted(parts.items()) if p["name"]]
        return Reply("".join(text), calls, int(usage.get("prompt_tokens") or 0),
                     int(usage.get("completion_tokens") or 0))


class _Retry(Exception):
    def __init__(self, text: str, after: float | None) -> None:
        super().__init__(text)
        self.after = after


#: Words model servers use when a prompt does not fit the context window (llama.cpp, vLLM, OpenAI).
CONTEXT_WORDS = ("context length", "context window", "context_length", "n_ctx", "exceeds the context",
                 "maximum context", "too many tokens", "context size")


def _check(r: httpx.Response, endpoint: str) -> None:
    if r.status_code == 429 or r.status_code >= 500:
        after = r.headers.get("retry-after")
        raise _Retry(f"HTTP {r.status_code} {r.text[:200]!r}",
                     float(after) if after and after.replace(".", "", 1).isdigit() else None)
    if r.status_code == 200:
        return
    said = f"HTTP {r.status_code} {r.text[:300]!r}"
    if any(w in r.text.lower() for w in CONTEXT_WORDS):
        raise ModelError(f"The model's context window is too small for this run's prompt ({said}). Start the model "
                         "server with a bigger one (llama-cpp-python: `--n_ctx 8192`; llama.cpp's llama-server: "
                         "`-c 8192`; see docs/runs.md), or use a model with a longer context.", code="model_context")
    if r.status_code in (401, 403):
        raise ModelError(f"The model endpoint {endpoint} refused the key ({said}). Give the right key: "
                         "`dbg-bridge run --model-key KEY`, OPENAI_API_KEY, or model_key in POST /v1/runs.",
                         code="model_auth")
    if r.status_code == 404:
        raise ModelError(f"The model endpoint {endpoint} has no such model or path ({said}). Check --model (GET "
                         f"{endpoint}/models lists the names) and that --model-url ends in /v1.", code="model_refused")
    raise ModelError(f"The model endpoint refused the call: {said}. Check --model, --model-url and --model-key.",
                     code="model_refused")


def _network_fix(exc: Exception, endpoint: str, timeout: float) -> str:
    """What to do about a call that got no HTTP answer."""
    if isinstance(exc, httpx.ConnectError):
        return (f"Nothing answers at {endpoint}: start the model server (docs/runs.md) or give the right URL "
                "(`dbg-bridge run --model-url URL`, OPENAI_BASE_URL).")
    if isinstance(exc, httpx.TimeoutException):
        return (f"It did not answer within {timeout:g} s (model_timeout): a slow model on a small machine needs a "
                "bigger --model-timeout, or a smaller prompt (fewer tools) or model.")
    return "The connection dropped before an answer: check the model server's log."


#: The most tokens one model reply may take (a plan, a step, a verdict), on both roads to a model.
MAX_REPLY_TOKENS = 2000


class ClientModel:
    """The connected MCP client's own model, by sampling (a 2025-11-25 session that declared it, with tools)."""

    name = "client"

    def __init__(self, clients: Any, max_tokens: int = MAX_REPLY_TOKENS) -> None:
        self.clients, self.max_tokens = clients, max_tokens

    async def complete(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> Reply:
        from mcp import types as t

        system = "\n\n".join(m["content"] for m in messages if m["role"] == "system")
        sampled = []
        for m in messages:
            if m["role"] in ("user", "tool"):
                prefix = f"[result of {m.get('name', 'a tool')}] " if m["role"] == "tool" else ""
                sampled.append(t.SamplingMessage(role="user", content=t.TextContent(type="text",
                                                                                  text=prefix + str(m["content"]))))
            elif m["role"] == "assistant":
                said = m.get("content") or ""
                for c in m.get("tool_calls") or []:
                    said += f"\n[called {c['function']['name']} {c['function']['arguments']}]"
                sampled.append(t.SamplingMessage(role="assistant", content=t.TextContent(type="text",
                                                                                       text=said.strip() or "…")))
        offered = [t.Tool(name=x["function"]["name"], description=x["function"]["description"],
                          input_schema=x["function"]["parameters"]) for x in tools]
        result = await self._sample(sampled, system, offered)
        content = result.content if isinstance(result.content, list) else [result.content]
        reply = Reply()
        for i, c in enumerate(content):
            if getattr(c, "type", "") == "text":
                reply.text += c.text
            elif getattr(c, "type", "") == "tool_use":
                reply.calls.append(Call(getattr(c, "id", f"call{i}"), c.name, dict(c.input or {})))
        return reply

    async def _sample(self, messages: list[Any], system: str, tools: list[Any]) -> Any:
        """The newest session that declared sampling and is still there answers."""
        from mcp.types import ClientCapabilities, SamplingCapability

        from bridge.server.clients import GONE

        wants = ClientCapabilities(sampling=SamplingCapability())
        for session in reversed(self.clients.sessions):
            if not session.check_client_capability(wants):
                continue
            try:
                return await session.create_message(messages, max_tokens=self.max_tokens, system_prompt=system,
                                                    tools=tools or None)
            except GONE as exc:
                log.info("sampling session gone: %s", exc)
        raise ModelError("--model client needs a connected MCP client that declared sampling (a 2025-11-25 "
                         "session); none is connected. Use an OpenAI-compatible model_url instead.",
                         code="not_available")


def build_model(settings: Any, name: str | None, clients: Any, url: str | None = None,
                key: str | None = None) -> Model:
    """The run's model: its own endpoint and key when it gives them, else the bridge's. The bridge's key goes only to
    the bridge's own model_url (a run that names another endpoint sends its own key, or none)."""
    name = name or settings.model
    if name == "client":
        return ClientModel(clients)
    if url is None or (settings.model_url and url.rstrip("/") == settings.model_url.rstrip("/")):
        url, key = url or settings.model_url, key or settings.model_key
    if not url:
        raise ModelError("No model endpoint is set for this run or this bridge. Give the run one (`dbg-bridge run "
                         "--model-url URL`, or model_url in POST /v1/runs), or start the bridge with --model-url "
                         "(DBG_MODEL_URL, OPENAI_BASE_URL); docs/runs.md says how to start a local model. Or use "
                         "--model client.", code="no_model")
    return OpenAIModel(url, name, key, settings.model_timeout, settings.model_retries, settings.model_stream)


def shown_url(url: str) -> str:
    """An endpoint as traces and answers show it: without user:password@ or a query."""
    scheme, _, rest = url.partition("://")
    host, slash, path = rest.partition("/")
    return f"{scheme}://{host.rsplit('@', 1)[-1]}{slash}{path.split('?', 1)[0]}"

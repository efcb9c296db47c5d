"""What a model endpoint can take, for `dbg-bridge doctor`: the size of a run's first request (built from the tools a
bridge with these settings offers), the endpoint's context window (as it declares it — llama.cpp's /props, vLLM's
max_model_len — or, on loopback, by sending it a prompt that long: a server with a smaller window refuses it at
once, naming the window) and whether it answers with a tool call."""

from __future__ import annotations

import asyncio
import json
import logging
import math
import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import httpx

from bridge.settings import Settings

#: Characters per token, low so the estimate errs on the large side (JSON schemas tokenize densely).
CHARS_PER_TOKEN = 3.5
#: Tokens a run needs beyond its first request: each step's result goes back to the model (up to ~3,400 tokens).
GROWTH = 2048
#: The context window to suggest (at least).
SUGGEST = 8192
#: The keys an endpoint's model entry may declare its context window under.
CONTEXT_KEYS = ("n_ctx", "max_model_len", "context_length", "context_window", "max_context_length")


@dataclass
class Fit:
    ok: bool
    detail: str
    fix: str = ""


def first_request(settings: Settings) -> dict[str, Any]:
    """The body of a run's first executing call (system prompt, task, every tool a run gets, the control tools)."""
    from bridge.runs import prompts
    from bridge.server.mcp_server import build_server
    from bridge.state import BridgeState

    async def tools() -> list[Any]:
        state = BridgeState(settings.model_copy(update={"no_audit": True}))
        try:
            return list(await build_server(state).list_tools())
        finally:
            for task in list(state.background.tasks):
                task.cancel()

    calls = asyncio.run(tools())
    logging.getLogger().setLevel(logging.WARNING)  # building an MCP server set the root logger to INFO
    rows = [{"type": "function", "function": {"name": t.name, "description": t.description or "",
                                              "parameters": t.input_schema}}
            for t in calls if t.name != "agent_run"]
    return {"messages": [{"role": "system", "content": prompts.SYSTEM},
                         {"role": "user", "content": prompts.task_message("Click the Save button.", [], [], False)}],
            "tools": [*rows, prompts.FINISH, prompts.FAIL, prompts.CLARIFY, prompts.PAUSE, prompts.PLAN], "tool_choice": "auto"}


def estimate(body: dict[str, Any]) -> int:
    return math.ceil(len(json.dumps(body)) / CHARS_PER_TOKEN)


def suggestion(needed: int) -> int:
    size = SUGGEST
    while size < needed + GROWTH:
        size *= 2
    return size


def declared(http: httpx.Client, url: str) -> tuple[int, str] | None:
    """The context window the endpoint states: llama.cpp's /props, or a key in its /models entries."""
    root = url[: -len("/v1")] if url.endswith("/v1") else url
    try:
        r = http.get(root + "/props")
        if r.status_code == 200:
            props = r.json()
            n = (props.get("default_generation_settings") or {}).get("n_ctx") or props.get("n_ctx")
            if isinstance(n, int) and n > 0:
                return n, f"{root}/props"
    except (httpx.HTTPError, ValueError, AttributeError):
        pass
    try:
        r = http.get(url + "/models")
        for m in (r.json().get("data") or []) if r.status_code == 200 else []:
            for where in (m, m.get("meta") or {}):
                for key in CONTEXT_KEYS:
                    if isinstance(where.get(key), int) and where[key] > 0:
                        return where[key], f"{url}/models ({key})"
    except (httpx.HTTPError, ValueError, AttributeError):
        pass
    return None


@dataclass
class Probe:
    """What a sizing request got: accepted, refused (with the window the refusal names) or no answer."""

    what: str
    window: int | None = None


def probed(http: httpx.Client, url: str, model: str, tokens: int, wait: float = 15.0) -> Probe:
    """Send a prompt of about `tokens` tokens with max_tokens 1. A server whose window is smaller refuses it at once,
    naming the window (llama-cpp-python, vLLM, OpenAI); one with room starts reading it, and no refusal within `wait`
    s means it fits (the server may stay busy reading it for a while: it is not cancelled)."""
    body = {"model": model, "max_tokens": 1, "stream": False,
            "messages": [{"role": "user", "content": "ok " * tokens}]}
    try:
        r = http.post(url + "/chat/completions", json=body, timeout=httpx.Timeout(wait, connect=3))
    except httpx.TimeoutException:
        return Probe("accepted")
    except httpx.HTTPError as exc:
        return Probe(f"error: {type(exc).__name__}")
    if r.status_code == 200:
        return Probe("accepted")
    from bridge.runs.model import CONTEXT_WORDS

    text = r.text[:500]
    if any(w in text.lower() for w in CONTEXT_WORDS):
        window = re.search(r"context (?:window|length|size)(?: is| of)? (\d+)", text)
        return Probe("refused", int(window.group(1)) if window else 0)
    return Probe(f"HTTP {r.status_code}: {text[:200]}")


def calls_tools(http: httpx.Client, url: str, model: str) -> Fit:
    """Whether the model answers a plain request with a tool call."""
    from bridge.runs import prompts

    body = {"model": model, "max_tokens": 200, "stream": False, "tool_choice": "auto", "tools": [prompts.PLAN],
            "messages": [{"role": "system", "content": "Answer by calling the plan tool."},
                         {"role": "user", "content": "Make a plan with one step: look at the page."}]}
    try:
        r = http.post(url + "/chat/completions", json=body)
        message = r.json()["choices"][0]["message"] if r.status_code == 200 else None
    except httpx.TimeoutException:
        return Fit(False, "no answer to a one-tool request in time", "A slow machine: check again, or give runs a "
                                                                     "bigger --model-timeout.")
    except (httpx.HTTPError, ValueError, KeyError, IndexError, TypeError) as exc:
        return Fit(False, f"a one-tool request failed ({type(exc).__name__})", "Check the model server's log.")
    if message is None:
        return Fit(False, f"a one-tool request got HTTP {r.status_code}: {r.text[:200]}",
                   "The server may not take `tools`: serve the model with tool calling on (llama-cpp-python: "
                   "--chat_format chatml-function-calling; llama.cpp: --jinja).")
    if message.get("tool_calls"):
        return Fit(True, "answers with tool calls")
    return Fit(False, "answered without a tool call", "Runs need a model that calls tools, served with tool calling "
                                                      "on (llama-cpp-python: --chat_format chatml-function-calling; "
                                                      "llama.cpp: --jinja).")


def loopback(url: str) -> bool:
    return (urlsplit(url).hostname or "") in ("127.0.0.1", "localhost", "::1")


def check(settings: Settings, url: str, headers: dict[str, str]) -> list[Fit]:
    """The context-window fit and the tool calling of the endpoint at `url` (which answered GET /models)."""
    body = first_request(settings)
    needed = estimate(body)
    fix_ctx = (f"Restart the model server with a context of at least {suggestion(needed)} tokens (./scripts/model.sh "
               f"--ctx {suggestion(needed)}; llama-cpp-python: --n_ctx {suggestion(needed)}; llama.cpp's llama-server: "
               f"-c {suggestion(needed)}; vLLM: --max-model-len), or offer runs fewer tools (--disable-tools). "
               "See docs/runs.md.")
    timeout = settings.model_timeout
    with httpx.Client(headers=headers, timeout=httpx.Timeout(timeout, connect=3)) as http:
        tools = calls_tools(http, url, settings.model)  # first: a server reading the sizing prompt serves no one else
        stated = declared(http, url)
        if stated is not None:
            n, where = stated
            fit = _fit(n, needed, f"{n} tokens (from {where})", fix_ctx)
        elif not loopback(url):
            fit = Fit(True, f"the endpoint does not say its context window; a run's first request is ~{needed} "
                            f"tokens and grows by each step's result (not probed: {url} is not on this machine)")
        else:
            probe = probed(http, url, settings.model, needed + GROWTH)
            if probe.what == "refused":
                fit = _fit(probe.window or 0, needed, f"{probe.window or 'too few'} tokens (it refused a run-sized "
                                                      "prompt)", fix_ctx)
            elif probe.what == "accepted":
                fit = Fit(True, f"has room for a run (first request ~{needed} tokens, and {GROWTH} for its steps: it "
                                "took a prompt that long; it may be busy reading it for a minute)")
            else:
                fit = Fit(False, f"a run-sized prompt got no answer ({probe.what})",
                          "Check the model server's log.")
    return [fit, tools]


def _fit(n: int, needed: int, said: str, fix: str) -> Fit:
    if n and n >= needed + GROWTH:
        return Fit(True, f"context window {said} fits a run (first request ~{needed} tokens)")
    if n and n >= needed:
        return Fit(False, f"context window {said}: a run's first request (~{needed} tokens) fits, its later steps "
                          "will not", fix)
    return Fit(False, f"context window {said} is too small for a run's first request (~{needed} tokens)", fix)

"""What a model endpoint can take, for `dbg-bridge doctor`: the size of a run's first request (built from the tools a
bridge with these settings offers), the endpoint's context window (as it declares it — llama.cpp's /props, vLLM's
max_model_len — or, on loopback, by sending it that request with max_tokens 1) and whether it answers with a tool
call."""

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
            "tools": [*rows, prompts.FINISH, prompts.FAIL, prompts.CLARIFY, prompts.PAUSE, prompts.PLAN]}


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


def probed(http: httpx.Client, url: str, model: str, body: dict[str, Any]) -> tuple[int | None, str]:
    """Send a run's first request with max_tokens 1: (the window the refusal names, or None; what happened)."""
    try:
        r = http.post(url + "/chat/completions", json={**body, "model": model, "max_tokens": 1, "stream": False})
    except httpx.TimeoutException:
        return None, "timeout"
    except httpx.HTTPError as exc:
        return None, f"error: {type(exc).__name__}"
    if r.status_code == 200:
        return None, "accepted"
    from bridge.runs.model import CONTEXT_WORDS

    text = r.text[:500]
    if any(w in text.lower() for w in CONTEXT_WORDS):
        found = re.search(r"context (?:window|length|size)(?: is| of)? (\d+)|(\d+) tokens", text)
        n = int(next(g for g in found.groups() if g)) if found else 0
        return n, f"refused: {text[:200]}"
    return None, f"HTTP {r.status_code}: {text[:200]}"


def calls_tools(http: httpx.Client, url: str, model: str) -> bool | None:
    """Whether the model answers a plain request with a tool call (None: no answer)."""
    from bridge.runs import prompts

    body = {"model": model, "max_tokens": 200, "stream": False, "tool_choice": "auto", "tools": [prompts.PLAN],
            "messages": [{"role": "system", "content": "Answer by calling the plan tool."},
                         {"role": "user", "content": "Make a plan with one step: look at the page."}]}
    try:
        r = http.post(url + "/chat/completions", json=body)
        message = r.json()["choices"][0]["message"] if r.status_code == 200 else None
    except (httpx.HTTPError, ValueError, KeyError, IndexError, TypeError):
        return None
    return None if message is None else bool(message.get("tool_calls"))


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
    timeout = min(settings.model_timeout, 120.0)
    with httpx.Client(headers=headers, timeout=httpx.Timeout(timeout, connect=3)) as http:
        stated = declared(http, url)
        if stated is not None:
            n, where = stated
            fit = _fit(n, needed, f"{n} tokens (from {where})", fix_ctx)
        elif not loopback(url):
            fit = Fit(True, f"the endpoint does not say its context window; a run's first request is ~{needed} "
                            f"tokens and grows by each step's result (not probed: {url} is not on this machine)")
        else:
            n, what = probed(http, url, settings.model, body)
            if n is not None:
                fit = _fit(n or 0, needed, f"{n or 'too few'} tokens (it refused a run-sized request)", fix_ctx)
            elif what == "accepted":
                fit = Fit(True, f"took a run's first request (~{needed} tokens; the window is not stated: leave "
                                f"room for each step's result, {suggestion(needed)} is safe)")
            else:
                fit = Fit(False, f"a run-sized request (~{needed} tokens) got no answer ({what})",
                          "Check the model server's log; a slow machine needs a bigger --model-timeout.")
        tools = calls_tools(http, url, settings.model) if fit.ok else None
    out = [fit]
    if tools is not None:
        out.append(Fit(tools, "answers with tool calls" if tools else "answered without a tool call",
                       "" if tools else "Runs need a model that calls tools, served with tool calling on "
                                        "(llama-cpp-python: --chat_format chatml-function-calling; llama.cpp: --jinja)."))
    return out


def _fit(n: int, needed: int, said: str, fix: str) -> Fit:
    if n and n >= needed + GROWTH:
        return Fit(True, f"context window {said} fits a run (first request ~{needed} tokens)")
    if n and n >= needed:
        return Fit(False, f"context window {said}: a run's first request (~{needed} tokens) fits, its later steps "
                          "will not", fix)
    return Fit(False, f"context window {said} is too small for a run's first request (~{needed} tokens)", fix)

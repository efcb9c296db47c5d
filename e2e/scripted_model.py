"""A scripted OpenAI-compatible chat-completions server for the agent loop's e2e tests: real HTTP on 127.0.0.1,
each answer decided by a small policy (a Python function) over what the bridge sent (its messages and tools).

The policy is picked by the request's `model` name, so one server serves every test: a test registers
`server.policies["name"] = fn` and starts its run with `model: "name"`. `fn(req)` returns `say(text)`,
`call(name, **args)` (one or more tool calls), `status(code, headers)` (an HTTP error) or `hang_up()` (the
connection closed with no answer). Every request is kept in
`server.requests[name]` for the test to read. A request with `stream: true` is answered as SSE chunks.

This is a fixture for the loop's logic, never evidence that the agent does real tasks."""

from __future__ import annotations

import http.server
import json
import threading
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Req:
    """One chat-completions request as the bridge sent it."""

    body: dict[str, Any]
    #: When it arrived (time.monotonic()).
    at: float = field(default_factory=time.monotonic)
    #: Its HTTP headers (lower-case names).
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def messages(self) -> list[dict[str, Any]]:
        return self.body["messages"]

    @property
    def tools(self) -> list[str]:
        return [t["function"]["name"] for t in self.body.get("tools") or []]

    @property
    def last(self) -> dict[str, Any]:
        return self.messages[-1]

    def results(self) -> list[dict[str, Any]]:
        """The tool messages so far."""
        return [m for m in self.messages if m["role"] == "tool"]

    def called(self, name: str) -> int:
        """How many times the model has called `name` in this conversation."""
        return sum(1 for m in self.messages if m["role"] == "assistant"
                   for c in m.get("tool_calls") or [] if c["function"]["name"] == name)

    def text(self) -> str:
        return "\n".join(str(m.get("content") or "") for m in self.messages)

    @property
    def verifying(self) -> bool:
        return self.tools == ["verdict"]


@dataclass
class Answer:
    content: str | None = None
    calls: list[tuple[str, Any]] = field(default_factory=list)
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    hang_up: bool = False


def say(text: str) -> Answer:
    return Answer(content=text)


def call(name: str, raw: str | None = None, **args: Any) -> Answer:
    """One tool call (`raw`: the arguments text as sent, e.g. not JSON)."""
    return Answer(calls=[(name, raw if raw is not None else args)])


def calls(*pairs: tuple[str, dict[str, Any]]) -> Answer:
    return Answer(calls=list(pairs))


def status(code: int, headers: dict[str, str] | None = None) -> Answer:
    return Answer(status=code, headers=dict(headers or {}))


def hang_up() -> Answer:
    return Answer(hang_up=True)


Policy = Callable[[Req], Answer]


class ScriptedModel:
    def __init__(self) -> None:
        self.policies: dict[str, Policy] = {}
        self.requests: dict[str, list[Req]] = defaultdict(list)
        owner = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
                pass

            def do_GET(self) -> None:  # noqa: N802 - /v1/models, as doctor asks
                data = json.dumps({"object": "list", "data": [{"id": n, "object": "model"} for n in owner.policies]
                                   }).encode()
                self.send_response(200 if self.path.endswith("/models") else 404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)))
                name = body.get("model", "")
                req = Req(body, headers={k.lower(): v for k, v in self.headers.items()})
                owner.requests[name].append(req)
                policy = owner.policies.get(name)
                answer = policy(req) if policy else Answer(status=404)
                if answer.hang_up:
                    self.close_connection = True
                    return
                if answer.status != 200:
                    data = json.dumps({"error": {"message": f"scripted {answer.status}"}}).encode()
                    self.send_response(answer.status)
                    for k, v in answer.headers.items():
                        self.send_header(k, v)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                    return
                n = len(owner.requests[name])
                tool_calls = [{"id": f"c{n}_{i}", "type": "function", "function": {
                    "name": fn, "arguments": args if isinstance(args, str) else json.dumps(args)}}
                    for i, (fn, args) in enumerate(answer.calls)]
                usage = {"prompt_tokens": len(json.dumps(body)) // 4, "completion_tokens": 7}
                if body.get("stream"):
                    self._stream(answer, tool_calls, usage)
                    return
                message: dict[str, Any] = {"role": "assistant", "content": answer.content}
                if tool_calls:
                    message["tool_calls"] = tool_calls
                data = json.dumps({"id": f"x{n}", "object": "chat.completion", "model": name, "choices": [
                    {"index": 0, "message": message, "finish_reason": "tool_calls" if tool_calls else "stop"}],
                    "usage": usage}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def _stream(self, answer: Answer, tool_calls: list[dict[str, Any]], usage: dict[str, Any]) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()
                chunks: list[dict[str, Any]] = []
                text = answer.content or ""
                for i in range(0, len(text), 5):  # the text in pieces, as a model streams it
                    chunks.append({"content": text[i:i + 5]})
                for i, tc in enumerate(tool_calls):
                    args = tc["function"]["arguments"]
                    chunks.append({"tool_calls": [{"index": i, "id": tc["id"], "type": "function",
                                                   "function": {"name": tc["function"]["name"], "arguments": ""}}]})
                    for j in range(0, len(args), 7):
                        chunks.append({"tool_calls": [{"index": i, "function": {"arguments": args[j:j + 7]}}]})
                for delta in chunks:
                    self.wfile.write(f"data: {json.dumps({'choices': [{'index': 0, 'delta': delta}]})}\n\n".encode())
                self.wfile.write(f"data: {json.dumps({'choices': [], 'usage': usage})}\n\n".encode())
                self.wfile.write(b"data: [DONE]\n\n")
                self.close_connection = True

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()

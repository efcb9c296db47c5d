"""A client side of the MCP tasks extension (io.modelcontextprotocol/tasks, 2026-07-28) for the tests, on the official
client's extension hooks (the SDK ships none): it declares the extension, and a `resultType: "task"` answer to
tools/call is finished by polling tasks/get, answering `input_required` elicitations through tasks/update with
`answer(request) -> ElicitResult-shaped dict`, until the task completes (its result is the call's result)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, ClassVar, Literal

from mcp.client.extension import ClaimContext, ClientExtension, ResultClaim
from mcp.types import CallToolResult
from mcp_types import Request, RequestParams, Result
from pydantic import ConfigDict, TypeAdapter

TASKS = "io.modelcontextprotocol/tasks"
ANY = TypeAdapter(dict[str, Any])


class TaskHandle(Result):
    """CreateTaskResult: the task's first state."""

    model_config = ConfigDict(extra="allow")
    result_type: Literal["task"]


class _Params(RequestParams):
    model_config = ConfigDict(extra="allow", populate_by_name=True)


class TasksGet(Request[_Params, Literal["tasks/get"]]):
    name_param = "taskId"


class TasksUpdate(Request[_Params, Literal["tasks/update"]]):
    name_param = "taskId"


class TasksCancel(Request[_Params, Literal["tasks/cancel"]]):
    name_param = "taskId"


class TasksResult(Request[_Params, Literal["tasks/result"]]):
    name_param = "taskId"


def request(kind: type[Request[Any, Any]], method: str, **params: Any) -> Request[Any, Any]:
    return kind(method=method, params=_Params(**params))


class TasksClient(ClientExtension):
    identifier = TASKS

    def __init__(self, answer: Callable[[dict[str, Any]], dict[str, Any]] | None = None, timeout: float = 60) -> None:
        self.answer, self.timeout = answer, timeout
        #: Every task state seen, in order (the handle first).
        self.seen: list[dict[str, Any]] = []

    def claims(self) -> list[ResultClaim[Any]]:
        return [ResultClaim(result_type="task", model=TaskHandle, resolve=self.resolve)]

    async def resolve(self, handle: TaskHandle, ctx: ClaimContext) -> CallToolResult:
        state = handle.model_dump(by_alias=True, mode="json")
        self.seen.append(state)
        answered: set[str] = set()
        async with asyncio.timeout(self.timeout):
            while True:
                state = await ctx.session.send_request(request(TasksGet, "tasks/get", taskId=state["taskId"]), ANY)
                self.seen.append(state)
                if state["status"] == "completed":
                    return CallToolResult.model_validate(state["result"])
                if state["status"] in ("cancelled", "failed"):
                    return CallToolResult(content=[], is_error=True, structured_content={"task": state})
                if state["status"] == "input_required" and self.answer is not None:
                    fresh = {k: v for k, v in state["inputRequests"].items() if k not in answered}
                    if fresh:
                        answers = {k: self.answer(v) for k, v in fresh.items()}
                        answered |= set(fresh)
                        await ctx.session.send_request(request(TasksUpdate, "tasks/update", taskId=state["taskId"],
                                                               inputResponses=answers), ANY)
                await asyncio.sleep(state.get("pollIntervalMs", 1000) / 1000)

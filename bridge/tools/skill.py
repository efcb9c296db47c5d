"""skill_* tools: the skills recorded on this bridge (bridge/skills/format.py), and replaying one without a model."""

from typing import Any

from bridge.errors import BridgeError
from bridge.state import BridgeState
from bridge.tools.base import Tool, acting, read_only
from bridge.tools.outputs import obj
from bridge.tools.page_handle import Page


def _service(holder: BridgeState | Page) -> Any:
    if holder.skills is None:
        raise BridgeError("Skills are not set up on this bridge.", code="not_available")
    return holder.skills


async def skill_list(state: BridgeState, scope: str | None = None) -> dict[str, Any]:
    """Recorded skills (`scope`: one origin or app): name, params with defaults, steps, stop condition."""
    return {"skills": [s.summary() for s in await _service(state).skills.list(scope)]}


async def skill_run(
    page: Page,
    name: str,
    params: dict[str, str] | None = None,
) -> dict[str, Any]:
    """Replay a recorded skill in one call (no model); fails naming the step that found no single element.
    Checks its stop condition."""
    return await _service(page).run(name, params or {}, page.page_id, page.ctx)


TOOLS = [
    Tool(skill_list, read_only("List skills"), output=obj(skills="list")),
    Tool(skill_run, acting("Run a skill", open_world=True),
         output=obj("until:?str", "trace:str", "run:str", skill="str", revision="int", state="str", steps="list",
                    ms="num")),
]

"""skill_* tools: the skills recorded on this bridge (bridge/skills/format.py), and replaying one without a model.
They get the bridge's skill service (bridge/skills/service.py) and nothing else."""

from typing import Any

from mcp.server.mcpserver import Context

from bridge.errors import BridgeError
from bridge.tools.base import PageId, Tool, acting, read_only
from bridge.tools.outputs import obj


def _service(skills: Any) -> Any:
    if skills is None:
        raise BridgeError("Skills are not set up on this bridge.", code="not_available")
    return skills


async def skill_list(skills: Any, scope: str | None = None) -> dict[str, Any]:
    """Recorded skills (`scope`: one origin or app): name, params with defaults, steps, stop condition."""
    return {"skills": [s.summary() for s in await _service(skills).skills.list(scope)]}


async def skill_run(
    skills: Any,
    name: str,
    params: dict[str, str] | None = None,
    pageId: PageId = None,
    ctx: Context | None = None,
) -> dict[str, Any]:
    """Replay a recorded skill in one call (no model); fails naming the step that found no single element.
    Checks its stop condition."""
    # the page is resolved by the skill service, and only for a page skill: a desktop skill needs none
    return await _service(skills).run(name, params or {}, pageId, ctx)


TOOLS = [
    Tool(skill_list, read_only("List skills"), scope=lambda state: state.skills, output=obj(skills="list")),
    Tool(skill_run, acting("Run a skill", open_world=True), scope=lambda state: state.skills,
         output=obj("until:?str", "trace:str", "run:str", skill="str", revision="int", state="str", steps="list",
                    ms="num")),
]

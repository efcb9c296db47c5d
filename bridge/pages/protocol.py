"""The page-channel wire protocol, typed and versioned. Mirrored by JSDoc typedefs in inject/dbg_client.js.

Every message from a page is parsed here, at the edge; nothing else looks at raw dicts.
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, Union

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

from bridge.pages import commands as m

PROTOCOL_VERSION = 1

#: The commands and their policy live beside their params and results (bridge/pages/commands.py).
COMMAND_TABLE, COMMANDS, Command, ConsentClass = m.COMMAND_TABLE, m.COMMANDS, m.Command, m.ConsentClass
CommandName = Literal[COMMANDS]  # type: ignore[valid-type]

INSTANCE_ID_RE = re.compile(r"^(?:\d{1,5}|[a-z]{2}\d{3})$")
FRAME_ID_RE = re.compile(r"^(?:host|f\d{1,4})$")
PAGE_ID_RE = re.compile(r"^(?P<instance>\d{1,5}|[a-z]{2}\d{3})(?:/(?P<frame>host|f\d{1,4}))?$")

Secret = Annotated[str, Field(min_length=32, max_length=128, pattern=r"^[A-Za-z0-9_-]+$")]
InstanceId = Annotated[str, Field(pattern=INSTANCE_ID_RE.pattern)]
FrameId = Annotated[str, Field(pattern=FRAME_ID_RE.pattern)]
Short = Annotated[str, Field(max_length=4096)]


def shallow(value: Any, limit: int) -> Any:
    """`value` if it nests at most `limit` deep (lists and objects), else ValueError: deeper values would break the
    JSON written to the audit log and the agent's answer."""
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, (dict, list)):
            if depth > limit:
                raise ValueError(f"nested more than {limit} levels deep")
            stack.extend((v, depth + 1) for v in (node.values() if isinstance(node, dict) else node))
    return value


class _Msg(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


# ---- page -> bridge -------------------------------------------------------------------------


class FrameInfo(_Msg):
    """One frame of a page as its host client sees it."""

    frameId: FrameId
    parent: FrameId | None = None
    url: Short = ""
    title: Short = ""
    origin: Short = ""
    crossOrigin: bool = False
    ready: bool = True


class DevError(_Msg):
    """Why the dev server's last hot update failed (a syntax error in the edited file, a module that no longer
    resolves): its message, and where, in the written file (1-based line and column) when the dev server said."""

    message: Annotated[str, Field(max_length=4000)] = ""
    file: Short | None = None
    line: Annotated[int, Field(ge=0)] | None = None
    column: Annotated[int, Field(ge=0)] | None = None


class DevInfo(_Msg):
    """The dev server's hot updates in one tab, counted across its documents: a reload (or navigation) of a tab that
    has a dev server counts as one too, so one count waits for either."""

    #: Which dev server's client the page hooked (vite, webpack).
    server: Annotated[str, Field(max_length=32)] = ""
    #: Updates applied or failed so far: a cursor for page_wait {update: true}.
    updates: Annotated[int, Field(ge=0)] = 0
    #: When the last one came (epoch ms).
    updatedAt: Annotated[int, Field(ge=0)] | None = None
    #: The last one failed: why (None when it applied).
    error: DevError | None = None
    #: The last count was a new document of the tab (a reload or navigation), not a hot update.
    reloaded: bool = False


class RegisterRequest(_Msg):
    """POST /bridge/register, and the first message on a WebSocket."""

    v: int = PROTOCOL_VERSION
    instanceId: InstanceId | None = None
    secret: Secret | None = None
    #: The page unloaded on purpose (reload, navigation) and claims its id back even if it still looks live.
    reclaim: bool = False
    url: Short = ""
    title: Short = ""
    origin: Short = ""
    port: int | None = Field(None, ge=1, le=65535)
    attach: Annotated[str, Field(max_length=64)] = "script"
    frames: list[FrameInfo] = Field(default_factory=list, max_length=256)
    #: False while the document is still parsing (the frame list is not final yet).
    complete: bool = True
    #: This document's identity (random, made at its boot): a navigation's new document registers with another.
    doc: Annotated[str, Field(max_length=64)] | None = None
    #: The how-manieth document of this tab this is (1 at its first load; a reload or same-origin navigation adds 1).
    generation: Annotated[int, Field(ge=0)] | None = None
    #: Its dev server's hot updates so far (None: no dev server client seen yet).
    dev: DevInfo | None = None


class ErrorInfo(_Msg):
    """A failure inside the page: a named code, a message, a stack when there is one."""

    code: Annotated[str, Field(max_length=64)] = "page_exception"
    message: Annotated[str, Field(max_length=16384)] = ""
    stack: Annotated[str, Field(max_length=16384)] | None = None
    size: int | None = None


class ResultMsg(_Msg):
    """The outcome of one exec, posted to /bridge/result or sent on the WebSocket."""

    type: Literal["result"] = "result"
    requestId: Annotated[str, Field(max_length=64)]
    ok: bool
    result: Annotated[Any, AfterValidator(lambda v: shallow(v, 200))] = None
    error: ErrorInfo | None = None


class FramesMsg(_Msg):
    """The page's frame list changed."""

    type: Literal["frames"]
    frames: list[FrameInfo] = Field(max_length=256)
    url: Short | None = None
    title: Short | None = None
    #: False while the document is still parsing: more frames may follow, so an unlisted frame is not gone yet.
    complete: bool = True


class ByeMsg(_Msg):
    """The page is unloading (reload, navigation or close); `to` is where it navigates, when the browser said."""

    type: Literal["bye"]
    to: Short | None = None


class LeavingMsg(_Msg):
    """A navigation away from this document started (`to`: where), or, `stayed`, ended without a new document
    (a 204, a download, an intercepted navigation): until then new calls wait for the next document."""

    type: Literal["leaving"]
    to: Short | None = None
    stayed: bool = False


class RecordedTarget(_Msg):
    """An element a recorded step acted on, as a replay finds it again: role + accessible name, then its text,
    then a stable selector (inject/recorder.js)."""

    role: Annotated[str, Field(max_length=60)] = ""
    name: Short = ""
    text: Short = ""
    selector: Short = ""
    tag: Annotated[str, Field(max_length=60)] = ""
    #: The field's label (or placeholder, aria-label, name): what a parameter is named after.
    label: Short = ""
    inputType: Annotated[str, Field(max_length=40)] = ""


class RecordedStep(_Msg):
    """One thing the human did while a recording was on (an `event` of kind `recorded` carries it as `data`).
    `seq` counts per recording across the tab's documents (a reloaded page sends its last steps again: the bridge
    takes each once); a password's fill has `secret` and no value."""

    seq: Annotated[int, Field(ge=0)]
    action: Literal["click", "dblclick", "fill", "select", "check", "uncheck", "press", "load"]
    frame: FrameId = "host"
    url: Short = ""
    t: Annotated[int, Field(ge=0)] = 0
    target: RecordedTarget | None = None
    value: Annotated[str, Field(max_length=100_000)] | None = None
    secret: bool = False
    key: Annotated[str, Field(max_length=100)] | None = None


class EventMsg(_Msg):
    """Something the human did in the page: answered a question, sent a message, picked an element, asked to
    open a file, recorded a step of a skill (`recorded`: `data` is a RecordedStep), asked to start or stop a
    recording. The page retries it until acknowledged, like a result; `eventId` (unique per page) lets the
    bridge take each event once and acknowledge the copies."""

    type: Literal["event"]
    eventId: Annotated[str, Field(min_length=1, max_length=64)] | None = None
    kind: Literal["answer", "message", "element_selected", "open_file", "recorded", "record_start", "record_stop"]
    questionId: Annotated[str, Field(max_length=64)] | None = None
    text: Annotated[str, Field(max_length=8000)] = ""
    data: Annotated[dict[str, Any], AfterValidator(lambda v: shallow(v, 16))] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _step_is_typed(self) -> "EventMsg":
        if self.kind == "recorded":
            RecordedStep.model_validate(self.data)  # a malformed step is a malformed message (4xx), not a late 500
        return self

    def step(self) -> RecordedStep:
        """A `recorded` event's step (validated when the message was parsed)."""
        return RecordedStep.model_validate(self.data)



class ToolsMsg(_Msg):
    """The tab's WebMCP tools changed (every same-origin frame's, each with its frameId): the whole list, at most
    bridge/pages/webmcp.py MAX_TOOLS of `total`. Each entry is checked on its own there (a bad one is dropped, not the
    message)."""

    type: Literal["tools"]
    tools: list[dict[str, Any]] = Field(max_length=256)
    total: int = Field(0, ge=0)


class DevMsg(_Msg):
    """The dev server applied a hot update in the page, or one failed (the tab's count goes up either way)."""

    type: Literal["dev"]
    dev: DevInfo


UP_MESSAGES = (ResultMsg, FramesMsg, ByeMsg, LeavingMsg, EventMsg, ToolsMsg, DevMsg)
UpMessage = Annotated[Union[UP_MESSAGES], Field(discriminator="type")]  # type: ignore[valid-type]
_up = TypeAdapter(UpMessage)


# ---- bridge -> page -------------------------------------------------------------------------


class RegisterReply(_Msg):
    type: Literal["registered"] = "registered"
    v: int = PROTOCOL_VERSION
    instanceId: str
    secret: str
    ttl: float
    heartbeat: float
    maxResult: int
    #: The id the page asked for was taken by a live tab (a duplicated tab gets a fresh one).
    renamed: bool = False
    #: A team bridge's replicas' page-channel URLs (--advertise-url): where the page tries next, in turn, should
    #: this one go away (None: a single bridge).
    replicas: list[str] | None = None


class ExecFrame(_Msg):
    type: Literal["exec"] = "exec"
    requestId: str
    frameId: str
    command: CommandName
    params: dict[str, Any] = Field(default_factory=dict)
    timeout: float


class PingFrame(_Msg):
    type: Literal["ping"] = "ping"


class AckFrame(_Msg):
    """The bridge has these results and events (on the WebSocket; over HTTP the answer to the POST is the
    acknowledgement). The page retries an unacknowledged message until it gets one, so duplicates and stale
    results are acknowledged too. Acks are batched (bridge/routes/page_channel.py ACK_DELAY): one frame per burst
    of calls, not per call."""

    type: Literal["ack"] = "ack"
    requestIds: list[str] = Field(default_factory=list)
    eventIds: list[str] = Field(default_factory=list)


class CancelFrame(_Msg):
    """The call behind an exec was cancelled (or is over): abort its waits and pending actions, close its cards."""

    type: Literal["cancel"] = "cancel"
    requestId: str
    frameId: str
    reason: str = "cancelled"


DownMessage = Union[RegisterReply, ExecFrame, PingFrame, AckFrame, CancelFrame]

#: What the client's JSDoc types mirror (bridge/gen/js_types.py writes them into inject/command_types.js): what a page
#: sends, and what it receives.
UP_MODELS = (FrameInfo, DevError, DevInfo, RegisterRequest, ErrorInfo, *UP_MESSAGES)
DOWN_MODELS = (RegisterReply, ExecFrame, PingFrame, AckFrame, CancelFrame)


class ProtocolError(ValueError):
    """A page sent something that is not a valid message; the text says what was wrong."""


explain = m.explain


class VersionMismatch(ProtocolError):
    """A page speaks another protocol version (an old cached client, or a newer one against an old bridge)."""


def parse_register(raw: str | bytes) -> RegisterRequest:
    try:
        req = RegisterRequest.model_validate_json(raw)
    except ValidationError as exc:
        raise ProtocolError(explain(exc)) from None
    if req.v != PROTOCOL_VERSION:
        raise VersionMismatch(f"this page's client speaks protocol {req.v}, the bridge speaks {PROTOCOL_VERSION}: "
                              "reload the page (hard reload, or clear the cached dbg_client.js) to get the bridge's "
                              "client")
    return req


def parse_up(raw: str | bytes | dict[str, Any]) -> UpMessage:
    try:
        return _up.validate_python(raw) if isinstance(raw, dict) else _up.validate_json(raw)
    except ValidationError as exc:
        raise ProtocolError(explain(exc)) from None


def dump(msg: _Msg) -> str:
    return msg.model_dump_json(exclude_none=True)

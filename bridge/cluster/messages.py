"""What replicas say to each other over Redis pub/sub, typed and versioned like the page channel: every message is
one of these models (`t` names its kind), parsed at the bus's edge (bridge/cluster/bus.py), so handlers get models
and never raw dicts. The Lua scripts (redis_state.py) publish `page`, `gone` and `inbox` themselves, in the same
shapes."""

from __future__ import annotations

from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

VERSION = 1


class _Msg(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True, populate_by_name=True)

    v: int = VERSION


class Down(_Msg):
    """A frame for a page the receiver owns, from the replica that called (`from`)."""

    t: Literal["down"] = "down"
    id: str
    from_: str = Field(alias="from")
    text: str


class Result(_Msg):
    """A page's result, for the replica whose call it answers."""

    t: Literal["result"] = "result"
    id: str
    msg: dict[str, Any]


class Fail(_Msg):
    """A call that could not reach its page (the owner's side): the caller's waiter fails with this."""

    t: Literal["fail"] = "fail"
    id: str
    rid: str
    code: str = "page_disconnected"
    message: str = ""


class Up(_Msg):
    """An up message of the receiver's page that reached another replica (an SSE page's POST behind a balancer)."""

    t: Literal["up"] = "up"
    id: str
    msg: dict[str, Any]


class Page(_Msg):
    """A page's record changed (published by the Lua scripts): owner, epoch, state, since, info."""

    t: Literal["page"] = "page"
    id: str
    owner: str
    epoch: int = 0
    state: str = "reconnecting"
    since: float = 0
    info: str | None = None


class Gone(_Msg):
    t: Literal["gone"] = "gone"
    id: str
    owner: str = ""


class ReplicaDown(_Msg):
    t: Literal["replica_down"] = "replica_down"
    rid: str


class InboxItem(_Msg):
    """An inbox item got its cluster-wide id (published by the Lua script; `item` is its JSON)."""

    t: Literal["inbox"] = "inbox"
    id: int
    item: str = ""


class Mark(_Msg):
    t: Literal["mark"] = "mark"
    ids: list[int]
    status: str


class QuestionOpen(_Msg):
    t: Literal["q_open"] = "q_open"
    q: dict[str, Any]


class QuestionClose(_Msg):
    t: Literal["q_close"] = "q_close"
    id: str


class QuestionAnswer(_Msg):
    """An answer to a question another replica asked (`instance`: the page it was given in, None from a cockpit)."""

    t: Literal["q_answer"] = "q_answer"
    id: str
    answer: Any = None
    via: str
    instance: str | None = None


class Approval(_Msg):
    """A consent approval ("Allow on this origin"): (consent class, origin)."""

    t: Literal["approval"] = "approval"
    pair: tuple[str, str]


Message = Annotated[Union[Down, Result, Fail, Up, Page, Gone, ReplicaDown, InboxItem, Mark, QuestionOpen,
                          QuestionClose, QuestionAnswer, Approval], Field(discriminator="t")]
_message: TypeAdapter[Message] = TypeAdapter(Message)


def parse(raw: str | bytes) -> Message:
    """A message off the bus; raises pydantic's ValidationError when it is not one of these."""
    return _message.validate_json(raw)


Msg = _Msg


def dump(msg: _Msg) -> str:
    return msg.model_dump_json(by_alias=True, exclude_none=True)

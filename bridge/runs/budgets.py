"""What one run may spend, and what it was asked: the request body of POST /v1/runs, parsed at the edge."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field, SecretStr, create_model

from bridge.settings import RUN_BUDGETS, Settings


class _Budgets(BaseModel):
    model_config = {"extra": "forbid"}

    def resolved(self, settings: Settings) -> Any:
        """The run's Limits: each budget asked for, else the bridge's setting."""
        asked = {b.name: getattr(self, b.request) for b in RUN_BUDGETS}
        return Limits(**{b.name: getattr(settings, b.setting) if asked[b.name] is None else asked[b.name]
                         for b in RUN_BUDGETS})


#: Per-run limits a request asks for (`max_steps`, …; None: the bridge's `run_max_*` setting): one field per row of
#: bridge/settings.py RUN_BUDGETS, with its bounds and help.
Budgets = create_model("Budgets", __base__=_Budgets,
                       **{b.request: (b.type | None, b.field(None)) for b in RUN_BUDGETS})  # type: ignore[call-overload]
#: What one run may spend (`steps`, …), as the loop counts it: one field per row of RUN_BUDGETS.
Limits = create_model("Limits", **{b.name: (b.type, ...) for b in RUN_BUDGETS})  # type: ignore[call-overload]


class RunRequest(BaseModel):
    """POST /v1/runs (and agent_run, and the cockpit's quick-run box)."""

    model_config = {"extra": "forbid"}

    task: str = Field(min_length=1, max_length=8000)
    model: str | None = Field(None, min_length=1, max_length=200,
                              description="Model name ('client': the MCP client's own, by sampling).")
    model_url: str | None = Field(None, max_length=2000, pattern=r"^https?://[^\s]+$",
                                  description="This run's OpenAI-compatible endpoint (…/v1); default: the bridge's.")
    model_key: SecretStr | None = Field(None, max_length=4000,
                                        description="This run's API key for its model_url (never in a trace, the "
                                                    "audit or an answer).")
    budgets: Budgets = Field(default_factory=Budgets)
    dryrun: bool = False
    allow: list[str] = Field(default_factory=list, max_length=50,
                             description="Consent classes or tool names/globs used without asking.")

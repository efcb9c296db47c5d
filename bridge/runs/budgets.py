"""What one run may spend, and what it was asked: the request body of POST /v1/runs, parsed at the edge."""

from __future__ import annotations

from pydantic import BaseModel, Field, SecretStr

from bridge.settings import Settings


class Budgets(BaseModel):
    """Per-run limits (defaults: the bridge's run_max_* settings)."""

    model_config = {"extra": "forbid"}

    max_steps: int | None = Field(None, ge=1, le=500, description="Tool calls.")
    max_batches: int | None = Field(None, ge=1, le=100, description="Plans (first, revisions, replans).")
    max_replans: int | None = Field(None, ge=0, le=100, description="Replans after a failure.")
    max_model_calls: int | None = Field(None, ge=1, le=1000, description="Model calls.")
    max_seconds: float | None = Field(None, gt=0, le=86400, description="Wall-clock seconds.")

    def resolved(self, settings: Settings) -> Limits:
        return Limits(
            steps=self.max_steps or settings.run_max_steps,
            batches=self.max_batches or settings.run_max_batches,
            replans=settings.run_max_replans if self.max_replans is None else self.max_replans,
            model_calls=self.max_model_calls or settings.run_max_model_calls,
            seconds=self.max_seconds or settings.run_max_seconds,
        )


class Limits(BaseModel):
    steps: int
    batches: int
    replans: int
    model_calls: int
    seconds: float


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

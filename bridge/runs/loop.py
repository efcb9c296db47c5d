"""One run, in Axion's phases: planning (a numbered plan with stop conditions), executing (one tool call at a
time, each result read before the next), verifying (the stop conditions checked on the live page or desktop, then
a verifier call), replanning (after a failed step or verification). A model that answers, while replanning, that
the task is done already (`finish` with its evidence, or words and no plan) gets one more verification on the page
as it is now (its rewritten stop conditions, if it gave any, then a verdict over what the page shows), which ends
the run done or failed. It ends done, failed, blocked,
needs_clarification or cancelled, within budgets (steps, with a warning at 75 %; batches; replans; model calls;
wall time). The same action with no effect three times gets a nudge; a fourth time, the run is blocked."""

from __future__ import annotations

import asyncio
import json
import logging
import math
import time
from dataclasses import dataclass
from typing import Any

from bridge.human.consent import GRANTED_BY
from bridge.runs import prompts
from bridge.runs.model import Call, Model, ModelError, Reply
from bridge.runs.runs import Run
from bridge.runs.seams import Scope, Seams
from bridge.runs.takeover import CHOICES, Takeover
from bridge.runs.toolbox import Outcome, RunContext, Toolbox
from bridge.errors import BridgeError

log = logging.getLogger("bridge.runs")

#: Characters of a tool result kept in the run's events and trace (the model gets up to prompts.as_data's limit).
EVENT_TEXT = 4000
#: Seconds each stop condition may take to be met when verifying.
CHECK_WAIT = 3
#: Seconds between the events that say a model call is still in flight (the CLI and the cockpit show them).
HEARTBEAT = 5.0
#: Characters of the page's snapshot the last verification shows the verifier.
PAGE_NOW = 6000
NUDGE_AT = 3


class End(Exception):
    """The run reached an end state."""

    def __init__(self, state: str, summary: str) -> None:
        super().__init__(summary)
        self.state, self.summary = state, summary


class Replan(Exception):
    def __init__(self, why: str) -> None:
        super().__init__(why)
        self.why = why


@dataclass
class Services:
    """What a run needs from the bridge, handed in once."""

    road: Any  # the one road into tools (bridge.tools.road.Road)
    state: Any  # the bridge's app-wide objects (bridge.state.BridgeState)
    seams: Seams
    externals: Any = None  # bridge.runs.mcp_servers.McpServers


class Loop:
    def __init__(self, run: Run, model: Model, services: Services, takeover_wait: float) -> None:
        self.run, self.model, self.services = run, model, services
        self.limits = run.limits
        self.allow = run.request.allow
        self.takeover_wait = takeover_wait
        self.toolbox: Toolbox | None = None
        self.messages: list[dict[str, Any]] = []
        self.steps_log: list[str] = []
        self.ctx = RunContext(run.id, self._progress)
        self.page_id: str | None = None
        self.app: str | None = None
        self._repeat: tuple[str, str, int] = ("", "", 0)
        self._nudged = False
        self._warned = False
        #: The human's notes at takeovers, in order (the verifier reads them).
        self.notes: list[str] = []

    # ---- the phases ------------------------------------------------------------------------------------------

    async def drive(self) -> None:
        run = self.run
        # who granted this run's `allow`, for each consent decision it skips (this task's context only)
        GRANTED_BY.set(run.by if run.by in ("terminal", "cockpit") else "config")
        run.emit("run_start", task=run.request.task, model=self.model.name,
                 endpoint=getattr(self.model, "endpoint", None), dryrun=run.request.dryrun,
                 allow=self.allow, by=run.by, limits=self.limits.model_dump(), trace=str(run.trace_path or ""))
        try:
            async with asyncio.timeout(self.limits.seconds):
                await self._phases()
        except End as end:
            self._end(end.state, end.summary)
        except TimeoutError:
            self._end("failed", f"[budget] The run took longer than its {self.limits.seconds:g} s wall-time budget.")
        except ModelError as exc:
            self._end("failed", str(exc))
        except asyncio.CancelledError:
            self._end("cancelled", "Cancelled: the run stopped (in-flight tool calls were cancelled).")
        except Exception as exc:  # the top of a run: a bug still ends it with a trace
            log.exception("run %s failed", run.id)
            self._end("failed", f"[internal_error] The run failed inside the bridge ({type(exc).__name__}: {exc}).")
        finally:
            await self._finished()

    async def _phases(self) -> None:
        scope = self.scope()
        self.toolbox = Toolbox(self.services.road, self.services.externals,
                               await self.services.seams.tools_for(scope))
        await self.toolbox.load()
        context = await self.services.seams.context_for(scope, self.run.request.task)
        self.messages = [{"role": "system", "content": prompts.SYSTEM},
                         {"role": "user", "content": prompts.task_message(self.run.request.task, context, self.allow,
                                                                          self.run.request.dryrun)}]
        await self._plan("planning")
        if self.run.request.dryrun:
            raise End("done", "Dry run: the plan above was made; no tool that is not read-only ran.")
        while True:
            try:
                summary = await self._execute()
                await self._verify(summary)
                raise End("done", summary)
            except Replan as again:
                self._budget("replans", self.limits.replans,
                             f"[budget] {self.limits.replans} replan(s) used and the run still failed: {again.why}")
                self.run.counts["replans"] += 1
                self.run.emit("replan", n=self.run.counts["replans"], why=again.why[:1000])
                self.messages.append({"role": "user", "content": self._replan_prompt(again.why)})
                await self._plan("replanning", again.why)

    async def _plan(self, state: str, why: str = "") -> None:
        """Ask for a plan (read-only tools allowed meanwhile) until `plan` is called; when replanning, the model
        may instead say the task is done (`finish`, or words and no plan): one last verification decides."""
        self.run.set_state(state, why[:300])
        self._budget("batches", self.limits.batches, f"[budget] The run made {self.limits.batches} plan(s), its "
                                                     "batch budget, without finishing.")
        replanning = state == "replanning"
        tools = [prompts.PLAN, *([prompts.FINISH] if replanning else []), prompts.CLARIFY, prompts.FAIL,
                 *[r.openai() for r in self._rows() if r.read_only]]
        for _ in range(3):
            reply = await self._ask(tools)
            call = self._first(reply)
            if call is None:
                lines = [ln.split(".", 1)[1].strip() for ln in reply.text.splitlines()
                         if ln.strip()[:1].isdigit() and "." in ln[:4]]
                if lines:
                    self._set_plan({"steps": lines, "stop_conditions": []}, why)
                    return
                if replanning and reply.text.strip():  # "it is done, the page shows …": check, then decide
                    await self._confirm(reply.text.strip(), reply.text.strip(), None)
                self.messages.append({"role": "user", "content": "Call `plan` with the numbered steps and the stop "
                                                                 "conditions before acting."})
                continue
            if call.name == "finish" and replanning:
                args = call.arguments if call.parsed else {}
                summary = str(args.get("summary") or reply.text.strip() or "Done.")
                self._answer(call, "Checking the page as it is now.")
                await self._confirm(summary, str(args.get("evidence") or ""), args.get("stop_conditions"))
            if call.name == "plan":
                if not call.parsed or not isinstance(call.arguments.get("steps"), list) or not call.arguments["steps"]:
                    self._answer(call, "[invalid_argument] plan.steps: a list of at least one step is required. "
                                       "Call plan again.", error=True)
                    continue
                self._set_plan(call.arguments, why)
                self._answer(call, "Plan recorded. Now act, one tool call at a time.")
                return
            if await self._control(call):
                continue
            if not self._row(call.name) or not self._row(call.name).read_only:
                self._answer(call, f"[not_now] {call.name} cannot run while planning: only read-only tools and "
                                   "plan. Call plan first.", error=True)
                continue
            await self._step(call, phase=state)
        raise End("failed", "[no_plan] The model did not make a plan after 3 asks.")

    async def _execute(self) -> str:
        """Act until the model says it is done (finish, or a reply with no tool call)."""
        self.run.set_state("executing")
        while True:
            tools = [*[r.openai() for r in self._rows()], prompts.FINISH, prompts.FAIL, prompts.CLARIFY,
                     prompts.PAUSE, prompts.PLAN]
            reply = await self._ask(tools)
            call = self._first(reply)
            if call is None:
                return reply.text.strip() or "The model ended without a summary."
            if call.name == "finish":
                args = call.arguments if call.parsed else {}
                summary = str(args.get("summary", ""))
                if args.get("stop_conditions"):
                    self._rewrite(args["stop_conditions"], "the model gave them with finish")
                self._answer(call, "Verifying the stop conditions.")
                return summary or reply.text.strip() or "Done."
            if call.name == "plan":  # the model revises its plan: a new batch
                self._budget("batches", self.limits.batches, f"[budget] The run made {self.limits.batches} "
                                                             "plan(s), its batch budget, without finishing.")
                if call.parsed and isinstance(call.arguments.get("steps"), list) and call.arguments["steps"]:
                    self._set_plan(call.arguments, "the model revised its plan")
                    self._answer(call, "Plan revised.")
                else:
                    self._answer(call, "[invalid_argument] plan.steps: a list of steps is required.", error=True)
                continue
            if await self._control(call):
                continue
            outcome = await self._step(call, phase="executing")
            if outcome.is_error:
                raise Replan(f"step {self.run.counts['steps']} ({call.name}) failed: {outcome.text[:500]}")

    async def _verify(self, summary: str) -> None:
        self.run.set_state("verifying")
        checks = [await self._check(c) for c in (self.run.plan or {}).get("stop_conditions") or []]
        failed = [c for c in checks if not c["met"]]
        self.run.emit("verification", checks=checks, passed=not failed)
        if failed:
            raise Replan("verification failed: " + "; ".join(f"{c['kind']} {c['value']!r} not met ({c['detail']})"
                                                             for c in failed))
        done, reason = await self._verdict(checks, summary)
        if not done:
            raise Replan("the verifier found the task not done: " + reason[:500])

    async def _confirm(self, summary: str, evidence: str, conditions: Any) -> None:
        """The model says the task is done after all: its rewritten stop conditions (if any) must hold on the live
        page, and the verifier judges over what the page shows now. Ends the run either way."""
        self.run.set_state("verifying", "the model says the task is done" + (f": {evidence[:200]}" if evidence
                                                                              else ""))
        rewritten = bool(conditions) and self._rewrite(conditions, "the model gave them after verification failed")
        checks = [await self._check(c) for c in (self.run.plan or {}).get("stop_conditions") or []]
        failed = [c for c in checks if not c["met"]]
        self.run.emit("verification", checks=checks, passed=not failed, final=True)
        if rewritten and failed:
            raise End("failed", "[not_done] The model said the task is done, but its own stop conditions do not hold "
                                "on the page now: " + "; ".join(f"{c['kind']} {c['value']!r}" for c in failed) + ".")
        page_now = await self._page_now()
        done, reason = await self._verdict(checks, summary + (f" Evidence: {evidence}" if evidence and evidence !=
                                                              summary else ""), page_now, stale=not rewritten)
        if not done:
            raise End("failed", f"[not_done] The model said the task is done, but a check of the page as it is now "
                                f"disagrees: {reason[:500]}")
        raise End("done", summary)

    async def _verdict(self, checks: list[dict[str, Any]], summary: str, page_now: str | None = None,
                       stale: bool = False) -> tuple[bool, str]:
        """Ask the verifier; (done, reason)."""
        evidence = "\n".join(self.steps_log[-12:]) or "(no steps)"
        shown = "\n".join(f"{c['kind']} {c['value']!r}: {'met' if c['met'] else 'NOT met'} ({c['detail']})"
                          for c in checks) or "(none given)"
        if stale and any(not c["met"] for c in checks):
            shown += "\n(the agent says these were written before it knew what done looks like)"
        notes = "".join(f"\n- {n}" for n in self.notes)
        content = (f"Task: {self.run.request.task}\n\nPlan:\n{prompts.plan_text(self.run.plan or {})}\n\nSteps:\n"
                   f"{prompts.as_data('steps', evidence)}\n\n"
                   + (f"The human's notes:{prompts.as_data('human', notes)}\n\n" if notes else "")
                   + f"Stop conditions:\n{shown}\n\n"
                   + (f"The page now:\n{prompts.as_data('page_snapshot', page_now)}\n\n" if page_now else "")
                   + f"The agent says: {summary}")
        messages = [{"role": "system", "content": prompts.VERIFIER}, {"role": "user", "content": content}]
        reply = await self._ask([prompts.VERDICT], messages, keep=False)
        call = self._first(reply, answer_rest=False)
        verdict = call.arguments if call is not None and call.name == "verdict" and call.parsed else None
        done = bool(verdict and verdict.get("done") is True)
        reason = str((verdict or {}).get("reason") or reply.text or "no verdict given")
        self.run.emit("verdict", done=done, reason=reason[:1000])
        return done, reason

    async def _page_now(self) -> str | None:
        """The run's page as it is now (its snapshot's text), through the same tool path; None without a page."""
        assert self.toolbox is not None
        if "page_snapshot" not in self.toolbox.rows:
            return None
        args: dict[str, Any] = {"pageId": self.page_id} if self.page_id else {}
        self.run.emit("tool_call", step=None, phase="verifying", tool="page_snapshot", args=args)
        outcome = await self.toolbox.call("page_snapshot", args, self.ctx, self.allow)
        self.run.emit("tool_result", step=None, tool="page_snapshot", ok=not outcome.is_error, code=outcome.code,
                      ms=round(outcome.ms, 1), text=outcome.text[:EVENT_TEXT])
        if outcome.is_error:
            return None
        tree = (outcome.structured or {}).get("tree") if isinstance(outcome.structured, dict) else None
        text = tree if isinstance(tree, str) and tree else outcome.text
        return text[:PAGE_NOW]

    # ---- one step --------------------------------------------------------------------------------------------

    async def _step(self, call: Call, phase: str) -> Outcome:
        assert self.toolbox is not None
        self._budget("steps", self.limits.steps, f"[budget] The run used its {self.limits.steps} steps without "
                                                 "finishing.")
        self.run.counts["steps"] += 1
        n = self.run.counts["steps"]
        self._note_target(call)
        shown_args = self._summary(call.arguments)
        self.run.emit("tool_call", step=n, phase=phase, tool=call.name, args=shown_args)
        if not call.parsed:
            outcome = Outcome(f"[invalid_argument] {call.name}'s arguments are not a JSON object: {call.raw[:200]!r}. "
                              "Send them as a JSON object.", True)
        else:
            outcome = await self.toolbox.call(call.name, call.arguments, self.ctx, self.allow)
        if outcome.coerced:
            self.services.state.audit.human("coerced", self.page_id, tool=call.name, run=self.run.id,
                                                 coerced=outcome.coerced)
        event = {"step": n, "tool": call.name, "ok": not outcome.is_error, "code": outcome.code,
                 "ms": round(outcome.ms, 1), "text": outcome.text[:EVENT_TEXT]}
        if outcome.coerced:
            event["coerced"] = outcome.coerced
        if outcome.images:
            self.run.keep_image(n, *outcome.images[0])
            event["image"] = outcome.images[0][0]
        self.run.emit("tool_result", **event)
        self.steps_log.append(f"{n}. {call.name} {json.dumps(shown_args, ensure_ascii=False)[:200]} → "
                              f"{'error ' if outcome.is_error else ''}{outcome.text[:300]}")
        text = ("; ".join(outcome.coerced) + "\n" if outcome.coerced else "") + prompts.as_data(call.name, outcome.text)
        text += self._stagnation(call, outcome)
        text += self._warning()
        self._answer(call, text, error=outcome.is_error)
        return outcome

    def _stagnation(self, call: Call, outcome: Outcome) -> str:
        """The same call with the same answer (or an error) again: a nudge at the third, blocked at the fourth."""
        fingerprint = call.name + json.dumps(call.arguments, sort_keys=True, default=str)
        last_fp, last_text, count = self._repeat
        same = fingerprint == last_fp and (outcome.is_error or outcome.text == last_text)
        count = count + 1 if same else 1
        self._repeat = (fingerprint, outcome.text, count)
        if count > NUDGE_AT and self._nudged:
            raise End("blocked", f"[no_progress] {call.name} was called {count} times with the same arguments and "
                                 "no effect, after a nudge. A human should look (the trace has every step).")
        if count == NUDGE_AT:
            self._nudged = True
            self.run.emit("nudge", tool=call.name, times=count)
            return (f"\n[no_progress] You called {call.name} {count} times with the same arguments and nothing "
                    "changed. Do something different: another tool or target, a revised plan, or pause_for_human. "
                    "The same call again ends the run as blocked.")
        return ""

    def _warning(self) -> str:
        used, limit = self.run.counts["steps"], self.limits.steps
        if self._warned or used < math.ceil(limit * 0.75):
            return ""
        self._warned = True
        self.run.emit("budget_warning", budget="steps", used=used, limit=limit)
        return (f"\n[budget_warning] {used} of {limit} steps used. Finish with what you have, or pause_for_human; "
                f"the run fails after step {limit}.")

    # ---- the control tools -----------------------------------------------------------------------------------

    async def _control(self, call: Call) -> bool:
        """fail, ask_clarification and pause_for_human; False for any other tool."""
        args = call.arguments if call.parsed else {}
        if call.name == "fail":
            raise End("failed", f"The agent gave up: {args.get('reason') or 'no reason given'}")
        if call.name == "ask_clarification":
            raise End("needs_clarification", str(args.get("question") or "The task is ambiguous."))
        if call.name == "pause_for_human":
            answer = await self._takeover(str(args.get("reason") or "The agent needs the human."),
                                          str(args.get("question") or ""))
            note = f" Their note: {answer['note']}" if answer["note"] else ""
            if answer["note"]:
                self.notes.append(answer["note"])
                note += (" If the note changes what done looks like, give the stop conditions that hold then with "
                         "`finish` (they replace the plan's).")
            if answer["via"] == "page":
                note = f" (answered in the page: the page's scripts could have answered it){note}"
            who = "The human"
            if answer["via"] == "mcp":  # tasks/update from the client that started the run: the agent's word
                who = "The MCP client that started this run (not the human at the cockpit or terminal)"
            words = {"resume": f"{who} is done and says: resume where you were.",
                     "skip": f"{who} says: skip this step and go on with the next one."}
            self._answer(call, words[answer["action"]] + note)
            return True
        return False

    async def _takeover(self, reason: str, question: str) -> dict[str, Any]:
        run, state = self.run, self.services.state
        t = Takeover(reason, question)
        run.takeover = t
        card = await self._show_card(t)
        run.set_state("paused", reason)
        run.emit("human", event="pause", takeover=t.row())
        waits: set[asyncio.Future[Any]] = {t.future}
        if card is not None:
            waits.add(card.future)
        try:
            await asyncio.wait(waits, timeout=self.takeover_wait, return_when=asyncio.FIRST_COMPLETED)
            if card is not None and card.future.done() and not card.future.cancelled():
                given = card.answer if isinstance(card.answer, dict) else {"choice": card.answer}
                note = given.get("note") if isinstance(given.get("note"), str) else ""
                t.answer(CHOICES.get(str(given.get("choice")), "resume"), note[:4000], card.via or "page")
            if not t.answered:
                raise End("blocked", f"[takeover_timeout] Nobody answered the takeover ({reason}) within "
                                     f"{self.takeover_wait:g} s.")
        finally:
            if card is not None and card.open:
                state.background.spawn(state.asking.dismiss(card))
            run.takeover = None
        answer = t.future.result()
        run.emit("human", event="answer", takeoverId=t.id, action=answer["action"], note=answer["note"],
                 via=answer["via"])
        if answer["action"] == "abort":
            raise End("cancelled", f"The human aborted the run at the takeover ({reason})."
                                   + (f" Note: {answer['note']}" if answer["note"] else ""))
        run.set_state("executing", f"the human answered {answer['action']}")
        return answer

    async def _show_card(self, t: Takeover) -> Any:
        """A Resume/Skip/Abort card in the run's page (None when no page is connected)."""
        state = self.services.state
        try:
            target = state.dispatcher.resolve(self.page_id)
            q = state.questions.ask("choice", f"The agent hands over: {t.reason}" + (f" — {t.question}" if t.question
                                                                                  else ""),
                                target.inst.id, list(CHOICES), "Do what is needed in the page, then choose.")
            await state.dispatcher.call_page(f"{target.inst.id}/host", "ask", {**q.frame(), "note": True}, 10)
        except BridgeError as exc:
            log.info("takeover card not shown in a page: %s", exc)
            return None
        t.card = q
        return q

    # ---- the model -------------------------------------------------------------------------------------------

    async def _ask(self, tools: list[dict[str, Any]], messages: list[dict[str, Any]] | None = None,
                   keep: bool = True) -> Reply:
        self._budget("model_calls", self.limits.model_calls, f"[budget] The run made its {self.limits.model_calls} "
                                                             "model calls without finishing.")
        self.run.counts["model_calls"] += 1
        n, phase = self.run.counts["model_calls"], self.run.state
        self.run.emit("model_start", n=n, phase=phase)
        beat = asyncio.get_running_loop().create_task(self._heartbeat(n, phase))
        try:
            reply = await self.model.complete(messages or self.messages, tools)
        finally:
            beat.cancel()
        self.run.counts["prompt_tokens"] += reply.prompt_tokens
        self.run.counts["completion_tokens"] += reply.completion_tokens
        self.run.emit("model_call", n=self.run.counts["model_calls"], phase=self.run.state, ms=round(reply.ms, 1),
                      prompt_tokens=reply.prompt_tokens, completion_tokens=reply.completion_tokens,
                      retries=reply.retries, calls=[c.name for c in reply.calls])
        if reply.text.strip():
            self.run.emit("message", text=reply.text.strip()[:EVENT_TEXT])
        if keep:
            # content is always a string: llama-cpp-python's server (and other strict ones) refuse null
            msg: dict[str, Any] = {"role": "assistant", "content": reply.text or ""}
            if reply.calls:
                msg["tool_calls"] = [{"id": c.id, "type": "function", "function": {
                    "name": c.name, "arguments": c.raw or json.dumps(c.arguments)}} for c in reply.calls]
            self.messages.append(msg)
        return reply

    async def _heartbeat(self, n: int, phase: str) -> None:
        """While model call `n` is in flight: a model_wait event every HEARTBEAT s (with the characters streamed)."""
        started = time.monotonic()
        while True:
            await asyncio.sleep(HEARTBEAT)
            received = getattr(self.model, "received", None)
            self.run.emit("model_wait", n=n, phase=phase, seconds=round(time.monotonic() - started),
                          **({"received": received} if self.model_streams and received is not None else {}))

    @property
    def model_streams(self) -> bool:
        return bool(getattr(self.model, "stream", False))

    def _first(self, reply: Reply, answer_rest: bool = True) -> Call | None:
        """The reply's first tool call; the others are answered as not run (one call at a time)."""
        if not reply.calls:
            return None
        first, rest = reply.calls[0], reply.calls[1:]
        if answer_rest:
            for c in rest:
                self._answer(c, f"[not_run] One call at a time: only {first.name} ran. Send {c.name} again after "
                                "reading its result.", error=True)
        return first

    def _answer(self, call: Call, text: str, error: bool = False) -> None:
        """The tool message for `call` (OpenAI requires one per tool call id)."""
        # insert right after the assistant message holding this call, before any later answers
        self.messages.append({"role": "tool", "tool_call_id": call.id, "name": call.name, "content": text})

    # ---- helpers ---------------------------------------------------------------------------------------------

    def _budget(self, counter: str, limit: int, text: str) -> None:
        if self.run.counts[counter] >= limit:
            raise End("failed", text)

    def _set_plan(self, plan: dict[str, Any], why: str = "") -> None:
        self.run.counts["batches"] += 1
        self.run.plan = {"steps": [prompts.step_text(str(s)) for s in plan["steps"]][:20],
                         "stop_conditions": _conditions(plan.get("stop_conditions")),
                         "batch": self.run.counts["batches"]}
        self.run.emit("plan_created", **self.run.plan, text=prompts.plan_text(self.run.plan), why=why)

    def _rewrite(self, conditions: Any, why: str) -> bool:
        """Replace the plan's stop conditions (the model's, e.g. after the human's note); False if none were valid."""
        valid = _conditions(conditions)
        if not valid:
            return False
        plan = self.run.plan or {"steps": [], "batch": self.run.counts["batches"]}
        self.run.plan = {**plan, "stop_conditions": valid}
        self.run.emit("stop_conditions", conditions=valid, why=why,
                      text="\n".join(prompts.plan_text({"stop_conditions": valid}).splitlines()))
        return True

    def _replan_prompt(self, why: str) -> str:
        return (f"That failed: {why}\nThe plan was:\n{prompts.plan_text(self.run.plan or {})}\nSteps so far:\n"
                f"{prompts.as_data('steps', chr(10).join(self.steps_log[-12:]) or '(none)')}\n"
                "Call `plan` with a revised plan (or pause_for_human, or fail). If the task is done already and the "
                "page shows it, call `finish` with the evidence and the stop conditions that hold now: the bridge "
                "checks the page once more and the run ends.")

    async def _check(self, cond: dict[str, Any]) -> dict[str, Any]:
        """One stop condition against the live page or desktop, through the same tool path (audited)."""
        assert self.toolbox is not None
        kind, value = cond["kind"], cond["value"]
        page = cond.get("pageId") or self.page_id
        tool, args = {"text": ("page_wait", {"text": value}), "selector": ("page_wait", {"selector": value}),
                      "url": ("page_wait", {"url": value}),
                      "window": ("desktop_wait_for_window", {"title": value}),
                      "element": ("desktop_wait_for_element", {"target": value})}[kind]
        args["timeout"] = CHECK_WAIT
        if tool.startswith("page_") and page:
            args["pageId"] = page
        if tool not in self.toolbox.rows:
            return {"kind": kind, "value": value, "met": False, "detail": f"{tool} is not available in this run"}
        self.run.emit("tool_call", step=None, phase="verifying", tool=tool, args=args)
        outcome = await self.toolbox.call(tool, args, self.ctx, self.allow)
        met = not outcome.is_error and '"met": false' not in outcome.text
        self.run.emit("tool_result", step=None, tool=tool, ok=not outcome.is_error, code=outcome.code,
                      ms=round(outcome.ms, 1), text=outcome.text[:EVENT_TEXT])
        return {"kind": kind, "value": value, "met": met, "detail": outcome.text[:200]}

    def _rows(self) -> list[Any]:
        assert self.toolbox is not None
        return list(self.toolbox.rows.values())

    def _row(self, name: str) -> Any:
        assert self.toolbox is not None
        return self.toolbox.rows.get(name)

    def _note_target(self, call: Call) -> None:
        if call.parsed:
            page = call.arguments.get("pageId")
            if isinstance(page, str) and page:
                self.page_id = page
            if call.name == "desktop_launch_app" and isinstance(call.arguments.get("name"), str):
                self.app = call.arguments["name"]

    def scope(self) -> Scope:
        """The page origin the run addresses (its last pageId, else the one tab) and the desktop app."""
        try:
            inst = self.services.state.dispatcher.resolve(self.page_id).inst
            origin = inst.verified_origin or inst.origin
        except BridgeError:
            origin = None
        return Scope(origin=origin, app=self.app)

    def _summary(self, args: Any) -> Any:
        return self.services.state.audit.summarise(args) if isinstance(args, dict) else str(args)[:200]

    def _progress(self, progress: float, total: float | None, message: str | None) -> None:
        self.run.emit("progress", progress=progress, total=total, message=message)

    def _end(self, state: str, summary: str) -> None:
        run = self.run
        run.summary = summary
        run.set_state(state)
        run.ended = time.time()
        run.emit("run_done", state=state, summary=summary, totals=dict(run.counts),
                 seconds=round(run.ended - run.created, 2))
        run.trace.close()

    async def _finished(self) -> None:
        close = getattr(self.model, "close", None)
        if close is not None:
            await close()
        where = self.scope()  # memory keeps what the run learned per origin/app
        await asyncio.shield(self.services.seams.run_finished(
            {**self.run.row(), "scope": {"origin": where.origin, "app": where.app}}, list(self.run.events)))


def _conditions(raw: Any) -> list[dict[str, Any]]:
    """The well-formed stop conditions of a plan or finish call (at most 10)."""
    return [c for c in raw or [] if isinstance(c, dict) and c.get("kind") in prompts.STOP_KINDS
            and isinstance(c.get("value"), str)][:10] if isinstance(raw, list) else []

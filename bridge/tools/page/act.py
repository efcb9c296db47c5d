"""The one act pipeline: page_act, page_exec(command='act') and a skill's replayed steps (through page_act) run an act
here, in one order — the ref's frame, the command's policy (its tool enabled, its params checked, consent when it
would submit a form), the upload (the human's consent, then the files read), the desktop hand-over (an action the
page hands back as `pending` sent as real input on the bridge's desktop, then the act resumed), then what broke
meanwhile at the lines written (bridge/tools/page/problems.py) — and answer alike.

The agent's params (`ActParams`) are apart from the bridge's plumbing (`ActWire`: checkTimeout, desktop, resume,
failed, uploads), which only this module fills in."""

from __future__ import annotations

from typing import Any

from bridge import errors
from bridge.pages import commands as m
from bridge.tools.page import desktop, problems, upload
from bridge.tools.page.handle import Page, in_frame


async def act(page: Page, given: m.ActParams | dict[str, Any] | None, timeout: float) -> dict[str, Any]:
    """Run an act in `page` for the agent: its answer, with the pageId it ran in (a ref's frame)."""
    params = m.parse_params("act", given)
    assert isinstance(params, m.ActParams)
    if params.actions is None and params.action is None:
        raise errors.BridgeError("Give `action` (with a target) or `actions` (a batch).", code="invalid_argument")
    page, params = in_frame(page, params)
    checked = await page.guard("act", params, timeout)  # policy: enabled, params, consent if it would submit
    uploads = await upload.files_of(page, params)  # the human's consent, then the files read
    desk = desktop.running(page) if params.trusted is not False else None
    # the page's share of the time: actionability waits within it, and the answer still comes inside `timeout`
    plumbing: dict[str, Any] = {"checkTimeout": max(0.5, timeout - 2)}
    if uploads is not None:
        plumbing["uploads"] = uploads
    if desk is not None:
        plumbing["desktop"] = True
    out = await page.call("act", m.ActWire.model_validate({**m.to_wire(checked), **plumbing}), timeout)
    while out.get("pending") and desk is not None:  # an action handed over for real input on the desktop
        failed = await desktop.send(page, desk, out["pending"])
        out = await page.call("act", m.ActWire(resume=out["pending"]["token"], failed=failed or None), timeout)
    for note in ("untrusted", "trusted"):  # what kind of input it was: said the first time, not in every answer
        if note in out and not page.first_time(f"page_act.{note}"):
            del out[note]
    return {"pageId": page.page_id, **await problems.with_report(page, out)}  # what broke, at the lines written

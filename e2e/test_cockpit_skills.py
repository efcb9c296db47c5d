"""The cockpit's Skills & memory tab in real Chromium: Record and Stop a tab from the cockpit, the skill listed, the
facts a skill run taught shown (marked from page), edited and deleted by the human, and what the planner would
read changing with them."""

from __future__ import annotations

from pathlib import Path

import httpx2

from bridge.server.principals import terminal_headers
from e2e.test_cockpit import open_app, open_cockpit
from tests.support import ok


def test_record_in_the_cockpit_then_review_edit_and_delete_what_runs_learned(context, bridge, dev, mcp, tmp_path):
    app = open_app(context, dev, "/signin.html")
    cockpit = open_cockpit(context, bridge, "skills")
    cockpit.locator(f'#record-page option[value="{app.page_id}"]').wait_for(state="attached")
    cockpit.select_option("#record-page", app.page_id)
    cockpit.fill("#record-name", "wrong-password")
    cockpit.click("#record-start")
    cockpit.locator("#record-note", has_text="Recording wrong-password").wait_for()
    app.locator("dbg-human [data-recording='wrong-password']").wait_for()  # the tab says it records

    app.click("#email")
    app.keyboard.type("eve@example.com")
    app.click("text=Sign in >> nth=-1")
    app.locator("#out", has_text="Wrong password").wait_for()
    cockpit.locator("#record-note", has_text="2 steps so far").wait_for()
    cockpit.fill("#record-until", "Wrong password")
    cockpit.click("#record-stop")
    cockpit.locator("#record-note", has_text="Saved skill wrong-password (3 steps)").wait_for()
    cockpit.locator("#skills tr[data-skill='wrong-password']", has_text="email=eve@example.com").wait_for()

    # a skill run teaches memory; the facts show in the cockpit, marked as page data
    assert ok(mcp.call("skill_run", {"name": "wrong-password", "pageId": app.page_id}))["state"] == "done"
    facts = cockpit.locator("#facts tr.fact.affordance")
    facts.first.wait_for()
    assert "from page" in facts.first.inner_text()
    origin = app.evaluate("location.origin")
    headers = {"Authorization": f"Bearer {bridge.token}", **terminal_headers(bridge.config_dir)}  # the human's
    before = httpx2.get(f"{bridge.base}/v1/memory", params={"scope": origin}, headers=headers).json()
    fact_id = cockpit.locator("#facts tr.fact").first.get_attribute("data-fact")
    count = len(before["facts"])

    # the human rewrites one fact and deletes another: the planner's block follows
    row = cockpit.locator(f"#facts tr[data-fact='{fact_id}']")
    row.locator("input").fill("Sign in stays on the page and says Wrong password for a bad password")
    row.locator("[data-action=save-fact]").click()
    cockpit.locator("#record-note", has_text=f"Saved {fact_id}").wait_for()
    shot = tmp_path / "cockpit-skills.png"  # docs/cockpit-skills.png is this picture
    cockpit.screenshot(path=str(shot), full_page=True)
    after = httpx2.get(f"{bridge.base}/v1/memory", params={"scope": origin}, headers=headers).json()
    edited = next(f for f in after["facts"] if f["id"] == fact_id)
    assert edited["source"] == "human" and "says Wrong password" in after["context"]
    other = next(f["id"] for f in after["facts"] if f["id"] != fact_id)
    cockpit.locator(f"#facts tr[data-fact='{other}'] [data-action=forget-fact]").click()
    cockpit.locator(f"#facts tr[data-fact='{other}']").wait_for(state="detached")
    final = httpx2.get(f"{bridge.base}/v1/memory", params={"scope": origin}, headers=headers).json()
    assert len(final["facts"]) == count - 1 and other not in {f["id"] for f in final["facts"]}
    assert Path(shot).stat().st_size > 10_000


def test_recording_over_an_existing_skill_is_confirmed_in_the_cockpit(context, bridge, dev):
    headers = {"Authorization": f"Bearer {bridge.token}", **terminal_headers(bridge.config_dir)}  # the human's
    mine = {"name": "kept", "scope": dev.url("").rstrip("/"),
            "steps": [{"action": "goto", "url": dev.url("/signin.html")}]}
    assert httpx2.put(f"{bridge.base}/v1/skills/kept", json=mine, headers=headers).status_code == 200
    app = open_app(context, dev, "/signin.html")
    refused = httpx2.post(f"{bridge.base}/v1/recordings", json={"name": "kept", "pageId": app.page_id},
                          headers=headers)
    assert refused.status_code == 409 and refused.json()["error"]["code"] == "skill_exists", refused.text
    assert "--overwrite" in refused.json()["error"]["message"]
    cockpit = open_cockpit(context, bridge, "skills")
    cockpit.locator(f'#record-page option[value="{app.page_id}"]').wait_for(state="attached")
    cockpit.select_option("#record-page", app.page_id)
    cockpit.fill("#record-name", "kept")
    asked: list[str] = []
    cockpit.once("dialog", lambda d: (asked.append(d.message), d.dismiss()))
    cockpit.click("#record-start")
    cockpit.locator("#record-note", has_text="exists").wait_for()
    assert asked and "Replace the skill kept?" in asked[0]
    assert app.locator("dbg-human [data-recording]").count() == 0  # declined: nothing records
    cockpit.once("dialog", lambda d: d.accept())
    cockpit.click("#record-start")
    cockpit.locator("#record-note", has_text="Recording kept").wait_for()
    app.locator("dbg-human [data-recording='kept']").wait_for()
    stopped = httpx2.post(f"{bridge.base}/v1/recordings/kept/stop", json={}, headers=headers).json()
    assert stopped["state"] == "failed"  # nothing recorded: the human's skill is still there
    assert httpx2.get(f"{bridge.base}/v1/skills/kept", headers=headers).json()["revision"] == 1

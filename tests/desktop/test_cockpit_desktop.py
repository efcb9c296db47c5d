"""The cockpit's Desktop tab in real Chromium: a live view of the display the bridge works on (a cookie-guarded PNG)
and, on an attached display, the switch through which the human grants and revokes the agent's input. The "human's
display" is a second Xvfb (with openbox and its own D-Bus) that the test starts; the bridge attaches to it."""

from __future__ import annotations

import sys
from collections.abc import Iterator

import httpx
import pytest

from bridge.desktop import session as sessions
from tests.desktop.conftest import GTK_APP
from tests.support import BridgeProcess, McpSession, ok, text_of, wait_until


@pytest.fixture(scope="module")
def human_display() -> Iterator[sessions.Session]:
    display = sessions.start_private((800, 600))
    yield display
    display.stop()


@pytest.fixture(scope="module")
def attached(human_display, tmp_path_factory) -> Iterator[BridgeProcess]:
    env = {key: human_display.env[key] for key in ("XAUTHORITY", "DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR")}
    proc = BridgeProcess(tmp_path_factory.mktemp("attached"), env={
        **env, "DBG_DESKTOP_DISPLAY": human_display.display, "DBG_DESKTOP_ALLOW": sys.executable}).start()
    yield proc
    proc.stop()


def refused(result) -> str:
    assert result.is_error, text_of(result)
    return text_of(result)


def test_the_desktop_tab_shows_the_display_live_and_its_switch_grants_then_revokes_input(attached, browser):
    mcp = McpSession(attached.mcp_url, attached.token)
    ctx = browser.new_context()
    http = httpx.Client(base_url=attached.base, timeout=15)
    try:
        assert http.get("/cockpit/desktop.png").status_code == 403  # no cookie
        status = ok(mcp.call("desktop_status"))
        assert status["mode"] == "attached" and status["input"] == "needs the human's consent"
        assert "[consent_required]" in refused(mcp.call("desktop_click", {"x": 5, "y": 5}))

        http.get("/")  # the cockpit's cookie
        own = {"Sec-Fetch-Site": "same-origin"}
        before = http.get("/cockpit/desktop.png", headers=own)
        assert before.status_code == 200 and before.headers["content-type"] == "image/png"
        assert before.content[:8] == b"\x89PNG\r\n\x1a\n"
        assert http.get("/cockpit/desktop.png", headers={"Sec-Fetch-Site": "same-site"}).status_code == 403

        cockpit = ctx.new_page()
        cockpit.goto(attached.base + "/#desktop")
        cockpit.locator("#status[data-state=live]").wait_for(timeout=10000)
        view = cockpit.locator("#desktop-view")
        view.and_(cockpit.locator("[data-frames]")).wait_for(timeout=10000)  # the CSP forbids wait_for_function
        assert view.is_visible() and cockpit.locator("#desktop-idle").is_hidden()
        switch = cockpit.locator("#consent-switch")
        assert not switch.is_checked() and "only look" in cockpit.locator("#consent-left").text_content()

        cockpit.locator("#consent-minutes").select_option("5")
        switch.check()
        cockpit.locator("#consent-left", has_text="left)").wait_for(timeout=5000)
        status = ok(mcp.call("desktop_status"))
        assert status["input"] == "allowed" and status["inputUntil"] > 0
        launched = ok(mcp.call("desktop_launch_app", {"argv": [*GTK_APP, "--title", "Consented App"]}))
        clicked = ok(mcp.call("desktop_click", {"target": {"role": "button", "name": "Greet"},
                                                "window": "Consented App"}))
        assert clicked["input"] == "pointer" and launched["windows"]
        # the live view changes with the action
        wait_until(lambda: http.get("/cockpit/desktop.png", headers=own).content != before.content, 10,
                   what="the desktop PNG to change")
        seen = int(view.get_attribute("data-frames"))
        wait_until(lambda: int(view.get_attribute("data-frames")) > seen, 5, what="the live view's next frame")

        switch.uncheck()
        cockpit.locator("#consent-left", has_text="only look").wait_for(timeout=5000)
        assert "[consent_required]" in refused(mcp.call("desktop_click", {"x": 5, "y": 5}))
        assert "[consent_required]" in refused(mcp.call("desktop_start_recording"))

        lines = attached.audit()
        human = [(r["action"], r.get("minutes")) for r in lines if r["kind"] == "cockpit"]
        assert human == [("desktop input granted", 5), ("desktop input revoked", None)]
        assert all(r["display"] == attached.env["DBG_DESKTOP_DISPLAY"] for r in lines if r["kind"] == "cockpit")
        cockpit.goto(attached.base + "/#activity")  # the feed shows the grant too
        cockpit.locator("#feed tr.k-cockpit", has_text="desktop input granted").wait_for(timeout=5000)
    finally:
        http.close()
        ctx.close()
        mcp.close()


def test_consent_posts_need_the_cookie_and_a_valid_duration(attached):
    with httpx.Client(base_url=attached.base, timeout=15) as http:
        own = {"Origin": attached.base}
        assert http.post("/cockpit/desktop/consent", json={"granted": True}, headers=own).status_code == 403
        http.get("/")
        for body in ({"granted": "yes"}, {"granted": True, "minutes": 0}, {"granted": True, "minutes": 241},
                     {"granted": True, "minutes": 1.5}):
            res = http.post("/cockpit/desktop/consent", json=body, headers=own)
            assert res.status_code == 400, body
        res = http.post("/cockpit/desktop/consent", json={"granted": False}, headers=own)
        assert res.status_code == 200 and res.json() == {"input": {"granted": False, "until": None}}

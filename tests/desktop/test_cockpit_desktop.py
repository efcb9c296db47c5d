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
        **env, "DBG_DESKTOP_ENABLED": "1", "DBG_DESKTOP_DISPLAY": human_display.display, "DBG_DESKTOP_ALLOW": sys.executable,
        "DBG_DESKTOP_HANDBACK_IDLE": "0"}).start()
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


def test_the_humans_own_input_takes_the_desktop_and_the_cockpit_hands_it_back(attached, human_display, monkeypatch):
    """A second X client moving the pointer plays the human: the bridge's own XTest input does not take the desktop,
    the other client's does; the agent's input is then refused [user_control] until the cockpit hands it back."""
    from Xlib import X
    from Xlib import display as xdisplay
    from Xlib.ext import xtest

    mcp = McpSession(attached.mcp_url, attached.token)
    http = httpx.Client(base_url=attached.base, timeout=15)
    monkeypatch.setenv("XAUTHORITY", human_display.env["XAUTHORITY"])
    hand = xdisplay.Display(human_display.display)
    try:
        own = {"Origin": attached.base}
        http.get("/")
        assert http.post("/cockpit/desktop/consent", json={"granted": True, "minutes": 5}, headers=own).is_success
        status = ok(mcp.call("desktop_status"))
        assert status["control"]["holder"] == "agent" and status["input"] == "allowed"
        for x in (40, 200, 400):  # the agent's own pointer input, all over the screen
            ok(mcp.call("desktop_click", {"x": x, "y": 300}))
        ok(mcp.call("desktop_hotkey", {"keys": "shift"}))
        assert ok(mcp.call("desktop_status"))["control"]["holder"] == "agent"

        xtest.fake_input(hand, X.MotionNotify, x=123, y=234)  # the human moves the mouse
        hand.sync()
        wait_until(lambda: ok(mcp.call("desktop_status"))["control"]["holder"] == "human", 5,
                   what="the desktop to pass to the human")
        status = ok(mcp.call("desktop_status"))
        assert status["input"] == "the human has the desktop" and "pointer" in status["control"]["reason"]
        err = refused(mcp.call("desktop_click", {"x": 5, "y": 5}))
        assert err.startswith("[user_control]") and "cockpit" in err and "desktop_status" in err
        assert "[user_control]" in refused(mcp.call("desktop_type_text", {"value": "x"}))
        assert not mcp.call("desktop_screenshot").is_error  # looking is still fine
        items = ok(mcp.call("inbox", {"kinds": ["desktop_control"]}))["items"]
        assert [i["data"]["holder"] for i in items] == ["human"] and items[0]["from"] == "human"

        assert http.post("/cockpit/desktop/control", json={"holder": "human"}, headers=own).status_code == 400
        back = http.post("/cockpit/desktop/control", json={"holder": "agent"}, headers=own)
        assert back.status_code == 200 and back.json()["control"]["holder"] == "agent"
        ok(mcp.call("desktop_click", {"x": 60, "y": 300}))
        items = ok(mcp.call("inbox", {"kinds": ["desktop_control"]}))["items"]
        assert [i["data"]["holder"] for i in items] == ["human", "agent"]
        assert ("desktop handed back", attached.env["DBG_DESKTOP_DISPLAY"]) in [
            (r["action"], r["display"]) for r in attached.audit() if r["kind"] == "cockpit"]
    finally:
        hand.close()
        http.post("/cockpit/desktop/consent", json={"granted": False}, headers={"Origin": attached.base})
        http.close()
        mcp.close()

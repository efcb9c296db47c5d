"""Page recording as a person does it: `dbg-bridge record` in a terminal, real input in the tab (typing, a password, a
checkbox in a same-origin frame, a reload mid-way), Stop and the stop condition from the page's own panel; the
skill it saves (a password is a secret parameter, never written anywhere), replayed by `dbg-bridge skill run`; the
panel's Record card (Alt+Shift+R) starts one too."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import Any

from bridge.server.principals import terminal_headers
from tests.support import CONNECTED, ROOT, open_page, wait_until


def cli(bridge: Any, *args: str, **kw: Any) -> subprocess.Popen[str]:
    env = {**os.environ, "DBG_CONFIG_DIR": str(bridge.config_dir)}
    env.pop("DBG_PORT", None)
    return subprocess.Popen([sys.executable, "-m", "bridge", *args, "--port", str(bridge.port)], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def test_record_in_the_terminal_stop_in_the_panel_then_replay_with_a_secret(bridge, dev, context):
    page = open_page(context, dev.url("/signin.html"))
    page.frame_locator("#prefs").locator("#remember").wait_for()
    rec = cli(bridge, "record", "sign-in", "--page", page.page_id)
    assert rec.stdout is not None
    first = rec.stdout.readline()
    assert first.startswith("Recording 'sign-in' in tab"), first + rec.stderr.read() if rec.poll() else first
    page.locator("dbg-human [data-recording]").wait_for()

    page.click("#email")
    page.keyboard.type("first@example.com")
    page.reload()  # the human reloads mid-way: the recording goes on in the new document
    page.wait_for_function(CONNECTED)
    page.locator("dbg-human [data-recording]").wait_for()
    page.click("#email")
    page.keyboard.type("ada@example.com")
    page.click("#pw")
    page.keyboard.type("correct horse")
    page.frame_locator("#prefs").locator("#remember").click()  # in a same-origin frame
    page.click("text=Sign in >> nth=-1")
    page.locator("#out", has_text="Welcome, ada@example.com (remembered)").wait_for()

    # Stop in the panel: it asks what shows it worked, prefilled with the last text that appeared
    page.click("dbg-human [data-answer=stop-recording]")
    until = page.locator("dbg-human input[aria-label='Text seen at the end']")
    assert until.input_value() == "Welcome, ada@example.com (remembered)"
    page.click("dbg-human [data-answer=save-skill]")
    out, err = rec.communicate(timeout=30)
    assert rec.returncode == 0, err
    assert "Saved skill 'sign-in'" in out and "fill textbox 'Password' = ••••" in out

    skill_file = bridge.config_dir / "skills" / "sign-in.json"
    text = skill_file.read_text()
    assert "correct horse" not in text  # the password never left the page
    skill = json.loads(text)
    params = {p["name"]: p for p in skill["params"]}
    assert params["password"] == {"name": "password", "secret": True, "label": "Password"}
    assert {p.get("default") for p in params.values()} >= {"first@example.com", "ada@example.com"}
    actions = [(s["action"], s["frame"]) for s in skill["steps"]]
    assert actions == [("goto", "host"), ("fill", "host"), ("goto", "host"), ("fill", "host"), ("fill", "host"),
                       ("check", "f0"), ("click", "host")]
    email = next(n for n, p in params.items() if p.get("default") == "ada@example.com")
    assert skill["until"] == {"text": "Welcome, {{" + email + "}} (remembered)"}

    # replay on a fresh tab from the terminal: the secret is asked for, the other values have defaults
    fresh = open_page(context, dev.url("/signin.html"))
    missing = cli(bridge, "skill", "run", "sign-in", "--page", fresh.page_id)
    _, err = missing.communicate(timeout=60)
    assert missing.returncode == 1 and "[missing_param]" in err and "password" in err
    run = cli(bridge, "skill", "run", "sign-in", "--page", fresh.page_id, "--param", "password=hunter22",
              "--param", f"{email}=grace@example.com")
    out, err = run.communicate(timeout=60)
    assert run.returncode == 0, err
    assert "text 'Welcome, grace@example.com (remembered)' seen" in out
    fresh.wait_for_function(CONNECTED)
    assert fresh.locator("#out").text_content() == "Welcome, grace@example.com (remembered)"
    assert fresh.frame_locator("#prefs").locator("#remember").is_checked()
    trace = out.rsplit("trace ", 1)[1].strip()
    assert "hunter22" not in open(trace).read() and "hunter22" not in bridge.audit(raw=True)
    assert any(r.get("tool") == "page_act" for r in bridge.audit())  # each replayed step is audited
    # the skill run is one of the runs the terminal lists and prints, like an agent run
    run_id = os.path.basename(trace).removesuffix(".jsonl")
    runs = [sys.executable, "-m", "bridge", "runs", "--config-dir", str(bridge.config_dir)]
    assert run_id in subprocess.run(runs, cwd=ROOT, capture_output=True, text=True, timeout=30).stdout
    shown = subprocess.run([*runs[:4], "show", run_id, *runs[4:]], cwd=ROOT, capture_output=True, text=True,
                           timeout=30).stdout
    assert f"run {run_id}: skill sign-in" in shown and "DONE: 7 steps; text 'Welcome, grace@example.com" in shown


def test_the_panel_record_card_starts_a_recording(bridge, dev, context):
    import httpx2

    page = open_page(context, dev.url("/signin.html"))
    page.keyboard.press("Alt+Shift+R")
    page.locator("dbg-human input[aria-label='Skill name']").fill("from-panel")
    page.click("dbg-human [data-answer=record]")
    page.locator("dbg-human [data-recording='from-panel']").wait_for()
    page.click("#email")
    page.keyboard.type("x@example.com")
    page.keyboard.press("Enter")
    headers = {"Authorization": f"Bearer {bridge.token}", **terminal_headers(bridge.config_dir)}  # the human's
    wait_until(lambda: httpx2.get(f"{bridge.base}/v1/recordings/from-panel", headers=headers).json()["steps"] >= 2,
               what="the panel's recording reaches the bridge")
    done = httpx2.post(f"{bridge.base}/v1/recordings/from-panel/stop", headers=headers, json={}).json()
    assert done["state"] == "saved" and done["skill"]["params"] == {"email": "x@example.com"}
    assert done["recent"] == ["fill textbox 'Email' = 'x@example.com'", "press textbox 'Email' Enter"]
    assert page.locator("dbg-human [data-recording]").count() == 0  # the page stopped too


def test_skill_list_show_edit_and_delete_from_the_terminal_with_and_without_a_bridge(bridge, tmp_path):
    import httpx2

    headers = {"Authorization": f"Bearer {bridge.token}", **terminal_headers(bridge.config_dir)}  # the human's
    doc = {"name": "term", "scope": "http://a.test", "params": [{"name": "who", "default": "Ada"}],
           "steps": [{"action": "goto", "url": "http://a.test/"},
                     {"action": "fill", "target": {"selector": "#who"}, "value": "{{who}}"}]}
    assert httpx2.put(f"{bridge.base}/v1/skills/term", json=doc, headers=headers).status_code == 200

    def run(*args: str, editor: str = "true", port: int | None = None) -> subprocess.CompletedProcess[str]:
        env = {**os.environ, "DBG_CONFIG_DIR": str(bridge.config_dir), "EDITOR": editor}
        env.pop("VISUAL", None)
        return subprocess.run([sys.executable, "-m", "bridge", *args, "--port", str(port or bridge.port)], cwd=ROOT,
                              env=env, capture_output=True, text=True, timeout=60)

    listed = run("skill", "list")
    assert listed.returncode == 0 and "term" in listed.stdout and "who='Ada'" in listed.stdout
    assert json.loads(run("skill", "show", "term").stdout)["steps"][1]["value"] == "{{who}}"
    edited = run("skill", "edit", "term", editor="sed -i s/Ada/Grace/")
    assert edited.returncode == 0 and "revision 2" in edited.stdout, edited.stderr
    bad = run("skill", "edit", "term", editor="sed -i s/fill/teleport/")
    assert bad.returncode == 1 and "[bad_skill]" in bad.stderr
    assert json.loads(run("skill", "show", "term").stdout)["params"][0]["default"] == "Grace"
    # no bridge at this port: the config dir itself
    from tests.support import free_port

    offline = run("skill", "list", port=free_port())
    assert offline.returncode == 0 and "term" in offline.stdout
    assert run("skill", "delete", "term").returncode == 0
    gone = run("skill", "show", "term")
    assert gone.returncode == 1 and "[unknown_skill]" in gone.stderr


def test_a_recording_goes_on_across_a_link_to_another_page_and_the_replay_follows_it(bridge, dev, context):
    import httpx2

    headers = {"Authorization": f"Bearer {bridge.token}", **terminal_headers(bridge.config_dir)}  # the human's
    page = open_page(context, dev.url("/wizard.html"))
    r = httpx2.post(f"{bridge.base}/v1/recordings", json={"name": "wizard", "pageId": page.page_id}, headers=headers)
    assert r.status_code == 200, r.text
    page.click("#item")
    page.keyboard.type("teapot")
    page.click("#next")  # a link: the next document goes on recording
    page.wait_for_url("**/wizard2.html")
    page.wait_for_function(CONNECTED)
    page.click("#city")
    page.keyboard.type("Leeds")
    page.click("#finish")
    page.locator("#done", has_text="Ordered teapot to Leeds").wait_for()
    wait_until(lambda: httpx2.get(f"{bridge.base}/v1/recordings/wizard", headers=headers).json()["steps"] >= 5,
               what="the second page's steps")
    done = httpx2.post(f"{bridge.base}/v1/recordings/wizard/stop", headers=headers,
                       json={"until": {"text": "Ordered teapot to Leeds"}}).json()
    assert done["state"] == "saved", done
    skill = httpx2.get(f"{bridge.base}/v1/skills/wizard", headers=headers).json()
    assert [s["action"] for s in skill["steps"]] == ["goto", "fill", "click", "fill", "click"]  # the link's load
    assert skill["until"] == {"text": "Ordered {{item}} to {{city}}"}                      # is the click's

    fresh = open_page(context, dev.url("/wizard.html"))
    out = httpx2.post(f"{bridge.base}/v1/skills/wizard/run", headers=headers, timeout=60,
                      json={"pageId": fresh.page_id, "params": {"item": "kettle", "city": "York"}}).json()
    assert out["state"] == "done", out
    fresh.wait_for_function(CONNECTED)
    assert fresh.locator("#done").text_content() == "Ordered kettle to York"

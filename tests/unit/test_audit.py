"""The audit trace: one JSON line per record, rotation by size, summaries that never carry a secret."""

import asyncio
import json
import stat
from asyncio import events as asyncio_events

import pytest

from bridge import errors
from bridge.audit import Audit
from tests.support import run_async


@pytest.fixture(autouse=True)
def no_running_loop():
    """These tests are scripts without an event loop (records written at once). Sync Playwright, when e2e tests ran
    earlier in this process, leaves its loop set as this thread's running loop: put it aside meanwhile."""
    held = asyncio_events._get_running_loop()
    asyncio_events._set_running_loop(None)
    yield
    asyncio_events._set_running_loop(held)


def lines(path):
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_each_tool_call_is_one_line_with_tool_page_outcome_and_duration(tmp_path):
    audit = Audit(tmp_path / "audit.jsonl")
    audit.tool_call("page_exec", {"pageId": "5173/host", "code": "1 + 1", "timeout": None}, 12.345, value={"result": 2})
    audit.tool_call("page_list", {}, 0.2, value={"pages": [{"pageId": "ab123/host"}]})
    audit.tool_call("page_act", {"action": "click"}, 3, value={"pageId": "5173/f0"})
    audit.tool_call("page_exec", {"pageId": "x/host", "code": "boom"}, 4,
                    error=errors.UnknownPage("No page 'x/host' is known.\nCall page_list."))
    ok1, ok2, ok3, failed = lines(tmp_path / "audit.jsonl")
    assert ok1["kind"] == "tool" and ok1["tool"] == "page_exec" and ok1["pageId"] == "5173/host"
    assert ok1["args"] == {"code": "1 + 1"} and ok1["outcome"] == "ok" and ok1["ms"] == 12.3
    assert ok2["pageId"] is None and ok3["pageId"] == "5173/f0"  # the resolved page, when the result names it
    assert failed["outcome"] == "error" and failed["code"] == "unknown_page"
    assert failed["message"] == "[unknown_page] No page 'x/host' is known."
    assert len({r["id"] for r in (ok1, ok2, ok3, failed)}) == 4


def test_arguments_are_summarised_long_strings_cut_and_secrets_never_written(tmp_path):
    page_secret = "pAgE-sEcReT_" + "7" * 31  # the shape the bridge issues: 32+ URL-safe characters
    audit = Audit(tmp_path / "audit.jsonl", secrets_of=lambda: frozenset({page_secret}))
    audit.secrets.add("bearer-token-abcdefghij")
    audit.tool_call("page_exec", {
        "code": "x" * 5000,
        "args": ["uses bearer-token-abcdefghij", f"and {page_secret}", f"glued:x{page_secret}x"],
        "headers": {"Authorization": "Bearer zzzzzzzzzzzz", "X-Api-Key": "k"},
        "password": "hunter2", "params": {"sessionToken": "s"},
    }, 1, value=None)
    audit.tool_call("page_act", {"action": "fill", "selector": "#pw", "value": "correct horse battery"}, 1, value=None)
    audit.tool_call("desktop_type_text", {"text": "typed on the desktop"}, 1, value=None)
    audit.human("inbox", "5173/host", text="my Authorization is Bearer abcdefghijklmnop, token=qwertyuiop")
    raw = (tmp_path / "audit.jsonl").read_text()
    for secret in ("bearer-token-abcdefghij", page_secret, "zzzzzzzzzzzz", "hunter2",
                   "correct horse battery", "typed on the desktop", "abcdefghijklmnop", "qwertyuiop"):
        assert secret not in raw, secret
    exec_line, act_line, desktop_line, human_line = lines(tmp_path / "audit.jsonl")
    assert desktop_line["args"] == {"text": "<20 chars>"}
    assert len(exec_line["args"]["code"]) < 260 and exec_line["args"]["code"].endswith("(5000 chars)")
    assert exec_line["args"]["headers"] == {"Authorization": "<redacted>", "X-Api-Key": "<redacted>"}
    assert exec_line["args"]["password"] == "<redacted>" and exec_line["args"]["params"]["sessionToken"] == "<redacted>"
    assert act_line["args"]["value"] == "<21 chars>" and act_line["args"]["selector"] == "#pw"
    assert "<redacted>" in human_line["text"]


def test_the_log_rotates_by_size_and_keeps_at_most_the_configured_number_of_old_files(tmp_path):
    path = tmp_path / "audit.jsonl"
    audit = Audit(path, max_bytes=2000, keep=2)
    for n in range(300):
        audit.human("inbox", None, text=f"message {n}")
    audit.close()
    files = sorted(p.name for p in tmp_path.iterdir())
    assert files == ["audit.jsonl", "audit.jsonl.1", "audit.jsonl.2"]
    assert all((tmp_path / f).stat().st_size <= 2000 for f in files)
    newest, older = lines(path), lines(tmp_path / "audit.jsonl.1")
    assert newest[-1]["text"] == "message 299" and older[-1]["text"] == f"message {int(newest[0]['text'].split()[1]) - 1}"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_keep_zero_keeps_only_the_current_file(tmp_path):
    audit = Audit(tmp_path / "audit.jsonl", max_bytes=500, keep=0)
    for n in range(50):
        audit.human("inbox", None, text=f"m{n}")
    assert [p.name for p in tmp_path.iterdir()] == ["audit.jsonl"]


def test_records_fan_out_to_live_listeners_and_stay_in_memory_without_a_file(tmp_path):
    async def main():
        audit = Audit(None)
        queue = audit.listen(maxsize=1)
        audit.human("consent", "5173/host", decision="Deny", via="cockpit")
        audit.human("consent", "5173/host", decision="Allow once", via="page")  # the full queue drops, never blocks
        return queue.get_nowait(), list(audit.recent)

    first, recent = run_async(main())
    assert first["decision"] == "Deny" and [r["decision"] for r in recent] == ["Deny", "Allow once"]
    assert list(tmp_path.iterdir()) == []


def test_an_unwritable_log_disables_the_file_but_not_the_live_feed(tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("")
    audit = Audit(blocker / "audit.jsonl")
    audit.human("inbox", None, text="a")
    audit.human("inbox", None, text="b")
    assert [r["text"] for r in audit.recent] == ["a", "b"]


def test_page_secrets_are_redacted_among_ten_thousand_without_scanning_them_all(tmp_path):
    import secrets as pysecrets

    many = frozenset(pysecrets.token_urlsafe(32) for _ in range(10_000))
    one = next(iter(many))
    audit = Audit(tmp_path / "audit.jsonl", secrets_of=lambda: many)
    audit.tool_call("page_exec", {"code": f"fetch('/x/{one}/y')"}, 1, value=None)
    raw = (tmp_path / "audit.jsonl").read_text()
    assert one not in raw and "/x/<redacted>/y" in raw


def test_inside_the_event_loop_lines_wait_for_a_flush_and_close_writes_what_is_left(tmp_path):
    from bridge.audit import FLUSH_AFTER, MAX_BUFFERED

    path = tmp_path / "audit.jsonl"

    async def main():
        audit = Audit(path)
        audit.human("inbox", None, text="first")
        audit.human("inbox", None, text="second")
        held = path.exists() and path.read_text()
        live = [r["text"] for r in audit.recent]  # the cockpit sees records at once
        timer = audit._timer
        due = timer.when() - asyncio.get_running_loop().time() if timer else None
        audit.flush()
        flushed = [r["text"] for r in lines(path)]
        audit.human("inbox", None, text="third")
        audit.close()  # the app's shutdown
        closed = [r["text"] for r in lines(path)]
        for n in range(MAX_BUFFERED):  # a full buffer is written without waiting for the timer
            audit.human("inbox", None, text=f"m{n}")
        full = len(lines(path))
        audit.close()
        return held, live, due, flushed, closed, full

    held, live, due, flushed, closed, full = run_async(main())
    assert not held and live == ["first", "second"] and due is not None and 0 < due <= FLUSH_AFTER
    assert flushed == ["first", "second"] and closed == ["first", "second", "third"]
    assert full == 3 + MAX_BUFFERED

"""Fault injection, both channels: concurrent page_exec calls while tabs reload, close, navigate away and back, go
offline, and the bridge is killed and restarted. No result lost, none taken twice, every failure named within 1 s
of its fault, and no failure that says "nothing ran" about a call that did run. bench/faults.py runs it at scale."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.faults import FaultRun
from tests.support import BridgeProcess, Bridges, DevServer


@pytest.fixture
def own(bridge_process: Bridges) -> Iterator[tuple[BridgeProcess, DevServer]]:
    proc = bridge_process()
    dev = DevServer(proc.client_js())
    yield proc, dev
    dev.close()


def test_no_result_is_lost_or_doubled_and_every_failure_is_named_at_once(own, context):
    bridge, dev = own
    report = FaultRun(bridge, dev, context, tabs=4, callers=4, calls=300).run()
    s = report.summary()
    print(s)
    assert s["calls"] >= 300 and s["ok"] > s["calls"] * 0.6, s
    assert set(s["faults"]) >= {"reload", "navigate", "offline", "close", "kill"}, s
    assert s["lost"] == 0 and s["duplicates"] == 0 and s["false_nothing_ran"] == 0, s
    assert s["unexplained"] == 0 and s["named_within_max_s"] <= 1.0, (s, [
        (c.code, round(report.named_within(c) or -1, 2), c.text[:160]) for c in report.calls
        if not c.ok and (report.named_within(c) or 99) > 1.0])
    assert set(s["codes"]) <= {"page_unloaded", "page_reloaded", "page_disconnected", "frame_reloaded",
                               "frame_removed", "transport"}, s

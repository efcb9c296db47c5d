"""A run's trace: one JSON line per event; a run that never wrote run_done reads back as interrupted."""

import json

from bridge.runs import trace


def test_a_finished_trace_reads_back_as_its_row_and_a_torn_one_as_interrupted(tmp_path):
    folder = trace.runs_dir(tmp_path)
    t = trace.Trace(folder / "r1.jsonl")
    t.write({"type": "run_start", "run": "r1", "task": "x", "t": 1.0})
    t.write({"type": "run_done", "run": "r1", "state": "done", "summary": "ok", "totals": {"steps": 2}, "t": 2.0})
    t.close()
    (folder / "r2.jsonl").write_text(json.dumps({"type": "run_start", "run": "r2", "task": "y", "t": 3.0}) + "\n{torn")
    rows = trace.history(tmp_path)
    assert [r["id"] for r in rows] == ["r2", "r1"]
    assert rows[0]["state"] == "interrupted" and rows[1]["state"] == "done" and rows[1]["totals"] == {"steps": 2}
    assert len(trace.read(folder / "r2.jsonl")) == 1
    assert (folder / "r1.jsonl").stat().st_mode & 0o077 == 0


def test_no_runs_folder_is_no_history(tmp_path):
    assert trace.history(tmp_path) == []

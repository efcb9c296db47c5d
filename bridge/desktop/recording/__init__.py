"""Recording the human's desktop input as replayable desktop_* steps: recorder.py (events in, steps out), steps.py
(events to steps), probe.py (what is under a click, where focus is)."""

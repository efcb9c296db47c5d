"""Skills and memory: the skill format and its store, compilers from a page recording, a desktop recording and a run,
replay without a model, recordings in progress, memory's facts, their traces and the seam that offers them to runs.
May import errors, settings, state, pages, the one road into tools (bridge/tools/road.py: replayed steps are tool
calls as over /mcp) and runs' seams and trace; nothing below imports it.
"""

"""The agent on the bridge: runs (the `agent` branch), skills and memory (recording.py, skills.py, skill_*.py,
memory.py), built on the same tool table, consent rules, audit and error shape as `/mcp`."""

"""The AT-SPI helper process: `python -m bridge.desktop.atspi.host` serves bridge/desktop/atspi/accessibility.py over
stdin/stdout, one JSON object per line: {"id", "op", "args"} → {"id", "ok": true, "result"} or
{"id", "ok": false, "code", "message"}. It exits when stdin closes (the bridge went away or stopped the desktop)."""

from __future__ import annotations

import json
import os
import sys
from typing import Any


def main() -> int:
    # answers go to a private copy of the pipe; fd 1 itself points at stderr, so nothing a library prints (C or
    # Python) can corrupt the protocol
    out = os.fdopen(os.dup(1), "w", encoding="utf-8")
    os.dup2(2, 1)
    sys.stdout = sys.stderr

    def send(answer: dict[str, Any]) -> None:
        out.write(json.dumps(answer, ensure_ascii=False, default=str) + "\n")
        out.flush()

    try:
        from bridge.desktop.atspi.accessibility import Accessibility, DesktopError

        a11y = Accessibility()
    except Exception as exc:  # noqa: BLE001 - reported to the bridge, which says what to install
        send({"id": 0, "ok": False, "code": "not_available", "message": f"{type(exc).__name__}: {exc}"})
        return 1
    send({"id": 0, "ok": True, "result": "ready"})
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        try:
            result = getattr(a11y, "op_" + req["op"])(**req.get("args", {}))
            send({"id": req["id"], "ok": True, "result": result})
        except DesktopError as exc:
            send({"id": req["id"], "ok": False, "code": exc.code, "message": str(exc)})
        except Exception as exc:  # noqa: BLE001 - a GLib error from an app that went away, usually
            send({"id": req["id"], "ok": False, "code": "accessibility_error",
                  "message": f"{type(exc).__name__}: {exc}"})
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Opening an X connection the bridge can trust with errors.

python-xlib 0.33's RandR module registers its three error classes at the absolute codes 0, 1 and 2 instead of after
the extension's first error code, and they are plain `Exception`s. Every connection loads RandR when it opens, so
from then on a core `BadValue` (code 2: a GetProperty whose second read starts past a title that shrank in between)
or `BadRequest` (1) is parsed as `BadRRModeError`, which has no sequence number: the reply parser dies on
`AttributeError`, the request stays waiting and the connection hangs for good. `open_display` puts the core classes
back. (RandR's own errors then arrive as plain `XError`s, which is all the bridge needs.)"""

from __future__ import annotations

from Xlib import display as xdisplay
from Xlib import error as xerror

from bridge.desktop.errors import DesktopError


def open_display(name: str) -> xdisplay.Display:
    try:
        d = xdisplay.Display(name)
    except Exception as exc:  # python-xlib raises several kinds here
        raise DesktopError(f"Cannot connect to X display {name}: {exc}. Check desktop_display (or use 'private').",
                           code="desktop_unavailable") from exc
    mend_core_errors(d)
    # errors of requests without a reply (a message to a window that just closed) are expected: do not print them
    d.set_error_handler(lambda *_args: None)
    return d


def mend_core_errors(d: xdisplay.Display) -> None:
    classes = d.display.error_classes
    for code in (1, 2):
        classes[code] = xerror.xerror_class[code]
    classes.pop(0, None)

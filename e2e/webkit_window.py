"""A WebKitGTK browser in one window: `python webkit_window.py URL DATA_DIR`. Runs until it is terminated.

GTK 4 + WebKitGTK 6.0 (Debian's gir1.2-webkit-6.0) through PyGObject. Its own data and cache dirs under DATA_DIR
(a throwaway profile), so nothing is shared with another run. Nothing drives it but the page's dbg-bridge client.
"""

from __future__ import annotations

import signal
import sys

import gi

gi.require_version("Gtk", "4.0")
gi.require_version("WebKit", "6.0")
from gi.repository import GLib, Gtk, WebKit  # noqa: E402 - versions must be required before the import


def main(url: str, data_dir: str) -> int:
    Gtk.init()
    session = WebKit.NetworkSession.new(f"{data_dir}/data", f"{data_dir}/cache")
    view = WebKit.WebView(network_session=session)
    settings = view.get_settings()
    settings.set_enable_developer_extras(False)
    settings.set_javascript_can_open_windows_automatically(True)
    window = Gtk.Window(title="dbg-bridge webkit", default_width=1200, default_height=800)
    window.set_child(view)
    loop = GLib.MainLoop()
    window.connect("close-request", lambda *_: loop.quit() or False)
    # a crashed web process would leave a blank window: exit so the test sees it at once
    view.connect("web-process-terminated", lambda _v, reason: (print(f"web process ended: {reason}", flush=True),
                                                               loop.quit()))
    GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGTERM, lambda: loop.quit() or False)
    window.present()
    view.load_uri(url)
    print(f"webkit {WebKit.get_major_version()}.{WebKit.get_minor_version()}.{WebKit.get_micro_version()} "
          f"gtk {Gtk.get_major_version()}.{Gtk.get_minor_version()}", flush=True)
    loop.run()
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: webkit_window.py URL DATA_DIR")
    sys.exit(main(sys.argv[1], sys.argv[2]))

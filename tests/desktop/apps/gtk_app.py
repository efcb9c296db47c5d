"""A small GTK3 app for the desktop tests: an entry, Greet/Reset buttons, a label, a dialog, two same-named buttons
and a slider (and, with --password, a password entry).

Run with the venv's python (it has PyGObject): `python gtk_app.py [--title TITLE]`.
"""

import argparse

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import Gdk, Gtk


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--title", default="Desktop Test App")
    parser.add_argument("--size", default="420x360")
    parser.add_argument("--password", action="store_true", help="add a password entry under the name entry")
    parser.add_argument("--max-length", type=int, help="add an entry 'Short' that keeps this many characters")
    args = parser.parse_args()
    width, height = (int(n) for n in args.size.split("x"))

    win = Gtk.Window(title=args.title)
    win.set_default_size(width, height)
    win.connect("destroy", Gtk.main_quit)
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=6, margin=10)
    win.add(box)

    entry = Gtk.Entry()
    entry.get_accessible().set_name("Your name")
    box.pack_start(entry, False, False, 0)

    if args.password:  # only on request: the other tests count this app's controls
        secret = Gtk.Entry(visibility=False)
        secret.get_accessible().set_name("Password")
        box.pack_start(secret, False, False, 0)

    if args.max_length:
        short = Gtk.Entry(max_length=args.max_length)
        short.get_accessible().set_name("Short")
        box.pack_start(short, False, False, 0)

    label = Gtk.Label(label="Ready")

    def greet(_button: Gtk.Button) -> None:
        ok, state = Gtk.get_current_event_state()
        held = ok and bool(state & Gdk.ModifierType.CONTROL_MASK)  # a Ctrl+click greets loudly
        label.set_text(f"Hello, {entry.get_text()}!" + (" (ctrl)" if held else ""))
    
    row = Gtk.Box(spacing=6)
    greet_button = Gtk.Button(label="Greet")
    greet_button.connect("clicked", greet)
    reset = Gtk.Button(label="Reset")
    reset.connect("clicked", lambda _b: (entry.set_text(""), label.set_text("Ready")))
    row.pack_start(greet_button, True, True, 0)
    row.pack_start(reset, True, True, 0)
    box.pack_start(row, False, False, 0)
    box.pack_start(label, False, False, 0)

    def open_dialog(_button: Gtk.Button) -> None:
        dialog = Gtk.Dialog(title="Confirm", transient_for=win, modal=True)
        dialog.add_button("OK", Gtk.ResponseType.OK)
        dialog.get_content_area().add(Gtk.Label(label="Are you sure?"))
        dialog.show_all()
        dialog.connect("response", lambda d, r: (label.set_text(f"Dialog: {r == Gtk.ResponseType.OK}"), d.destroy()))

    dialog_button = Gtk.Button(label="Open dialog")
    dialog_button.connect("clicked", open_dialog)
    box.pack_start(dialog_button, False, False, 0)

    twins = Gtk.Box(spacing=6)
    for i in (1, 2):
        twin = Gtk.Button(label="Duplicate")
        twin.connect("clicked", lambda _b, i=i: label.set_text(f"Duplicate {i}"))
        twins.pack_start(twin, True, True, 0)
    box.pack_start(twins, False, False, 0)

    scale = Gtk.Scale.new_with_range(Gtk.Orientation.HORIZONTAL, 0, 100, 1)
    scale.set_value(50)
    scale.get_accessible().set_name("Volume")
    box.pack_start(scale, False, False, 0)

    win.show_all()
    Gtk.main()


if __name__ == "__main__":
    main()

"""The Wayland backend for wlroots compositors that speak sway's IPC (sway, and what speaks i3 IPC): windows and
their geometry from the compositor's tree, pointer input through its seat commands, keys through the
virtual-keyboard protocol (`wtype`), screenshots through screencopy (`grim`), accessibility from AT-SPI with boxes
placed by the window geometry the IPC gives. GNOME's and KDE's compositors speak none of these: they need the
xdg-desktop-portal RemoteDesktop/ScreenCast portals and libei, which this backend does not have (a named gap).
"""

"""The X11 backend: EWMH windows, XTest input, RANDR monitors, RECORD capture and the XInput2 watch of the human's
hands, each in a module of its own; python-xlib loads only when the backend is chosen."""

"""The keyboard, for every backend: key names and chords (keys.py), X keysyms by name and by character (keysyms.py),
and typing that arrives, read back from the field (type_text.py, actions.type_text's body). It may import the
desktop's errors and, lazily, actions (for a field's clickable point); never a backend."""

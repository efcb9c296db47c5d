"""Generated text: the JSDoc wire types for the page client and the docs made from the code (the reference, the
tool tables, the layout map from the packages' docstrings, the site's home page).
May import anything of the bridge but the server's app and the CLI; nothing in the running bridge imports it.
"""

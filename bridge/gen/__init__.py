"""Generated text: the JSDoc wire types for the page client and the tool and settings reference in docs/.
May import anything of the bridge but the server's app and the CLI; nothing in the running bridge imports it.
"""

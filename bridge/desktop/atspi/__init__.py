"""AT-SPI: the accessibility tree (accessibility.py, toolkits.py) served by a helper process (host.py) that the
backends talk to through client.py."""

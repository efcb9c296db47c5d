"""`python -m bridge`: the `dbg-bridge` command."""

from bridge.cli.entry import main

raise SystemExit(main())

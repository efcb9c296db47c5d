from bridge.cli.entry import main

raise SystemExit(main())

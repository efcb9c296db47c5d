from bridge.cli.main import main

raise SystemExit(main())

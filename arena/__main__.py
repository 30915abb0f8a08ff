from arena.front.cli import main

raise SystemExit(main())

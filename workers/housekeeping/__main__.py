from workers.housekeeping.main import main

raise SystemExit(main())

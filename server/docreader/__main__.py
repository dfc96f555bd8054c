from server.docreader.server import main

raise SystemExit(main())

from server.docreader.server import main

main()

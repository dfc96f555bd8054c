"""Parses run in a child process with a memory cap and a time limit, so a hostile file can
crash or exhaust only its own child, never the docreader that serves the other requests."""

"""Guards that keep hostile files from exhausting the docreader: limits, zip and XML checks."""

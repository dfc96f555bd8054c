"""FAQ knowledge bases' entries: writing them and their index rows (single creates in the
API, imports and clones in the workers)."""

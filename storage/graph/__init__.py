"""The knowledge graph: its store protocol (store.py) and the SQL store behind it."""

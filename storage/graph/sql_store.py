"""The graph store on SQL: PostgreSQL in full mode, SQLite in lite mode, the tables of
storage/db/models/graph.py."""

from __future__ import annotations

from storage.db.engine import Database
from storage.graph.sql_move import SqlGraphMove
from storage.graph.sql_reads import SqlGraphReads
from storage.graph.sql_writes import SqlGraphWrites


class SqlGraphStore(SqlGraphMove, SqlGraphReads):
    """GraphStore on the process's database: writes in sql_writes.py (a knowledge's move in
    sql_move.py), reads in sql_reads.py."""

    def __init__(self, db: Database) -> None:
        SqlGraphWrites.__init__(self, db)
        SqlGraphReads.__init__(self, db)

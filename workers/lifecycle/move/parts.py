"""What a knowledge's move uses of its process's parts."""

from __future__ import annotations

from typing import Protocol

from storage.db.engine import Database
from workers.lifecycle.parts import RestartParts


class MoveParts(RestartParts, Protocol):
    """A reparse's parts (the reparse mode restarts the round in the target) and the
    database the job's rows and the move's commit point are written in."""

    @property
    def db(self) -> Database: ...

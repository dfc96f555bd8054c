"""How a knowledge moves to another knowledge base (MoveKnowledge's MoveMode)."""

from __future__ import annotations

from enum import StrEnum


class MoveMode(StrEnum):
    # The index rows are relabelled to the target (one collection): nothing is embedded.
    REUSE_VECTORS = "reuse_vectors"
    # The knowledge's products are removed and it is processed again in the target.
    REPARSE = "reparse"

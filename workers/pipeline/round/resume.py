"""Resuming a round: which parse a round's chunks belong to, and the plan it goes on with.

The fingerprint digests everything that decides what the index holds for the knowledge:
each chunk's position, offsets, breadcrumbs and content (and, with parent/child chunking,
the parents'), the title every embedding text starts with, and the embedding model with
its collection. So a different file, parser
configuration or chunking configuration — anything that changes a chunk — or another
embedding model is another parse, and the round starts over; an identical parse resumes.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass

from core.effective_config import EmbeddingModel
from workers.chunker import TextChunk


@dataclass(frozen=True)
class PlannedChunk:
    id: str
    index: int
    content: str
    context_header: str


@dataclass(frozen=True)
class ChunkPlan:
    """The round's text chunks, their parse, and how many of them (in document order) are
    already indexed by an earlier try."""

    chunks: list[PlannedChunk]
    fingerprint: str
    indexed: int = 0


def parse_fingerprint(
    model_key: str,
    model: EmbeddingModel,
    title: str,
    pieces: Sequence[TextChunk],
    *,
    parents: Sequence[TextChunk] = (),
) -> str:
    digest = hashlib.sha256()
    head = {"collection": model_key, "model": model.key, "base_url": model.base_url}
    digest.update(json.dumps({**head, "title": title}, sort_keys=True).encode())
    for piece in pieces:
        record = [piece.index, piece.start, piece.end, piece.context_header, piece.content]
        digest.update(b"\x00" + json.dumps(record, ensure_ascii=False).encode())
    # Parent chunks (parent/child chunking) after a separator no chunk record starts with,
    # so the same children under other parents are another parse.
    for i, parent in enumerate(parents):
        record = [parent.start, parent.end, parent.context_header, parent.content]
        digest.update((b"\x01" if i == 0 else b"\x00") + json.dumps(record).encode())
    return digest.hexdigest()

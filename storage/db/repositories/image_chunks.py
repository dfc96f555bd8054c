"""The images of a round's text chunks (spec: «Мультимодальность изображений»): each text
chunk's ``image_info`` lists the stored images it links, with what their tasks found, and
each image done counts down the knowledge's ``pending_subtasks_count``, so the image that
brings it to 0 knows it was the last.

Every write holds the knowledge row and checks that the round (attempt) is still current
and processing, so a task of an older round, or one racing a cancel or a delete, writes
nothing; an image is counted once however often its task runs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

from sqlalchemy import delete, insert, select, update
from sqlalchemy.orm import Session

from core.statuses import ChunkType, ParseStatus
from storage.db.engine import Database
from storage.db.models import Chunk, Knowledge, utcnow
from storage.db.repositories.chunks import NewChunk
from storage.db.sql import affected_rows

# The child chunks an image gets under the text chunk that links it.
IMAGE_CHUNK_TYPES = (ChunkType.IMAGE_OCR, ChunkType.IMAGE_CAPTION, ChunkType.IMAGE_VECTOR)
# image_info of a text chunk: {"images": [{"url", "index", ...what its task found}]}.
IMAGES = "images"
DONE = "done"


class ImageChunkRepository:
    def __init__(self, db: Database) -> None:
        self._db = db

    def begin(
        self, knowledge_id: str, attempt: int, images: Mapping[str, Sequence[Mapping[str, Any]]]
    ) -> bool:
        """Lay out the round's images (text chunk id → its images, none done yet) and set
        the count of images pending; False when the round is not current."""
        with self._db.session() as session:
            if _lock_round(session, knowledge_id, attempt) is None:
                return False
            for chunk_id, entries in images.items():
                session.execute(
                    update(Chunk)
                    .where(Chunk.id == chunk_id, Chunk.attempt == attempt)
                    .values(image_info={IMAGES: [dict(e) for e in entries]}, updated_at=utcnow())
                )
            session.execute(
                update(Knowledge)
                .where(Knowledge.id == knowledge_id)
                .values(
                    pending_subtasks_count=sum(len(e) for e in images.values()),
                    updated_at=utcnow(),
                )
            )
        return True

    def parent(self, knowledge_id: str, attempt: int, chunk_id: str, url: str) -> Chunk | None:
        """The text chunk of round ``attempt`` that still lists image ``url`` as pending;
        None when the image's task is orphaned (the chunk is gone or was replaced, the
        round moved on, or the image is done already)."""
        with self._db.session() as session:
            chunk = session.get(Chunk, chunk_id)
            if chunk is None or chunk.knowledge_id != knowledge_id or chunk.attempt != attempt:
                return None
            entry = _entry(chunk, url)
            if entry is None or entry.get(DONE):
                return None
            session.expunge(chunk)
            return chunk

    def write_children(
        self, knowledge_id: str, attempt: int, parent_id: str, children: Sequence[NewChunk]
    ) -> bool:
        """Write an image's child chunks (rows with the same ids replaced, so a retried task
        rewrites them), while the round is current and its parent chunk exists."""
        with self._db.session() as session:
            if _lock_round(session, knowledge_id, attempt) is None:
                return False
            parent = session.get(Chunk, parent_id)
            if parent is None or parent.attempt != attempt:
                return False
            if children:
                session.execute(delete(Chunk).where(Chunk.id.in_([c.id for c in children])))
                session.execute(insert(Chunk), [asdict(c) for c in children])
        return True

    def finish_image(
        self, knowledge_id: str, attempt: int, parent_id: str, url: str, found: Mapping[str, Any]
    ) -> int | None:
        """Record what the task of image ``url`` found on its text chunk and count the image
        done, once: the images still pending after it, or None when the round is not
        current or the chunk no longer lists the image. A repeated call changes nothing
        and answers the count as it is."""
        with self._db.session() as session:
            pending = _lock_round(session, knowledge_id, attempt)
            if pending is None:
                return None
            parent = session.get(Chunk, parent_id)
            if parent is None or parent.attempt != attempt:
                return None
            entry = _entry(parent, url)
            if entry is None:
                return None
            if entry.get(DONE):
                return pending
            images = [
                {**e, **found, DONE: True} if e.get("url") == url else e
                for e in (parent.image_info or {}).get(IMAGES, [])
            ]
            parent.image_info = {**(parent.image_info or {}), IMAGES: images}
            parent.updated_at = utcnow()
            remaining = max(pending - 1, 0)
            session.execute(
                update(Knowledge)
                .where(Knowledge.id == knowledge_id)
                .values(pending_subtasks_count=remaining, updated_at=utcnow())
            )
            return remaining

    def outcome(self, knowledge_id: str, attempt: int) -> dict[str, int]:
        """What the round's images gave: how many, how many failed, the child chunks."""
        query = select(Chunk.chunk_type, Chunk.image_info).where(
            Chunk.knowledge_id == knowledge_id, Chunk.attempt == attempt
        )
        counts = dict.fromkeys(
            ("images", "images_failed", *(f"{t}_chunks" for t in IMAGE_CHUNK_TYPES)), 0
        )
        with self._db.session() as session:
            for chunk_type, info in session.execute(query):
                if chunk_type in IMAGE_CHUNK_TYPES:
                    counts[f"{chunk_type}_chunks"] += 1
                    continue
                for entry in (info or {}).get(IMAGES, []):
                    counts["images"] += 1
                    counts["images_failed"] += bool(entry.get("error"))
        # Image vectors are off by default: counted only where there are some.
        return {k: n for k, n in counts.items() if n or k != "image_vector_chunks"}

    def delete(self, chunk_ids: Sequence[str]) -> int:
        """Remove these child chunks (a task whose round ended while it wrote them)."""
        if not chunk_ids:
            return 0
        with self._db.session() as session:
            result = session.execute(delete(Chunk).where(Chunk.id.in_(list(chunk_ids))))
            return affected_rows(result)

    def children(self, knowledge_id: str, attempt: int) -> list[Chunk]:
        """The round's image child chunks."""
        query = select(Chunk).where(
            Chunk.knowledge_id == knowledge_id,
            Chunk.attempt == attempt,
            Chunk.chunk_type.in_(list(IMAGE_CHUNK_TYPES)),
        )
        with self._db.session() as session:
            return list(session.scalars(query))


def _lock_round(session: Session, knowledge_id: str, attempt: int) -> int | None:
    """Lock the knowledge row while round ``attempt`` is current and processing: its
    pending count, or None."""
    guard = (
        select(Knowledge.pending_subtasks_count)
        .where(
            Knowledge.id == knowledge_id,
            Knowledge.attempt == attempt,
            Knowledge.parse_status == ParseStatus.PROCESSING,
        )
        .with_for_update()
    )
    return session.scalar(guard)


def _entry(chunk: Chunk, url: str) -> dict[str, Any] | None:
    images = (chunk.image_info or {}).get(IMAGES, [])
    return next((e for e in images if isinstance(e, dict) and e.get("url") == url), None)

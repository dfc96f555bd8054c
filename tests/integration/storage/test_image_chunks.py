"""The images of a round's text chunks: laid out and counted, each counted done once
however often its task runs, and nothing written for a round that moved on."""

from __future__ import annotations

from storage.db.engine import Database
from storage.db.repositories.chunks import ChunkRepository, NewChunk
from storage.db.repositories.image_chunks import ImageChunkRepository
from storage.db.repositories.knowledges import KnowledgeRepository
from tests.integration.storage.conftest import Scope, run_together

URLS = [f"resource://image-{n}" for n in range(4)]


def _round_with_images(db: Database, scope: Scope) -> tuple[str, str, str]:
    """A processing round at attempt 1 with two text chunks, each linking two images."""
    knowledges = KnowledgeRepository(db)
    row = knowledges.create(
        tenant_id=scope.tenant_id,
        knowledge_base_id=scope.knowledge_base_id,
        parse_status="processing",
        attempt=1,
    )
    chunks = [
        NewChunk(
            scope.tenant_id, scope.knowledge_base_id, row.id, n, f"![a]({URLS[2 * n]})", attempt=1
        )
        for n in range(2)
    ]
    assert ChunkRepository(db).insert_for_attempt(row.id, 1, chunks)
    repo = ImageChunkRepository(db)
    assert repo.begin(
        row.id,
        1,
        {
            chunks[0].id: [{"url": URLS[0], "index": 1}, {"url": URLS[1], "index": 2}],
            chunks[1].id: [{"url": URLS[2], "index": 3}, {"url": URLS[3], "index": 4}],
        },
    )
    return row.id, chunks[0].id, chunks[1].id


def _pending(db: Database, knowledge_id: str) -> int:
    row = KnowledgeRepository(db).get(knowledge_id, None)
    assert row is not None
    return row.pending_subtasks_count


def test_each_image_counts_down_once_and_the_last_sees_zero(
    database: Database, scope: Scope
) -> None:
    repo = ImageChunkRepository(database)
    knowledge_id, first, second = _round_with_images(database, scope)
    assert _pending(database, knowledge_id) == 4
    assert repo.finish_image(knowledge_id, 1, first, URLS[0], {"ocr_text": "one"}) == 3
    # The same image again (a retried task): recorded already, nothing counted.
    assert repo.finish_image(knowledge_id, 1, first, URLS[0], {"ocr_text": "one"}) == 3
    assert repo.parent(knowledge_id, 1, first, URLS[0]) is None  # done: its task is dropped
    assert repo.parent(knowledge_id, 1, first, URLS[1]) is not None
    assert repo.finish_image(knowledge_id, 1, first, URLS[1], {"error": "unreadable"}) == 2
    found = [{"ocr_text": "three"}, {"caption": "four"}]
    results = run_together(
        2, lambda n: repo.finish_image(knowledge_id, 1, second, URLS[2 + n], found[n])
    )
    assert set(results) == {0, 1}
    chunk = ChunkRepository(database).get_many([second], tenant_id=None)[0]
    assert chunk.image_info == {
        "images": [
            {"url": URLS[2], "index": 3, "ocr_text": "three", "done": True},
            {"url": URLS[3], "index": 4, "caption": "four", "done": True},
        ]
    }
    assert repo.outcome(knowledge_id, 1) == {
        "images": 4,
        "images_failed": 1,
        "image_ocr_chunks": 0,
        "image_caption_chunks": 0,
    }


def test_nothing_is_written_or_counted_for_a_round_that_moved_on(
    database: Database, scope: Scope
) -> None:
    repo = ImageChunkRepository(database)
    knowledge_id, first, _ = _round_with_images(database, scope)
    assert KnowledgeRepository(database).begin_attempt(knowledge_id, after_attempt=1) == 2
    assert repo.parent(knowledge_id, 1, first, URLS[0]) is not None  # the row decides
    assert repo.finish_image(knowledge_id, 1, first, URLS[0], {"ocr_text": "x"}) is None
    child = NewChunk(
        scope.tenant_id,
        scope.knowledge_base_id,
        knowledge_id,
        9,
        "x",
        chunk_type="image_ocr",
        attempt=1,
        parent_chunk_id=first,
    )
    assert not repo.write_children(knowledge_id, 1, first, [child])
    assert repo.children(knowledge_id, 1) == []

"""Cloning a knowledge base end to end, over real gRPC in lite and full mode.

A knowledge base with two documents (one with an image, one tagged) is cloned into a new
one: the clone finds the same chunks with the same scores while the embedding server (which
counts every request) is asked nothing but the search queries; its image is a copy of its
own, linked by its own reference; its tag is the target's tag of the same name. Cloning
again after a document was added to the source and another deleted syncs only that
difference. Progress is readable and watchable to its end; bad requests get clear statuses.
"""

from __future__ import annotations

import io
import re
import uuid
from collections.abc import Iterator

import pytest
from sluice_client import FailedPrecondition, NotFound, SluiceClient
from sluice_client._proto.sluice import v1

from storage.db.engine import Database
from storage.db.repositories.chunks import ChunkRepository
from tests.e2e.lifecycle_support import done, html_with_image
from tests.e2e.stacks import Stack, full_stack, lite_stack
from tests.support.openai_embeddings import DIMENSION, EmbeddingServer
from workers.settings import Settings

ENV = {"SLUICE_SSRF_ALLOW_HOSTS": "127.0.0.1"}
_REF = re.compile(r"resource://[0-9a-f-]{36}")
QUERY = "Shearwater gauge panel keeper"


@pytest.fixture(scope="module", params=["lite", "full"])
def stack(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stack]:
    make = lite_stack if request.param == "lite" else full_stack
    with make(tmp_path_factory.mktemp(f"kb-clone-{request.param}"), extra_env=ENV) as running:
        yield running


@pytest.fixture(scope="module")
def client(stack: Stack) -> Iterator[SluiceClient]:
    with SluiceClient(stack.target) as c:
        yield c


@pytest.fixture(scope="module")
def database(stack: Stack) -> Iterator[Database]:
    """The deployment's own database: the chunks as stored, references and all."""
    db = Database.from_url(Settings.from_env(env=stack.env).storage.database_url)
    try:
        yield db
    finally:
        db.dispose()


@pytest.fixture(scope="module")
def embeddings() -> Iterator[EmbeddingServer]:
    with EmbeddingServer() as running:
        yield running


def _source(client: SluiceClient, embeddings: EmbeddingServer) -> v1.KnowledgeBase:
    config = v1.KnowledgeBaseConfig(
        embedding=v1.ModelConfig(
            provider="openai",
            model=embeddings.model,
            base_url=embeddings.url("/v1"),
            dimensions=DIMENSION,
        ),
    )
    return client.create_knowledge_base(f"clone-src-{uuid.uuid4().hex[:8]}", config=config)


def _hits(client: SluiceClient, kb_id: str) -> list[tuple[str, int, float]]:
    """(title, chunk index, score) of each hit: what identifies a chunk across the clone."""
    return sorted(
        (hit.knowledge_title, hit.chunk_index, round(hit.score, 5))
        for hit in client.search(QUERY, [kb_id], top_k=20)
    )


def _chunks(client: SluiceClient, knowledge_id: str) -> list[v1.Chunk]:
    return list(client.list_chunks(knowledge_id))


def _by_title(client: SluiceClient, kb_id: str) -> dict[str, v1.Knowledge]:
    return {k.title: k for k in client.list_knowledge(kb_id)}


def test_clone_copies_documents_without_embedding_and_syncs_the_difference(
    client: SluiceClient, embeddings: EmbeddingServer, database: Database
) -> None:
    source = _source(client, embeddings)
    tag = client.create_tag(source.id, "harbour")
    page = client.upload_file(
        source.id,
        io.BytesIO(html_with_image("Shearwater")),
        file_name="shearwater.html",
        tag_ids=[tag.id],
    )
    note = client.create_manual(
        source.id, "keeper", "The Shearwater keeper logs the tide at the gauge every hour."
    )
    for knowledge in (page, note):
        assert done(client, knowledge.id).parse_status == v1.ParseStatus.COMPLETED

    asked = len(embeddings.log())
    started = client.clone_knowledge_base(source.id, target_name=f"{source.name}-copy")
    progress = client.wait_for_clone(started.job_id)
    assert progress.status == v1.JobStatus.COMPLETED, progress.error_message
    assert (progress.total, progress.done, progress.added, progress.failed) == (2, 2, 2, 0)
    assert len(embeddings.log()) == asked, "a clone embeds nothing"

    target = client.get_knowledge_base(started.target_id)
    assert target.config is not None and target.config.embedding is not None
    assert target.config.embedding.model == embeddings.model
    assert _hits(client, target.id) == _hits(client, source.id) != []
    cloned = _by_title(client, target.id)
    assert set(cloned) == {k.title for k in (done(client, page.id), note)}
    page_clone = cloned[done(client, page.id).title]
    assert page_clone.parse_status == v1.ParseStatus.COMPLETED
    assert page_clone.enable_status == v1.EnableStatus.ENABLED
    [target_tag] = list(client.list_tags(target.id))
    assert target_tag.name == "harbour" and target_tag.id != tag.id
    assert list(page_clone.tag_ids) == [target_tag.id]

    # The image is the clone's own copy, and its chunks link that copy.
    source_images = _images(client, page.id)
    clone_images = _images(client, page_clone.id)
    assert len(clone_images) == len(source_images) == 1
    assert clone_images[0].ref != source_images[0].ref
    linked = {m for c in _stored_contents(database, page_clone.id) for m in _REF.findall(c)}
    assert linked == {clone_images[0].ref}
    source_linked = {m for c in _stored_contents(database, page.id) for m in _REF.findall(c)}
    assert source_linked == {source_images[0].ref}
    assert len(_chunks(client, page_clone.id)) == len(_chunks(client, page.id))

    # Sync: a document added to the source is cloned, a deleted one's clone goes.
    added = client.create_manual(source.id, "ferry", "The Shearwater ferry waits at the gauge.")
    assert done(client, added.id).parse_status == v1.ParseStatus.COMPLETED
    client.delete_knowledge(note.id)
    again = client.clone_knowledge_base(source.id, target_id=target.id)
    assert again.target_id == target.id
    seen = list(client.watch_clone_progress(again.job_id))
    last = seen[-1]
    assert last.status == v1.JobStatus.COMPLETED, last.error_message
    assert (last.total, last.added, last.removed) == (2, 1, 1)
    assert [p.done for p in seen] == sorted(p.done for p in seen)
    assert set(_by_title(client, target.id)) == {done(client, page.id).title, "ferry"}
    assert _by_title(client, target.id)[done(client, page.id).title].id == page_clone.id
    assert _hits(client, target.id) == _hits(client, source.id)

    # A source knowledge reparsed since is cloned again, its old clone replaced.
    ferry_clone = _by_title(client, target.id)["ferry"]
    client.reparse(added.id)
    assert done(client, added.id).parse_status == v1.ParseStatus.COMPLETED
    reparsed = client.wait_for_clone(
        client.clone_knowledge_base(source.id, target_id=target.id).job_id
    )
    assert (reparsed.status, reparsed.total, reparsed.added) == (v1.JobStatus.COMPLETED, 1, 1)
    renewed = _by_title(client, target.id)
    assert set(renewed) == {done(client, page.id).title, "ferry"}
    assert renewed["ferry"].id != ferry_clone.id
    assert _stored_contents(database, ferry_clone.id) == []
    assert _hits(client, target.id) == _hits(client, source.id)

    # Nothing to do: the job is completed at once.
    idle = client.wait_for_clone(client.clone_knowledge_base(source.id, target_id=target.id).job_id)
    assert (idle.status, idle.total) == (v1.JobStatus.COMPLETED, 0)


def _images(client: SluiceClient, knowledge_id: str) -> list[v1.Resource]:
    return [r for r in client.list_resources(knowledge_id) if r.kind == v1.ResourceKind.IMAGE]


def _stored_contents(database: Database, knowledge_id: str) -> list[str]:
    """The chunks as stored (ListChunks hands out fresh URLs in place of references)."""
    rows, _ = ChunkRepository(database).list_by_knowledge(knowledge_id, 1000, 0, tenant_id=None)
    return [row.content for row in rows]


def test_bad_requests(client: SluiceClient, embeddings: EmbeddingServer) -> None:
    source = _source(client, embeddings)
    local_model = client.create_knowledge_base(f"clone-local-{uuid.uuid4().hex[:8]}")
    with pytest.raises(FailedPrecondition, match="vectors cannot be copied"):
        client.clone_knowledge_base(source.id, target_id=local_model.id)
    with pytest.raises(FailedPrecondition, match="itself"):
        client.clone_knowledge_base(source.id, target_id=source.id)
    with pytest.raises(NotFound):
        client.clone_knowledge_base(str(uuid.uuid4()))
    with pytest.raises(NotFound):
        client.get_clone_progress(str(uuid.uuid4()))
    with pytest.raises(NotFound):
        list(client.watch_clone_progress(str(uuid.uuid4())))


def test_a_knowledge_whose_file_is_gone_fails_by_name_and_leaves_no_half_clone(
    stack: Stack, client: SluiceClient, embeddings: EmbeddingServer, database: Database
) -> None:
    source = _source(client, embeddings)
    kept = client.create_manual(source.id, "kept", "The Shearwater keeper keeps this note.")
    page = client.upload_file(
        source.id, io.BytesIO(html_with_image("Petrel")), file_name="petrel.html"
    )
    for knowledge in (kept, page):
        assert done(client, knowledge.id).parse_status == v1.ParseStatus.COMPLETED
    assert len(_images(client, page.id)) == 1
    stored = [p for p in stack.storage_dir.rglob(f"{page.id}-*") if p.is_file()]
    assert stored, "the extracted image is not on disk"
    for path in stored:
        path.unlink()  # a storage fault: the source's image is lost

    job = client.clone_knowledge_base(source.id)
    progress = client.wait_for_clone(job.job_id)
    assert progress.status == v1.JobStatus.FAILED
    assert (progress.total, progress.done, progress.added, progress.failed) == (2, 2, 1, 1)
    assert page.id in progress.error_message and "petrel" in progress.error_message.lower()
    # The failed knowledge's half-made clone is gone (rows, chunks); the other one is whole.
    [clone] = list(client.list_knowledge(job.target_id, statuses=list(v1.ParseStatus)))
    assert clone.title == "kept" and clone.parse_status == v1.ParseStatus.COMPLETED

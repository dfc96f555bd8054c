"""What CreateFromURL (and the other ways in) refuse before a row is written, in process on
PostgreSQL and SQLite: a caller without access to the knowledge base learns nothing of the
URL, values too long for their columns are INVALID_ARGUMENT naming the field (never a
database error), and a web page, like a download, needs its knowledge base's storage backend.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import grpc
import pytest
from google.rpc import error_details_pb2
from sluice.v1 import knowledge_pb2

from server.api.errors import ApiError
from server.api.rpc import translated
from server.services.identity import Identity
from server.services.ingest import IngestService
from server.services.knowledge_bases import KnowledgeBaseService
from workers.context import WorkerContext

# A public IP literal: accepted without any DNS lookup (nothing is fetched at creation).
PUBLIC_PAGE = "http://93.184.216.34/article"


@pytest.fixture
def ctx_env(database_url: str, tmp_path: Path) -> dict[str, str]:
    backends = {"disk": {"provider": "local", "dir": str(tmp_path / "disk")}}
    return {"SLUICE_DATABASE_URL": database_url, "SLUICE_STORAGE_BACKENDS": json.dumps(backends)}


@pytest.fixture
def ingest(ctx: WorkerContext) -> IngestService:
    return IngestService(ctx, KnowledgeBaseService(ctx))


def _tenant(ctx: WorkerContext, name: str) -> Identity:
    return Identity(ctx.tenants.create_tenant(name).id, is_admin=False)


def _field(error: ApiError) -> str:
    (bad_request,) = [d for d in error.details if isinstance(d, error_details_pb2.BadRequest)]
    (violation,) = bad_request.field_violations
    return str(violation.field)


def test_a_caller_without_access_learns_nothing_of_the_url(
    ctx: WorkerContext, ingest: IngestService
) -> None:
    owner, stranger = _tenant(ctx, "owner"), _tenant(ctx, "stranger")
    kb = ctx.knowledge_bases.create(owner.tenant_id, "kb")
    for identity, kb_id in [(stranger, kb.id), (owner, "no-such-kb")]:
        request = knowledge_pb2.CreateFromURLRequest(
            knowledge_base_id=kb_id, url="http://10.1.2.3/"
        )
        with pytest.raises(ApiError) as refused, translated():
            ingest.create_from_url(identity, request)
        assert refused.value.code == grpc.StatusCode.NOT_FOUND
        assert "10.1.2.3" not in refused.value.message
    # The owner is told the rule.
    request = knowledge_pb2.CreateFromURLRequest(knowledge_base_id=kb.id, url="http://10.1.2.3/")
    with pytest.raises(ApiError) as told, translated():
        ingest.create_from_url(owner, request)
    assert told.value.code == grpc.StatusCode.INVALID_ARGUMENT
    assert "10.1.2.3 is a private address" in told.value.message


def test_values_too_long_for_their_columns_are_invalid_arguments(
    ctx: WorkerContext, ingest: IngestService
) -> None:
    owner = _tenant(ctx, "lengths")
    kb = ctx.knowledge_bases.create(owner.tenant_id, "kb")
    from_url = knowledge_pb2.CreateFromURLRequest
    attempts: list[tuple[str, Callable[[], object]]] = [
        (
            "title",
            lambda: ingest.create_from_url(
                owner, from_url(knowledge_base_id=kb.id, url=PUBLIC_PAGE, title="t" * 1025)
            ),
        ),
        (
            "channel",
            lambda: ingest.create_from_url(
                owner, from_url(knowledge_base_id=kb.id, url=PUBLIC_PAGE, channel="c" * 65)
            ),
        ),
        (
            "url",
            lambda: ingest.create_from_url(
                owner, from_url(knowledge_base_id=kb.id, url=f"{PUBLIC_PAGE}?{'q' * 8192}")
            ),
        ),
        (
            "header.title",
            lambda: ingest.plan_upload(
                owner,
                knowledge_pb2.FileHeader(
                    knowledge_base_id=kb.id, file_name="a.md", title="t" * 1025
                ),
            ),
        ),
        (
            "header.channel",
            lambda: ingest.plan_upload(
                owner,
                knowledge_pb2.FileHeader(
                    knowledge_base_id=kb.id, file_name="a.md", channel="c" * 65
                ),
            ),
        ),
        (
            "title",
            lambda: ingest.create_manual(
                owner,
                knowledge_pb2.CreateManualRequest(
                    knowledge_base_id=kb.id, title="t" * 1025, content="x"
                ),
            ),
        ),
        (
            "channel",
            lambda: ingest.create_manual(
                owner,
                knowledge_pb2.CreateManualRequest(
                    knowledge_base_id=kb.id, title="t", content="x", channel="c" * 65
                ),
            ),
        ),
    ]
    for field, attempt in attempts:
        with pytest.raises(ApiError) as refused, translated():
            attempt()
        assert refused.value.code == grpc.StatusCode.INVALID_ARGUMENT, refused.value.message
        assert _field(refused.value) == field
    assert ctx.knowledges.list(owner.tenant_id, kb.id)[1] == 0, "nothing was written"
    # At the limits the row is written (a draft: nothing is queued).
    draft = ingest.create_manual(
        owner,
        knowledge_pb2.CreateManualRequest(
            knowledge_base_id=kb.id,
            title="t" * 1024,
            content="x",
            channel="c" * 64,
        ),
    )
    assert (len(draft.row.title), len(draft.row.channel)) == (1024, 64)


def test_a_web_page_needs_its_knowledge_bases_storage_backend_too(
    ctx: WorkerContext, ingest: IngestService
) -> None:
    """A page's images are stored on the knowledge base's backend, as a download is."""
    owner = _tenant(ctx, "orphan")
    kb = ctx.knowledge_bases.create(owner.tenant_id, "kb", storage_backend_id="gone")
    request = knowledge_pb2.CreateFromURLRequest(knowledge_base_id=kb.id, url=PUBLIC_PAGE)
    with pytest.raises(ApiError) as refused, translated():
        ingest.create_from_url(owner, request)
    assert refused.value.code == grpc.StatusCode.FAILED_PRECONDITION
    assert "storage backend 'gone'" in refused.value.message
    assert ctx.knowledges.list(owner.tenant_id, kb.id)[1] == 0

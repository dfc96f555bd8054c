"""The FAQ layer's tests: a worker context over the module's database (PostgreSQL and SQLite,
milvus-lite) and a real embeddings endpoint the knowledge bases embed with."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.openai_embeddings import EmbeddingServer
from tests.support.worker_context import local_settings, worker_context
from workers.context import WorkerContext
from workers.settings_groups import OutboundSettings


@pytest.fixture(scope="module")
def ctx(
    request: pytest.FixtureRequest, database_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[WorkerContext]:
    settings = local_settings(
        database_url,
        tmp_path_factory.mktemp(request.module.__name__.rsplit(".", 1)[-1]),
        outbound=OutboundSettings(ssrf_allow_hosts=frozenset({"127.0.0.1"})),
    )
    with worker_context(settings) as context:
        yield context


@pytest.fixture(scope="module")
def embeddings() -> Iterator[EmbeddingServer]:
    with EmbeddingServer() as server:
        yield server

"""What the enrichment tests share: a worker context over the module's database (lite
queue, milvus-lite) whose model calls may reach the tests' loopback servers, and a real
embeddings endpoint."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.openai_embeddings import EmbeddingServer
from tests.support.worker_context import local_settings, worker_context
from workers.context import WorkerContext
from workers.settings_groups import ModelSettings, OutboundSettings, QueueSettings

WIKI_DEBOUNCE_S = 0.3


@pytest.fixture(scope="module")
def ctx(
    request: pytest.FixtureRequest, database_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[WorkerContext]:
    settings = local_settings(
        database_url,
        tmp_path_factory.mktemp(request.module.__name__.rsplit(".", 1)[-1]),
        models=ModelSettings(embed_batch_size=8, model_max_retries=1),
        outbound=OutboundSettings(ssrf_allow_hosts=frozenset({"127.0.0.1"})),
        # The wiki's ingests wait for their debounce window: a short one keeps tests quick.
        queue=QueueSettings(wiki_debounce_s=WIKI_DEBOUNCE_S),
    )
    with worker_context(settings, install=True) as context:
        yield context


@pytest.fixture(scope="module")
def embeddings() -> Iterator[EmbeddingServer]:
    with EmbeddingServer() as server:
        yield server

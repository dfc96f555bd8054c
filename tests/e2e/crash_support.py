"""SIGKILLing a worker at a deterministic point of a maintenance job, for the e2e crash
tests: an embedding model server whose Nth request is held until the test lets it go (the
worker is then certainly inside the job, waiting on it), the short heartbeat and
housekeeping settings under which the stack's housekeeper recovers the job within
seconds, and a fresh worker started after the kill."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from pymilvus import MilvusClient
from sluice_client._proto.sluice import v1
from sqlalchemy import create_engine, text

from storage.index.collection_schema import collection_name
from storage.index.expressions import field_eq
from tests.e2e.stacks import Stack
from tests.support.openai_embeddings import DIMENSION, EmbeddingServer
from tests.support.processes import Process, python

HEARTBEAT_TTL_S = 2
CRASH_ENV = {
    "SLUICE_SSRF_ALLOW_HOSTS": "127.0.0.1",
    "SLUICE_TASK_HEARTBEAT_TTL": str(HEARTBEAT_TTL_S),
    "SLUICE_HOUSEKEEPING_INTERVAL": "1",
}
HOLD_S = 60.0


class HeldEmbeddings(EmbeddingServer):
    """Answers every request but the ``hold_at``-th (1-based) at once; that one waits until
    ``release()`` (or ``HOLD_S``). ``held`` is set once it arrived."""

    def __init__(self, hold_at: int) -> None:
        self.held = threading.Event()
        self._release = threading.Event()
        self._hold_at = hold_at
        super().__init__(self._answer)

    def _answer(self, number: int) -> None:
        if number == self._hold_at:
            self.held.set()
            self._release.wait(HOLD_S)

    def wait_held(self, timeout_s: float = 120.0) -> None:
        assert self.held.wait(timeout_s), "the job never reached the held request"

    def release(self) -> None:
        self._release.set()


def kill_workers(stack: Stack) -> None:
    for name in [n for n in stack.processes if n.startswith("worker")]:
        stack.processes[name].kill()


def start_worker(stack: Stack, name: str = "after-kill") -> None:
    prefix = stack.env["SLUICE_KEY_PREFIX"]
    stack.processes[f"worker-{name}"] = Process(
        f"worker-{name}", python("-m", "workers.main", "--name", f"{prefix}-{name}"), stack.env
    )


@contextmanager
def held_lock(database_url: str, statement: str) -> Iterator[Callable[[], None]]:
    """``statement`` (a row or table lock) run in a transaction of the test's own, held
    until the callable yielded is called (or the block ends): a worker that needs the lock
    waits for it, at a point the test chose."""
    engine = create_engine(database_url)
    connection = engine.connect()
    transaction = connection.begin()
    connection.execute(text(statement))

    def release() -> None:
        if transaction.is_active:
            transaction.rollback()

    try:
        yield release
    finally:
        release()
        connection.close()
        engine.dispose()


def wait_for_lock_waiter(database_url: str, table: str, timeout_s: float = 120.0) -> None:
    """Until a database session waits for a lock in a statement on ``table``."""
    engine = create_engine(database_url)
    query = text(
        "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
        "AND query ILIKE :table"
    )
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            with engine.connect() as connection:
                if connection.execute(query, {"table": f"%{table}%"}).scalar_one():
                    return
            assert time.monotonic() < deadline, f"no worker ever waited on {table}"
            time.sleep(0.05)
    finally:
        engine.dispose()


def embedding_config(embeddings: EmbeddingServer) -> v1.KnowledgeBaseConfig:
    """Small chunks (several a knowledge) embedded by ``embeddings``."""
    return v1.KnowledgeBaseConfig(
        chunking=v1.ChunkingConfig(chunk_size=80, chunk_overlap=0),
        embedding=v1.ModelConfig(
            provider="openai",
            model=embeddings.model,
            base_url=embeddings.url("/v1"),
            dimensions=DIMENSION,
        ),
    )


def index_rows(milvus_uri: str, model_key: str, kb_id: str) -> int:
    """How many index rows knowledge base ``kb_id`` has in the index at ``milvus_uri``."""
    client = MilvusClient(uri=milvus_uri)
    try:
        # A milvus-lite file opened after its process stopped has the collection unloaded.
        client.load_collection(collection_name(model_key))
        found = client.query(
            collection_name(model_key),
            filter=field_eq("knowledge_base_id", kb_id),
            output_fields=["count(*)"],
        )
        return int(found[0]["count(*)"])
    finally:
        client.close()

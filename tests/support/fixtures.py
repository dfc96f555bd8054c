"""One fixture per real component, shared by every test directory (a pytest plugin,
registered in tests/conftest.py). Helpers that build the same components outside fixtures
live next to them in tests/support."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from redis import Redis

from core.clock import ManualClock
from storage.db.engine import Database
from storage.db.migrate import upgrade_to_head
from tests.support.databases import REDIS_URL, empty_database_url, redis_prefix
from tests.support.docreader import docreader_server
from tests.support.processes import Process, free_port, python, wait_for_port
from tests.support.rq_workers import WorkerProcesses
from tests.support.worker_context import worker_context
from workers.context import WorkerContext
from workers.settings import Settings

DATABASE_BACKENDS = ("postgresql", "sqlite")
# The docreader fixture's gRPC message limit.
DOCREADER_MESSAGE_LIMIT = 4 << 20

# ---- time -------------------------------------------------------------------------------------


@pytest.fixture
def clock() -> ManualClock:
    """Real time that the test can move forward (for TTLs and thresholds judged in process)
    instead of sleeping."""
    return ManualClock()


# ---- PostgreSQL and SQLite --------------------------------------------------------------------


@pytest.fixture(params=DATABASE_BACKENDS)
def empty_db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A database with no tables, per test and backend."""
    with empty_database_url(request.param, tmp_path) as url:
        yield url


@pytest.fixture(scope="module", params=DATABASE_BACKENDS)
def database_url(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """A migrated database per module and backend; tests isolate by fresh tenants."""
    with empty_database_url(request.param, tmp_path_factory.mktemp("db")) as url:
        upgrade_to_head(url)
        yield url


@pytest.fixture(scope="session", params=DATABASE_BACKENDS)
def database(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Database]:
    """One migrated database per backend for the session; tests isolate by fresh tenants."""
    with empty_database_url(request.param, tmp_path_factory.mktemp("db")) as url:
        upgrade_to_head(url)
        db = Database.from_url(url)
        try:
            yield db
        finally:
            db.dispose()


# ---- Redis ------------------------------------------------------------------------------------


@pytest.fixture
def redis_client() -> Iterator[Redis]:
    client = Redis.from_url(REDIS_URL)
    yield client
    client.close()


@pytest.fixture
def key_prefix() -> Iterator[str]:
    """A Redis key prefix of this test alone; its keys are deleted afterwards."""
    with redis_prefix() as prefix:
        yield prefix


@pytest.fixture
def other_key_prefix() -> Iterator[str]:
    """A second prefix, for tests of what one prefix does not see of another."""
    with redis_prefix() as prefix:
        yield prefix


# ---- RQ workers -------------------------------------------------------------------------------


@pytest.fixture
def workers() -> Iterator[WorkerProcesses]:
    """Real RQ worker processes; those still running at teardown are killed."""
    processes = WorkerProcesses()
    yield processes
    processes.close()


# ---- milvus-lite server -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def milvus_server_uri(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A ``milvus-lite server`` child process reached over http (the file mode runs inside
    the process that opens the index)."""
    port = free_port()
    data_dir = tmp_path_factory.mktemp("milvus-server") / "data"
    server = Process(
        "milvus-lite server",
        python(
            "-m",
            "milvus_lite",
            "server",
            "--data-dir",
            str(data_dir),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ),
        {},
    )
    try:
        wait_for_port(port, 60, server.proc)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.stop()


# ---- docreader --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def storage_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The local storage the module's docreader reads ``storage_ref`` files from."""
    return tmp_path_factory.mktemp("storage")


@pytest.fixture(scope="module")
def docreader_target(storage_dir: Path) -> Iterator[str]:
    with docreader_server(
        max_workers=4, storage_base_dir=str(storage_dir), max_message_bytes=DOCREADER_MESSAGE_LIMIT
    ) as target:
        yield target


# ---- worker context ---------------------------------------------------------------------------


@pytest.fixture
def ctx_env() -> dict[str, str]:
    """Settings (environment variables) of the ``ctx`` fixture beyond its data directory; a
    module overrides this fixture to change them."""
    return {}


@pytest.fixture
def ctx(tmp_path: Path, ctx_env: dict[str, str], clock: ManualClock) -> Iterator[WorkerContext]:
    """A lite-mode worker context (SQLite, milvus-lite, local storage under ``tmp_path``,
    the lite queue, an in-memory bus) on the test's ``clock``."""
    settings = Settings.from_env(env={"SLUICE_DATA_DIR": str(tmp_path), **ctx_env})
    with worker_context(settings, clock=clock) as context:
        yield context

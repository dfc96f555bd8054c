"""An outage of a component a call needs answers UNAVAILABLE naming the component (so a
client knows to retry, and what was down), never INTERNAL; once the component is back, the
same call succeeds. The database: its login role locked out; the index: its Milvus server
stopped."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from google.rpc import error_details_pb2
from sluice_client import SluiceClient, Unavailable
from sluice_client._proto.sluice import v1

from tests.e2e.stacks import lite_stack
from tests.support.databases import locked_out, postgres_role_database
from tests.support.processes import Process, free_port, python, wait_for_port
from tests.support.waiting import wait_until

_LISTENING = r"listening on [\d.]+:(\d+)"


def _searches(client: SluiceClient, kb_id: str) -> bool:
    try:
        return client.search("sluice gates", [kb_id], mode=v1.SearchMode.KEYWORD) == []
    except Unavailable:
        return False


def _assert_names(refused: Unavailable, component: str) -> None:
    assert refused.message == f"{component} is unavailable; try again later"
    [info] = refused.details
    assert isinstance(info, error_details_pb2.ErrorInfo)
    assert (info.reason, dict(info.metadata)) == ("COMPONENT_UNAVAILABLE", {"component": component})


def test_a_database_outage_answers_unavailable_naming_the_database(tmp_path: Path) -> None:
    with (
        postgres_role_database() as database,
        lite_stack(tmp_path, {"SLUICE_DATABASE_URL": database.url}) as stack,
        SluiceClient(stack.target) as client,
    ):
        kb = client.create_knowledge_base("outage")
        with locked_out(database), pytest.raises(Unavailable) as refused:
            client.get_knowledge_base(kb.id)
        _assert_names(refused.value, "database")
        assert client.get_knowledge_base(kb.id).id == kb.id


@contextmanager
def _milvus(data_dir: Path, port: int) -> Iterator[Process]:
    data_dir.mkdir(parents=True, exist_ok=True)
    milvus = Process(
        "milvus",
        [
            str(Path(python()[0]).parent / "milvus-lite"),
            "server",
            "--data-dir",
            str(data_dir),
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        {},
    )
    try:
        wait_for_port(port, 60, milvus.proc)
        yield milvus
    finally:
        milvus.stop()


def test_an_index_outage_answers_unavailable_naming_the_index(tmp_path: Path) -> None:
    milvus_port = free_port()
    env = {
        "SLUICE_MODE": "full",
        "SLUICE_DATA_DIR": str(tmp_path),
        "SLUICE_DATABASE_URL": f"sqlite:///{tmp_path / 'sluice.db'}",
        "SLUICE_MILVUS_URI": f"http://127.0.0.1:{milvus_port}",
        "SLUICE_REDIS_URL": f"redis://127.0.0.1:{free_port()}/0",
        "SLUICE_DOCREADER_ADDRESS": f"127.0.0.1:{free_port()}",
        "SLUICE_AUTH_REQUIRED": "false",
    }
    keyword = v1.SearchMode.KEYWORD
    api: Process | None = None
    try:
        with _milvus(tmp_path / "milvus", milvus_port):
            api = Process("api", python("-m", "server.main", "--address", "127.0.0.1:0"), env)
            target = f"127.0.0.1:{api.wait_for_line(_LISTENING, timeout=120).group(1)}"
            with SluiceClient(target) as client:
                kb = client.create_knowledge_base("index-outage")
                assert client.search("sluice gates", [kb.id], mode=keyword) == []
        with SluiceClient(target) as client, pytest.raises(Unavailable) as refused:
            client.search("sluice gates", [kb.id], mode=keyword)
        _assert_names(refused.value, "index")
        with _milvus(tmp_path / "milvus", milvus_port), SluiceClient(target) as client:
            # The index client reconnects with a backoff: retrying is what UNAVAILABLE asks for.
            wait_until(lambda: _searches(client, kb.id), 30, "search works again")
    finally:
        if api is not None:
            api.stop()

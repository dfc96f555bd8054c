"""The SSRF policy end to end for everything the service sends out: model endpoints (checked
when a knowledge base is configured and again whenever they are called, by the API's Search
and by the workers) and the ports of Sluice's own services, which allow-listing their host
does not open.

The allow-list is "127.0.0.1" (a host entry): the embedding server on 127.0.0.1 may be
reached, every port the deployment itself listens on may not. The canary, on 127.0.0.2 (not
listed), records every request and must never see one.
"""

from __future__ import annotations

import io
import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest
from google.rpc import error_details_pb2
from sluice_client import FailedPrecondition, InvalidArgument, SluiceClient
from sluice_client._proto.sluice import v1

from storage.db.engine import Database
from storage.db.repositories.knowledge_bases import KnowledgeBaseRepository
from tests.e2e.stacks import Stack, full_stack, lite_stack
from tests.support.openai_asr import wav_bytes
from tests.support.openai_embeddings import DIMENSION, EmbeddingServer
from workers.settings import Settings

WAIT_S = 240
SENTENCE = "The Gannet rock lighthouse keeper paints the railings teal."


@pytest.fixture(scope="module")
def models() -> Iterator[EmbeddingServer]:
    with EmbeddingServer() as server:
        yield server


@pytest.fixture(scope="module")
def canary() -> Iterator[EmbeddingServer]:
    with EmbeddingServer(host="127.0.0.2") as server:
        yield server


@pytest.fixture(scope="module", params=["lite", "full"])
def stack(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Stack]:
    make = lite_stack if request.param == "lite" else full_stack
    env = {"SLUICE_SSRF_ALLOW_HOSTS": "127.0.0.1"}
    with make(tmp_path_factory.mktemp(f"outbound-{request.param}"), extra_env=env) as running:
        yield running


@pytest.fixture(scope="module")
def database(stack: Stack) -> Iterator[Database]:
    """The deployment's own database: a knowledge base configured before the allow-list was
    tightened is made by writing its row."""
    db = Database.from_url(Settings.from_env(env=stack.env).storage.database_url)
    try:
        yield db
    finally:
        db.dispose()


def embedding_config(base_url: str) -> v1.KnowledgeBaseConfig:
    return v1.KnowledgeBaseConfig(
        embedding=v1.ModelConfig(
            provider="openai", model="canary-embed", base_url=base_url, dimensions=DIMENSION
        )
    )


def listening_ports(stack: Stack) -> set[int]:
    """Every TCP port the deployment's processes listen on (the API, the docreader, the
    milvus-lite server — in lite mode its in-process one, on a random port)."""
    ports: set[int] = set()
    for process in stack.processes.values():
        for connection in psutil.Process(process.proc.pid).net_connections(kind="tcp"):
            if connection.status == psutil.CONN_LISTEN:
                ports.add(connection.laddr.port)
    return ports


def error_info(error: Any) -> error_details_pb2.ErrorInfo:
    return next(d for d in error.details if isinstance(d, error_details_pb2.ErrorInfo))


def test_a_refused_model_endpoint_is_invalid_argument_naming_the_field_and_the_rule(
    client: SluiceClient, canary: EmbeddingServer
) -> None:
    canary_url = f"http://127.0.0.2:{canary.port}/v1"
    cases = [
        (embedding_config(canary_url), "config.embedding.base_url"),
        (
            v1.KnowledgeBaseConfig(
                asr=v1.AsrConfig(model=v1.ModelConfig(model="whisper-1", base_url=canary_url))
            ),
            "config.asr.model.base_url",
        ),
        (
            v1.KnowledgeBaseConfig(
                summary=v1.SummaryConfig(model=v1.ModelConfig(model="m", base_url=canary_url))
            ),
            "config.summary.model.base_url",
        ),
    ]
    for config, field in cases:
        with pytest.raises(InvalidArgument) as refused:
            client.create_knowledge_base(f"refused-{uuid.uuid4().hex[:8]}", config=config)
        ((violation, description),) = refused.value.field_violations
        assert violation == field
        assert "refused by the SSRF policy: 127.0.0.2 is a loopback address" in description
        info = error_info(refused.value)
        assert info.reason == "MODEL_ENDPOINT_REFUSED" and info.metadata["field"] == field
    # An update is checked the same way (a given config replaces the whole config).
    kb = client.create_knowledge_base(f"update-{uuid.uuid4().hex[:8]}")
    with pytest.raises(InvalidArgument) as refused:
        client.update_knowledge_base(kb.id, config=cases[1][0])
    assert refused.value.field_violations[0][0] == "config.asr.model.base_url"
    stored = client.get_knowledge_base(kb.id).config
    asr = stored.asr if stored is not None else None
    assert asr is None or asr.model is None or not asr.model.base_url, "nothing was stored"
    assert canary.paths == []


def test_an_uploads_process_config_is_held_to_the_same_rules(
    client: SluiceClient, canary: EmbeddingServer, tmp_path: Path
) -> None:
    kb = client.create_knowledge_base(f"overrides-{uuid.uuid4().hex[:8]}")
    note = tmp_path / "note.md"
    note.write_text(SENTENCE)
    over = v1.ProcessConfig(
        asr=v1.AsrConfig(
            model=v1.ModelConfig(model="whisper-1", base_url=f"http://127.0.0.2:{canary.port}/v1")
        )
    )
    with pytest.raises(InvalidArgument) as refused:
        client.upload_file(kb.id, note, process_config=over)
    assert refused.value.field_violations[0][0] == "header.process_config.asr.model.base_url"
    assert "127.0.0.2 is a loopback address" in refused.value.field_violations[0][1]
    assert list(client.list_knowledge(kb.id)) == []
    assert canary.paths == []


def test_the_deployments_own_ports_stay_blocked_when_their_host_is_allow_listed(
    stack: Stack, client: SluiceClient, canary: EmbeddingServer
) -> None:
    ports = listening_ports(stack)
    # The API's port and at least Milvus' (in lite mode its in-process server's).
    assert int(stack.target.rsplit(":", 1)[1]) in ports and len(ports) >= 2
    kb = client.create_knowledge_base(f"ports-{uuid.uuid4().hex[:8]}")
    for port in sorted(ports):
        rule = f"port {port} is blocked"
        with pytest.raises(InvalidArgument, match=rule):
            client.create_from_url(kb.id, f"http://127.0.0.1:{port}/")
        with pytest.raises(InvalidArgument, match=rule) as refused:
            client.create_knowledge_base(
                f"port-{port}-{uuid.uuid4().hex[:8]}",
                config=embedding_config(f"http://127.0.0.1:{port}/v1"),
            )
        assert refused.value.field_violations[0][0] == "config.embedding.base_url"
    assert list(client.list_knowledge(kb.id)) == []


def test_an_allowed_endpoint_serves_ingest_and_search_then_a_refused_one_gets_nothing(
    client: SluiceClient,
    database: Database,
    models: EmbeddingServer,
    canary: EmbeddingServer,
) -> None:
    kb = client.create_knowledge_base(
        f"models-{uuid.uuid4().hex[:8]}", config=embedding_config(models.url("/v1"))
    )
    done = client.wait_until_done(client.create_manual(kb.id, "Gannet", SENTENCE).id, WAIT_S)
    assert done.parse_status == v1.ParseStatus.COMPLETED, done.error_message
    assert any(SENTENCE in h.content for h in client.search("Gannet lighthouse", [kb.id]))
    assert "/v1/embeddings" in models.paths

    # The allow-list no longer covers the endpoint the knowledge base names (or it was
    # configured before the policy checked model endpoints).
    repository = KnowledgeBaseRepository(database)
    row = repository.get(None, kb.id)
    assert row is not None
    config = json.loads(json.dumps(row.config))
    config["embedding"]["base_url"] = f"http://127.0.0.2:{canary.port}/v1"
    repository.update(None, kb.id, config=config)

    failed = client.wait_until_done(client.create_manual(kb.id, "Tern", SENTENCE).id, WAIT_S)
    assert failed.parse_status == v1.ParseStatus.FAILED
    assert "refused by the SSRF policy: 127.0.0.2 is a loopback address" in failed.error_message
    span = next(s for s in client.get_spans(failed.id).spans if s.name == "embedding")
    assert (span.status, span.error_code) == (v1.SpanStatus.FAILED, "MODEL_ENDPOINT_REFUSED")
    assert "will retry" not in span.error_message

    with pytest.raises(FailedPrecondition) as refused:
        client.search("Gannet lighthouse", [kb.id])
    assert "refused by the SSRF policy: 127.0.0.2 is a loopback address" in refused.value.message
    assert canary.paths == []


def test_an_asr_endpoint_refused_when_it_is_called_fails_the_audio_for_good(
    client: SluiceClient, database: Database, models: EmbeddingServer, canary: EmbeddingServer
) -> None:
    asr = v1.AsrConfig(model=v1.ModelConfig(model="whisper-1", base_url=models.url("/v1")))
    kb = client.create_knowledge_base(
        f"asr-{uuid.uuid4().hex[:8]}", config=v1.KnowledgeBaseConfig(asr=asr)
    )
    repository = KnowledgeBaseRepository(database)
    row = repository.get(None, kb.id)
    assert row is not None
    config = json.loads(json.dumps(row.config))
    config["asr"]["model"]["base_url"] = f"http://127.0.0.2:{canary.port}/v1"
    repository.update(None, kb.id, config=config)

    uploaded = client.upload_file(kb.id, io.BytesIO(wav_bytes(8000)), file_name="memo.wav")
    failed = client.wait_until_done(uploaded.id, WAIT_S)
    assert failed.parse_status == v1.ParseStatus.FAILED
    assert "ASR failed: the ASR endpoint" in failed.error_message
    assert "refused by the SSRF policy: 127.0.0.2 is a loopback address" in failed.error_message
    span = next(s for s in client.get_spans(failed.id).spans if s.name == "docreader")
    assert (span.status, span.error_code) == (v1.SpanStatus.FAILED, "MODEL_ENDPOINT_REFUSED")
    assert "will retry" not in span.error_message
    assert canary.paths == []

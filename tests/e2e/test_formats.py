"""Every format the gate accepts, end to end: a generated corpus with known sentences is
uploaded, read by the real docreader (OCR and LibreOffice included), chunked, embedded and
indexed; then every sentence is found by Search and each format's structure survived.

Audio goes to a real HTTP server speaking OpenAI's transcription protocol, configured as
the knowledge base's ASR model.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from sluice_client import SluiceClient
from sluice_client._proto.sluice import v1

from tests.e2e.stacks import Stack, full_stack, lite_stack
from tests.support.corpus import CorpusFile, build_corpus
from tests.support.openai_asr import MODEL, FakeOpenAI, heard, serve_openai_asr

WAIT_S = 300
# Big enough that each small corpus file is one chunk, so markers are never cut.
CHUNK_SIZE = 4000


@pytest.fixture(scope="module")
def asr() -> Iterator[FakeOpenAI]:
    with serve_openai_asr() as server:
        yield server


@pytest.fixture(scope="module", params=["lite", "full"])
def stack(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, asr: FakeOpenAI
) -> Iterator[Stack]:
    """The deployment, allowed to reach the ASR server on 127.0.0.1 at its port only."""
    make = lite_stack if request.param == "lite" else full_stack
    env = {"SLUICE_SSRF_ALLOW_HOSTS": asr.url.split("/")[2]}
    with make(tmp_path_factory.mktemp(f"formats-{request.param}"), extra_env=env) as running:
        yield running


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> list[CorpusFile]:
    return build_corpus(tmp_path_factory.mktemp("corpus"))


@pytest.fixture(scope="module")
def ingested(
    client: SluiceClient, corpus: list[CorpusFile], asr: FakeOpenAI
) -> dict[str, tuple[CorpusFile, v1.Knowledge]]:
    config = v1.KnowledgeBaseConfig(
        chunking=v1.ChunkingConfig(chunk_size=CHUNK_SIZE, chunk_overlap=0),
        asr=v1.AsrConfig(model=v1.ModelConfig(provider="openai", model=MODEL, base_url=asr.url)),
    )
    kb = client.create_knowledge_base(f"formats-{uuid.uuid4().hex[:8]}", config=config)
    uploaded = {f.file_type: (f, client.upload_file(kb.id, f.path)) for f in corpus}
    done = {kind: (f, client.wait_until_done(k.id, WAIT_S)) for kind, (f, k) in uploaded.items()}
    failed = {
        kind: k.error_message
        for kind, (_, k) in done.items()
        if k.parse_status != v1.ParseStatus.COMPLETED
    }
    assert not failed, f"not completed: {failed}"
    return done


def _markdown(client: SluiceClient, knowledge: v1.Knowledge) -> str:
    return "\n".join(chunk.content for chunk in client.list_chunks(knowledge.id))


def test_every_sentence_of_every_format_is_found_by_search(
    client: SluiceClient, ingested: dict[str, tuple[CorpusFile, v1.Knowledge]]
) -> None:
    missing: list[str] = []
    for corpus_file, knowledge in ingested.values():
        for sentence in corpus_file.sentences:
            hits = client.search(
                sentence, [knowledge.knowledge_base_id], top_k=10, mode=v1.SearchMode.HYBRID
            )
            if not any(
                hit.knowledge_id == knowledge.id and _words(sentence) <= _words(hit.content)
                for hit in hits
            ):
                missing.append(f"{corpus_file.file_type}: {sentence}")
    assert not missing, missing


def test_each_format_keeps_its_structure(
    client: SluiceClient, ingested: dict[str, tuple[CorpusFile, v1.Knowledge]]
) -> None:
    lost: dict[str, list[str]] = {}
    for kind, (corpus_file, knowledge) in ingested.items():
        markdown = _markdown(client, knowledge)
        absent = [marker for marker in corpus_file.fidelity if marker not in markdown]
        if absent:
            lost[kind] = absent
    assert not lost, lost


def test_embedded_images_are_stored_and_linked(
    client: SluiceClient, ingested: dict[str, tuple[CorpusFile, v1.Knowledge]]
) -> None:
    for kind, (corpus_file, knowledge) in ingested.items():
        if corpus_file.images:
            links = _markdown(client, knowledge).count("![")
            assert links >= corpus_file.images, f"{kind}: {links} image links"


def test_audio_is_transcribed_by_the_configured_asr_model(
    client: SluiceClient,
    ingested: dict[str, tuple[CorpusFile, v1.Knowledge]],
    asr: FakeOpenAI,
) -> None:
    corpus_file, knowledge = ingested["wav"]
    expected = heard(Path(corpus_file.path).read_bytes())
    assert expected in _markdown(client, knowledge)
    assert any(upload.file_name == corpus_file.path.name for upload in asr.uploads)


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))

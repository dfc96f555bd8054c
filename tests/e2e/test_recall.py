"""Search finds what went in: the small version of bench/recall.py.

A few documents (Markdown, docx, pptx, xlsx, JSON) in English, Russian and Chinese hold
invented facts in body text, headings, list items, table cells, footnotes, speaker notes and
JSON leaves (tests/support/recall_corpus.py); each fact's question, in other words than
the fact, is searched with the server's defaults. Every text fact must come back in the top
five hits, in every format and language.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sluice_client import SluiceClient

from tests.support.recall_corpus import build_recall_corpus
from tests.support.recall_documents import RecallDocument
from tests.support.recall_facts import TEXT_LOCATIONS
from tests.support.recall_measure import Ingested, Outcome, ask, ingest, recall

FORMATS = ("md", "docx", "pptx", "xlsx", "json")
LANGUAGES = ("en", "ru", "zh")
WAIT_S = 300.0


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> list[RecallDocument]:
    return build_recall_corpus(tmp_path_factory.mktemp("recall-corpus"), FORMATS, LANGUAGES)


@pytest.fixture(scope="module")
def indexed(
    client: SluiceClient, corpus: list[RecallDocument]
) -> Iterator[tuple[str, dict[str, Ingested]]]:
    kb = client.create_knowledge_base("recall")
    yield kb.id, ingest(client, kb.id, corpus, WAIT_S)


def _describe(outcome: Outcome) -> str:
    where = "in no chunk" if not outcome.indexed else "indexed, ranked below 5"
    return (
        f"{outcome.fact.fact_id} ({where}): {outcome.fact.question!r} -> top hit "
        f"{outcome.top_hit!r}"
    )


def test_every_document_is_indexed(indexed: tuple[str, dict[str, Ingested]]) -> None:
    _, ingested = indexed
    failed = {
        key: f"{i.status}: {i.error}" for key, i in ingested.items() if i.status != "COMPLETED"
    }
    assert failed == {}


def test_every_text_fact_is_in_the_top_five_with_the_defaults(
    client: SluiceClient,
    corpus: list[RecallDocument],
    indexed: tuple[str, dict[str, Ingested]],
) -> None:
    kb_id, ingested = indexed
    outcomes = [
        o for o in ask(client, kb_id, corpus, ingested, modes=["default"]) if o.kind == "text"
    ]
    assert len(outcomes) == sum(f.location in TEXT_LOCATIONS for d in corpus for f in d.facts)
    per_cell = {
        f"{fmt}/{lang}": recall(
            o for o in outcomes if o.format == fmt and o.fact.language == lang
        ).at5
        for fmt in FORMATS
        for lang in LANGUAGES
    }
    below = {cell: at5 for cell, at5 in per_cell.items() if at5 < 1.0}
    missed = [_describe(o) for o in outcomes if o.rank is None]
    assert below == {}, "recall@5 below 100% (format/language):\n" + "\n".join(missed)

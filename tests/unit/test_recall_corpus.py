"""The recall corpus measures what it claims: every format in every language, each fact's
answer unique and only in its own document, questions worded otherwise than the facts, and
files the docreader recognises as their format."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest

from server.docreader.sniff import sniff_file_type
from tests.support.recall_corpus import FORMATS, LANGUAGES, build_recall_corpus
from tests.support.recall_documents import (
    Heading,
    Items,
    Note,
    Paragraph,
    Picture,
    RecallDocument,
    Table,
    compose_corpus,
)
from tests.support.recall_measure import holds
from tests.support.recall_relations import RELATIONS


def _texts(doc: RecallDocument) -> list[str]:
    texts: list[str] = []
    for block in doc.blocks:
        if isinstance(block, Heading | Paragraph | Note):
            texts.append(block.text)
        elif isinstance(block, Items):
            texts += block.items
        elif isinstance(block, Table):
            texts += [" ".join(row) for row in block.rows]
        elif isinstance(block, Picture):
            texts.append(" ".join(block.lines))
    return texts


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.lower()))


@pytest.fixture(scope="module")
def corpus() -> list[RecallDocument]:
    return compose_corpus()


def test_every_format_and_language_has_a_document_with_a_fact_per_location(
    corpus: list[RecallDocument],
) -> None:
    assert {(d.format, d.language) for d in corpus} == {
        (f, lang) for f in FORMATS for lang in LANGUAGES
    }
    for doc in corpus:
        assert [f.location for f in doc.facts] == list(FORMATS[doc.format].locations)
        assert {f.language for f in doc.facts} == {doc.language}


def test_each_answer_is_unique_and_appears_once_in_its_own_document_only(
    corpus: list[RecallDocument],
) -> None:
    answers = Counter(f.answer for d in corpus for f in d.facts)
    assert max(answers.values()) == 1
    for doc in corpus:
        others = " ".join(t for other in corpus if other is not doc for t in _texts(other))
        mine = " ".join(_texts(doc))
        for fact in doc.facts:
            assert fact.answer in fact.statement and fact.answer not in fact.question
            # Heading facts appear as their heading, table facts as their row.
            assert mine.count(fact.answer) == 1, fact.fact_id
            assert fact.answer not in others, fact.fact_id


def test_questions_are_worded_otherwise_than_the_facts(corpus: list[RecallDocument]) -> None:
    for doc in corpus:
        for fact in doc.facts:
            assert fact.question not in fact.statement
            if fact.language != "zh":
                assert not _words(fact.question) <= _words(fact.statement), fact.fact_id
    for language, relations in RELATIONS.items():
        assert len({r.question for r in relations}) == len(relations), language


def test_the_files_are_what_their_format_says(tmp_path: Path) -> None:
    formats = tuple(f for f in FORMATS if f not in ("doc", "ppt"))  # LibreOffice: e2e covers
    for doc in build_recall_corpus(tmp_path, formats, ("zh",)):
        assert doc.path is not None and doc.path.stat().st_size > 0
        assert sniff_file_type(doc.path, doc.file_type) == doc.file_type, doc.key


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("支付了6375枚银币", True),
        ("| Wynrv | Dleosthal | 6375 |", True),
        ("| 6375.0 |", True),  # xls numbers come back as floats
        ("has 6375\nregistered singers", True),
        ("163750 crates", False),
        ("![figure](file:///data/files/exports/5dcc-6375_17961350.png)", False),
    ],
)
def test_a_hit_holds_the_answer_only_as_a_whole_number_outside_links(
    text: str, found: bool
) -> None:
    assert holds(text, "6375") is found

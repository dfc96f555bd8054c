"""Measuring recall on a running Sluice: ingest the recall corpus into one knowledge base as a
user would (every upload first, then wait for each), ask every fact's question in each search
mode, and score where the first chunk holding the answer ranks.

A hit holds a fact when it belongs to the fact's document and its text contains the fact's
answer (a number no other fact or filler has) as a whole number, outside link targets (the
digits of a stored image's file name are no answer). For a fact not found, ``indexed`` tells
whether any chunk of its document holds the answer at all: if not, the text was lost before
search (parsing, OCR), else search ranked it below the cut.
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from sluice_client import SluiceClient
from sluice_client._proto.sluice import v1

from core.extensions import IMAGE_EXTENSIONS
from tests.support.recall_documents import RecallDocument
from tests.support.recall_facts import PICTURE_LOCATIONS, Fact

SEARCH_MODES: dict[str, v1.SearchMode | None] = {
    "default": None,
    "dense": v1.SearchMode.VECTOR,
    "keyword": v1.SearchMode.KEYWORD,
    "hybrid": v1.SearchMode.HYBRID,
}
TOP_K = 5


_LINK_TARGET = re.compile(r"\]\([^)]*\)")


def holds(text: str, answer: str) -> bool:
    """Whether ``text`` states ``answer``: the number alone, not part of a longer one or of a
    link."""
    bare = _LINK_TARGET.sub("]", text)
    return re.search(rf"(?<![0-9A-Za-z]){re.escape(answer)}(?![0-9A-Za-z])", bare) is not None


@dataclass(frozen=True)
class Ingested:
    knowledge_id: str
    status: str
    error: str
    # The answers that some chunk of the document contains.
    indexed_answers: frozenset[str]


@dataclass(frozen=True)
class Outcome:
    fact: Fact
    format: str
    mode: str
    # 1-based rank of the first hit holding the answer; None when not in the top TOP_K.
    rank: int | None
    indexed: bool
    # The best hit's document and opening, for reading why a fact was missed.
    top_hit: str

    @property
    def kind(self) -> str:
        return "picture" if self.fact.location in PICTURE_LOCATIONS else "text"


def ingest(
    client: SluiceClient,
    kb_id: str,
    documents: Sequence[RecallDocument],
    timeout_s: float,
    *,
    multimodal: bool = False,
) -> dict[str, Ingested]:
    """Upload every document, then wait for each and read back its chunks. ``multimodal``:
    uploaded with multimodal processing on (the pictures inside documents read by OCR), but
    for picture files, which the docreader reads by OCR itself."""
    uploaded = {}
    for doc in documents:
        assert doc.path is not None
        knowledge = client.upload_file(
            kb_id,
            io.BytesIO(doc.path.read_bytes()),
            file_name=doc.file_name,
            enable_multimodel=True if multimodal and doc.format not in IMAGE_EXTENSIONS else None,
        )
        uploaded[doc.key] = knowledge.id
    result = {}
    for doc in documents:
        done = client.wait_until_done(uploaded[doc.key], timeout=timeout_s)
        chunks = [c.content for c in client.list_chunks(done.id)]
        answers = frozenset(f.answer for f in doc.facts if any(holds(c, f.answer) for c in chunks))
        result[doc.key] = Ingested(done.id, done.parse_status.name, done.error_message, answers)
    return result


def ask(
    client: SluiceClient,
    kb_id: str,
    documents: Sequence[RecallDocument],
    ingested: dict[str, Ingested],
    modes: Iterable[str] = SEARCH_MODES,
) -> list[Outcome]:
    outcomes = []
    keys = {ingest.knowledge_id: key for key, ingest in ingested.items()}
    for mode in modes:
        for doc in documents:
            own = ingested[doc.key]
            for fact in doc.facts:
                hits = client.search(fact.question, [kb_id], top_k=TOP_K, mode=SEARCH_MODES[mode])
                rank = next(
                    (
                        n
                        for n, hit in enumerate(hits, start=1)
                        if hit.knowledge_id == own.knowledge_id and _answers(hit, fact.answer)
                    ),
                    None,
                )
                top = _opening(keys, hits[0]) if hits else "(no hits)"
                outcomes.append(
                    Outcome(fact, doc.format, mode, rank, fact.answer in own.indexed_answers, top)
                )
    return outcomes


def _answers(hit: v1.SearchResult, answer: str) -> bool:
    """The hit holds the answer: its chunk, or the picture text of it that matched."""
    return holds(hit.content, answer) or holds(hit.matched_content, answer)


def _opening(documents: dict[str, str], hit: v1.SearchResult) -> str:
    """The hit's document key and the start of its text, on one line."""
    return f"{documents.get(hit.knowledge_id, '?')}: {' '.join(hit.content.split())[:80]}"


@dataclass(frozen=True)
class Recall:
    facts: int
    at1: float
    at5: float
    # Facts missed at 5 whose answer no chunk holds (lost before search).
    not_indexed: int


def recall(outcomes: Iterable[Outcome]) -> Recall:
    chosen = list(outcomes)
    if not chosen:
        return Recall(0, 0.0, 0.0, 0)
    first = sum(o.rank == 1 for o in chosen)
    five = sum(o.rank is not None for o in chosen)
    lost = sum(o.rank is None and not o.indexed for o in chosen)
    return Recall(len(chosen), first / len(chosen), five / len(chosen), lost)


def grouped(
    outcomes: Sequence[Outcome], key: Callable[[Outcome], str]
) -> dict[str, dict[str, Recall]]:
    """Recall per mode, then per ``key`` (language, format, location, kind)."""
    table: dict[str, dict[str, Recall]] = {}
    for mode in dict.fromkeys(o.mode for o in outcomes):
        mine = [o for o in outcomes if o.mode == mode]
        groups = dict.fromkeys(key(o) for o in mine)
        table[mode] = {g: recall(o for o in mine if key(o) == g) for g in groups}
    return table


def misses(outcomes: Iterable[Outcome], mode: str, kind: str) -> list[Outcome]:
    return [o for o in outcomes if o.mode == mode and o.kind == kind and o.rank is None]

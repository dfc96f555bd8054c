"""Index rows copied under new owners without re-embedding.

A clone gives each copied chunk a new id and the rows a new knowledge and knowledge base; a
move keeps the chunk ids and changes only the knowledge base. Both read the stored rows
(dense vector and sparse keyword weights included) and write them again rewritten.

The sparse vector is copied as stored. Its BM25 weights depend on the row's text alone; its
counting dimensions (term_counting) were sampled by the source row's id, and keeping them
keeps every term count a function of the rows in scope: a clone's rows count, and so score,
exactly as the source's do.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pymilvus import MilvusClient

from storage.index import collection_schema as cs
from storage.index.client_calls import query_all
from storage.index.expressions import field_in
from storage.index.row_codec import batches, floats

_READ_BATCH = 500


@dataclass(frozen=True)
class RowOwner:
    """Who copied rows belong to."""

    tenant_id: str
    knowledge_base_id: str
    # Source knowledge id -> target knowledge id; a knowledge not named keeps its id.
    knowledge_ids: Mapping[str, str] = field(default_factory=dict)


def read_rows(
    client: MilvusClient, name: str, chunk_ids: Sequence[str], *, lite: bool
) -> list[dict[str, Any]]:
    """Every stored row (chunk and derived sources) of `chunk_ids`, with all its fields."""
    rows: list[dict[str, Any]] = []
    for batch in batches(list(chunk_ids), _READ_BATCH):
        rows.extend(query_all(client, name, field_in(cs.CHUNK_ID, batch), ["*"], lite=lite))
    return rows


def copied_rows(
    stored: Sequence[Mapping[str, Any]], chunk_ids: Mapping[str, str], owner: RowOwner
) -> list[dict[str, Any]]:
    """`stored` rewritten: row id `{chunk}` or `{chunk}-{n}` under its mapped chunk id, the
    owner's tenant, knowledge base and mapped knowledge."""
    copies = []
    for row in stored:
        source_chunk = str(row[cs.CHUNK_ID])
        target_chunk = chunk_ids[source_chunk]
        row_id = str(row[cs.ID])
        knowledge_id = str(row[cs.KNOWLEDGE_ID])
        copy = {
            cs.ID: target_chunk + row_id[len(source_chunk) :],
            cs.TENANT_ID: owner.tenant_id,
            cs.KNOWLEDGE_BASE_ID: owner.knowledge_base_id,
            cs.KNOWLEDGE_ID: owner.knowledge_ids.get(knowledge_id, knowledge_id),
            cs.CHUNK_ID: target_chunk,
            cs.SOURCE_TYPE: row[cs.SOURCE_TYPE],
            cs.IS_ENABLED: bool(row[cs.IS_ENABLED]),
            cs.CONTENT: row[cs.CONTENT],
            cs.SPARSE: {int(dim): float(weight) for dim, weight in row[cs.SPARSE].items()},
        }
        if cs.DENSE in row:
            copy[cs.DENSE] = floats(row[cs.DENSE])
        copies.append(copy)
    return copies

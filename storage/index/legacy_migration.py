"""Schema 1 -> 2: a model's `sluice_*` collection (Milvus's BM25 function) is copied into its
`sluice2_*` collection, keyword weights computed from each row's stored content, then dropped.

Schema-1 rows kept no title or breadcrumbs for keyword search, so a migrated row matches
keywords of its content only until its knowledge is reparsed; its vector is copied unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pymilvus import MilvusClient

from storage.index import collection_schema as cs
from storage.index.row_vectors import sparse_vector

_PAGE = 500
_COPIED = [
    cs.ID,
    cs.TENANT_ID,
    cs.KNOWLEDGE_BASE_ID,
    cs.KNOWLEDGE_ID,
    cs.CHUNK_ID,
    cs.SOURCE_TYPE,
    cs.IS_ENABLED,
    cs.CONTENT,
    cs.DENSE,
]


def legacy_dimension(client: MilvusClient, legacy: str) -> int | None:
    """The vector dimension of the schema-1 collection `legacy`; None when there is none."""
    if not client.has_collection(legacy):
        return None
    for field in client.describe_collection(legacy)["fields"]:
        if field["name"] == cs.DENSE:
            return int(field["params"]["dim"])
    return None


def copy_and_drop(
    client: MilvusClient,
    legacy: str,
    write: Callable[[Sequence[dict[str, Any]]], None],
) -> int:
    """Copy every row of `legacy` through `write` (an idempotent upsert into the new one), then
    drop `legacy`; returns how many rows were copied. Interrupted, it is run again from the
    start on the next open: rows already copied are simply rewritten."""
    client.load_collection(legacy)
    iterator = client.query_iterator(
        legacy, batch_size=_PAGE, filter=f'{cs.ID} != ""', output_fields=_COPIED
    )
    copied = 0
    try:
        while page := iterator.next():
            write([_migrated(row) for row in page])
            copied += len(page)
    finally:
        iterator.close()
    client.drop_collection(legacy)
    return copied


def _migrated(row: dict[str, Any]) -> dict[str, Any]:
    copied = {field: row[field] for field in _COPIED}
    copied[cs.DENSE] = [float(x) for x in row[cs.DENSE]]
    copied[cs.SPARSE] = sparse_vector(str(row[cs.ID]), str(row[cs.CONTENT]))
    return copied

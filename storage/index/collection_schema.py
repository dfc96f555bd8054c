"""Collection naming, schema and index parameters: one collection per embedding model/dimension.

Schema version 2 (collections `sluice2_*`) stores our own BM25 row weights in SPARSE (see
keyword_scoring); version 1 (`sluice_*`) had Milvus compute BM25 from a BM25_TEXT field and is
migrated on first use (legacy_migration)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable
from enum import StrEnum

from pymilvus import CollectionSchema, DataType, MilvusClient
from pymilvus.milvus_client.index import IndexParams

ID = "id"
TENANT_ID = "tenant_id"
KNOWLEDGE_BASE_ID = "knowledge_base_id"
KNOWLEDGE_ID = "knowledge_id"
CHUNK_ID = "chunk_id"
SOURCE_TYPE = "source_type"
IS_ENABLED = "is_enabled"
CONTENT = "content"
SPARSE = "sparse"
DENSE = "dense"

# Filters on these run on every search, delete and enable/disable.
SCALAR_INDEXED = (KNOWLEDGE_BASE_ID, KNOWLEDGE_ID, CHUNK_ID)
INDEXED_FIELDS = (DENSE, SPARSE, *SCALAR_INDEXED)

DENSE_METRIC = "COSINE"
# Row weights x query idf (keyword_scoring).
SPARSE_METRIC = "IP"

# Milvus counts VARCHAR max_length in bytes (milvus-lite in characters); we cut by UTF-8 bytes.
TEXT_MAX_BYTES = 65_535
_ID_MAX = 256
_REF_MAX = 128
NUM_PARTITIONS = 16
_NAME_MAX = 255


class DenseIndex(StrEnum):
    # milvus-lite searches each segment with numpy/faiss; brute force measured faster than its
    # HNSW at our sizes (10k x 384: 5 ms vs 6-18 ms per query).
    FLAT = "FLAT"
    # A Milvus server picks and tunes a graph index itself.
    AUTOINDEX = "AUTOINDEX"


def collection_name(model_key: str) -> str:
    """`local/all-MiniLM-L6-v2/384` -> `sluice2_local_all_minilm_l6_v2_384` (Milvus name rules)."""
    return _named("sluice2", model_key)


def legacy_collection_name(model_key: str) -> str:
    """The schema-1 collection of `model_key`: `sluice_local_all_minilm_l6_v2_384`."""
    return _named("sluice", model_key)


def _named(prefix: str, model_key: str) -> str:
    slug = re.sub(r"[^a-z0-9]+", "_", model_key.lower()).strip("_")
    if not slug:
        raise ValueError(f"model key {model_key!r} has no usable characters")
    name = f"{prefix}_{slug}"
    if len(name) > _NAME_MAX:
        digest = hashlib.sha1(model_key.encode("utf-8")).hexdigest()[:12]
        name = f"{name[: _NAME_MAX - len(digest) - 1]}_{digest}"
    return name


def build_schema(dimension: int) -> CollectionSchema:
    """Dimension 0: a keyword-only collection, without the dense field (core.index_sides)."""
    schema = MilvusClient.create_schema(auto_id=False, enable_dynamic_field=False)
    schema.add_field(ID, DataType.VARCHAR, max_length=_ID_MAX, is_primary=True)
    schema.add_field(TENANT_ID, DataType.VARCHAR, max_length=_REF_MAX)
    # Every search is scoped to knowledge bases, so Milvus can prune partitions by this key.
    schema.add_field(
        KNOWLEDGE_BASE_ID, DataType.VARCHAR, max_length=_REF_MAX, is_partition_key=True
    )
    schema.add_field(KNOWLEDGE_ID, DataType.VARCHAR, max_length=_REF_MAX)
    schema.add_field(CHUNK_ID, DataType.VARCHAR, max_length=_REF_MAX)
    schema.add_field(SOURCE_TYPE, DataType.VARCHAR, max_length=_REF_MAX)
    schema.add_field(IS_ENABLED, DataType.BOOL)
    schema.add_field(CONTENT, DataType.VARCHAR, max_length=TEXT_MAX_BYTES)
    schema.add_field(SPARSE, DataType.SPARSE_FLOAT_VECTOR)
    if dimension:
        schema.add_field(DENSE, DataType.FLOAT_VECTOR, dim=dimension)
    return schema


def build_index_params(dense_index: DenseIndex, fields: Iterable[str]) -> IndexParams:
    """Index parameters for `fields` (each index is named after its field)."""
    params = MilvusClient.prepare_index_params()
    for field in fields:
        if field == DENSE:
            params.add_index(DENSE, index_type=dense_index.value, metric_type=DENSE_METRIC)
        elif field == SPARSE:
            params.add_index(SPARSE, index_type="SPARSE_INVERTED_INDEX", metric_type=SPARSE_METRIC)
        elif field in SCALAR_INDEXED:
            params.add_index(field, index_type="INVERTED")
        else:
            raise ValueError(f"{field} is not an indexed field")
    return params

"""Chunk index on Milvus / milvus-lite: dense vectors and our BM25, scoped by knowledge base.

One collection per embedding model/dimension (`collection_name`). The URI is either a local
path ending in `.db` (milvus-lite in this process, for one process only) or `http://host:port`
(a `milvus-lite server` shared by several processes, or a real Milvus).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from functools import partial
from pathlib import Path
from typing import Any

import grpc
from pymilvus import AnnSearchRequest, MilvusException

from core.index_sides import NO_INDEX_KEY, is_keyword_only
from storage.index import collection_schema as cs
from storage.index.client_calls import query_all, with_reload
from storage.index.collection_schema import DenseIndex, collection_name, legacy_collection_name
from storage.index.connection import (
    DEFAULT_LOCK_DIR,
    close_connection,
    is_unavailable,
    local_server_port,
    lock_scope,
    open_connection,
    rpc_unavailable,
    write_lock,
)
from storage.index.errors import IndexStoreError, IndexUnavailableError
from storage.index.expressions import all_of, field_eq, field_in
from storage.index.fusion import fuse
from storage.index.keyword_search import keyword_query
from storage.index.legacy_migration import copy_and_drop, legacy_dimension
from storage.index.records import IndexHit, IndexRow
from storage.index.row_codec import HIT_FIELDS, batches, floats, hit_of, row_data
from storage.index.row_copy import RowOwner
from storage.index.row_writes import RowWrites

__all__ = [
    "IndexHit",
    "IndexRow",
    "IndexStoreError",
    "IndexUnavailableError",
    "MilvusIndex",
    "RowOwner",
    "collection_name",
]

# Another process may have created the collection an instant ago and still be building its
# indexes; loading it fails until they exist.
_LOAD_ATTEMPTS = 20
_LOAD_RETRY_DELAY = 0.25
# Chunk ids per filter expression of a read by chunk (Milvus caps an expression's length).
_CHUNK_FILTER_BATCH = 500


class MilvusIndex(RowWrites):
    """Thread-safe. Writes to one collection are serialised within the process, and across
    the processes of a machine sharing a milvus-lite server. Deleting rows, flipping their
    enabled flag and copying them are RowWrites' (row_writes)."""

    def __init__(
        self,
        uri: str,
        *,
        token: str = "",
        timeout: float | None = 30.0,
        write_batch_size: int = 500,
        lock_dir: Path = DEFAULT_LOCK_DIR,
    ) -> None:
        self._lock_scope = lock_scope(uri)
        self._connection = open_connection(uri, token=token, timeout=timeout)
        self._client = self._connection.client
        # Only this process can open a milvus-lite file, and a Milvus server copes with
        # concurrent writers itself; the processes sharing a milvus-lite server need a lock.
        shared_lite = self.is_lite and self._connection.local_path is None
        self._lock_dir = lock_dir if shared_lite else None
        self._write_batch_size = write_batch_size
        # Collections known to exist and be loaded by this instance, with their dimension.
        self._ready: dict[str, int] = {}
        self._ready_lock = threading.Lock()
        self._closed = False

    # ── lifecycle ────────────────────────────────────────────────────────────────────────

    @property
    def is_lite(self) -> bool:
        return self._connection.is_lite

    @property
    def local_server_port(self) -> int | None:
        """The loopback port of this process's milvus-lite server, None for a server URI."""
        return local_server_port(self._connection)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        close_connection(self._connection)

    def __enter__(self) -> MilvusIndex:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # ── collections ──────────────────────────────────────────────────────────────────────

    def ensure_collection(self, model_key: str, dimension: int) -> str:
        """Create (if missing) and load the collection for `model_key`; returns its name.
        The keyword-only key's collection has no vectors (dimension 0).

        Idempotent, and safe when several processes race to create the same collection."""
        if (dimension != 0) if is_keyword_only(model_key) else (dimension <= 0):
            raise IndexStoreError(f"invalid vector dimension {dimension} for {model_key!r}")
        name = collection_name(model_key)
        with self._ready_lock:
            known = self._ready.get(name)
        if known is None:
            with self._errors(f"create collection {name}"), self._writing(name):
                if not self._client.has_collection(name):
                    self._create(name, dimension)
                # Also completes a collection whose creator died before indexing it.
                self._create_missing_indexes(name)
                known = self._load(name)
                self._migrate_legacy(model_key, name)
        if known != dimension:
            raise IndexStoreError(
                f"collection {name} holds {known}-dimensional vectors, not {dimension}"
            )
        return name

    def _create(self, name: str, dimension: int) -> None:
        try:
            self._client.create_collection(
                name,
                schema=cs.build_schema(dimension),
                num_partitions=cs.NUM_PARTITIONS,
                # Freshly indexed chunks must be searchable at once (ingestion is verified by
                # searching), which Milvus's default "Bounded" does not promise.
                consistency_level="Strong",
            )
        except MilvusException as exc:
            if not _already_exists(exc):
                raise

    def _create_missing_indexes(self, name: str) -> None:
        present = set(self._client.list_indexes(name))
        fields = {field["name"] for field in self._client.describe_collection(name)["fields"]}
        dense = DenseIndex.FLAT if self.is_lite else DenseIndex.AUTOINDEX
        for field in cs.INDEXED_FIELDS:
            if field in present or field not in fields:
                continue
            try:
                # Indexes on an empty collection are ready at once; waiting for them
                # (sync=True) would poll every 0.5 s per index.
                self._client.create_index(name, cs.build_index_params(dense, [field]), sync=False)
            except MilvusException as exc:
                if not _already_exists(exc):  # else a racing process indexed it first
                    raise

    def _load(self, name: str) -> int:
        """Load `name` (waiting out a concurrent creator) and remember its dimension."""
        for attempt in range(_LOAD_ATTEMPTS):
            try:
                self._client.load_collection(name)
                break
            except MilvusException as exc:
                gone = "not exist" in exc.message.lower()
                if gone or is_unavailable(exc) or attempt == _LOAD_ATTEMPTS - 1:
                    raise
                time.sleep(_LOAD_RETRY_DELAY)
        dimension = self._dimension_of(name)
        with self._ready_lock:
            self._ready[name] = dimension
        return dimension

    def _migrate_legacy(self, model_key: str, name: str) -> None:
        """Move the rows of `model_key`'s schema-1 collection, if one is left, into `name`."""
        legacy = legacy_collection_name(model_key)
        if legacy_dimension(self._client, legacy) is None:
            return

        def write(rows: Sequence[dict[str, Any]]) -> None:
            with_reload(self._client, name, partial(self._client.upsert, name, list(rows)))

        with self._writing(legacy):
            if self._client.has_collection(legacy):  # else another process just moved it
                copy_and_drop(self._client, legacy, write)
        self._settle(name)

    def _dimension_of(self, name: str) -> int:
        description: Mapping[str, Any] = self._client.describe_collection(name)
        for field in description["fields"]:
            if field["name"] == cs.DENSE:
                return int(field["params"]["dim"])
        return 0  # keyword-only

    def _existing(self, model_key: str) -> str | None:
        """The loaded collection for `model_key`, or None when nothing was ever indexed for it
        (always for NO_INDEX_KEY: a knowledge base that indexes nothing)."""
        if model_key == NO_INDEX_KEY:
            return None
        name = collection_name(model_key)
        with self._ready_lock:
            if name in self._ready:
                return name
        with self._errors(f"open collection {name}"):
            if not self._client.has_collection(name):
                legacy = legacy_dimension(self._client, legacy_collection_name(model_key))
                return None if legacy is None else self.ensure_collection(model_key, legacy)
            self._load(name)
        return name

    # ── writes ───────────────────────────────────────────────────────────────────────────

    def upsert(self, model_key: str, rows: Sequence[IndexRow]) -> None:
        """Insert or replace rows by id, so a retried batch never duplicates. Nothing is
        written for NO_INDEX_KEY; the keyword-only collection keeps no vectors, so rows a
        caller embedded anyway are written without theirs."""
        if not rows or model_key == NO_INDEX_KEY:
            return
        if is_keyword_only(model_key):
            rows = [replace(row, vector=()) for row in rows]
        dimension = len(rows[0].vector)
        for row in rows:
            if len(row.vector) != dimension:
                raise IndexStoreError(
                    f"row {row.id} has a {len(row.vector)}-dimensional vector, expected {dimension}"
                )
        name = self.ensure_collection(model_key, dimension)
        data = [row_data(row) for row in rows]
        with self._errors(f"upsert into {name}"), self._writing(name):
            for batch in batches(data, self._write_batch_size):
                with_reload(self._client, name, partial(self._client.upsert, name, batch))
            self._settle(name)

    def _settle(self, name: str) -> None:
        # milvus-lite scans unflushed rows in Python on every search (about 30 us per row, up
        # to a 128 MiB memtable), so each write is flushed into indexed segments. A Milvus
        # server seals segments itself and rate-limits explicit flushes.
        if self.is_lite:
            self._client.flush(name)

    # ── reads ────────────────────────────────────────────────────────────────────────────

    def count(self, model_key: str, knowledge_id: str) -> int:
        name = self._existing(model_key)
        if name is None:
            return 0
        with self._errors(f"count in {name}"):
            result = with_reload(
                self._client,
                name,
                lambda: self._client.query(
                    name, filter=field_eq(cs.KNOWLEDGE_ID, knowledge_id), output_fields=["count(*)"]
                ),
            )
        return int(result[0]["count(*)"])

    def ids_for_knowledge(self, model_key: str, knowledge_id: str) -> list[str]:
        return self._values_for_knowledge(model_key, knowledge_id, cs.ID)

    def chunk_ids_for_knowledge(self, model_key: str, knowledge_id: str) -> list[str]:
        """The chunks the knowledge's rows belong to (each once; derived rows share one)."""
        return self._values_for_knowledge(model_key, knowledge_id, cs.CHUNK_ID)

    def ids_for_chunks(self, model_key: str, chunk_ids: Sequence[str]) -> list[str]:
        """The ids of every row (chunk and derived sources) of the given chunks."""
        name = self._existing(model_key) if chunk_ids else None
        if name is None:
            return []
        found: set[str] = set()
        with self._errors(f"list {cs.ID} in {name}"):
            for batch in batches(list(chunk_ids), _CHUNK_FILTER_BATCH):
                rows = query_all(
                    self._client, name, field_in(cs.CHUNK_ID, batch), [cs.ID], lite=self.is_lite
                )
                found.update(str(row[cs.ID]) for row in rows)
        return sorted(found)

    def _values_for_knowledge(self, model_key: str, knowledge_id: str, field: str) -> list[str]:
        name = self._existing(model_key)
        if name is None:
            return []
        with self._errors(f"list {field} in {name}"):
            rows = query_all(
                self._client,
                name,
                field_eq(cs.KNOWLEDGE_ID, knowledge_id),
                [field],
                lite=self.is_lite,
            )
        return sorted({str(row[field]) for row in rows})

    def search_dense(
        self,
        model_key: str,
        vector: Sequence[float],
        *,
        tenant_ids: Sequence[str],
        knowledge_base_ids: Sequence[str],
        knowledge_ids: Sequence[str] | None = None,
        excluded_knowledge_ids: Sequence[str] = (),
        top_k: int = 10,
    ) -> list[IndexHit]:
        """Nearest enabled rows by cosine similarity (score in [-1, 1]); not for the
        keyword-only collection."""
        _needs_vectors(model_key)
        name, expr = self._search_scope(
            model_key, tenant_ids, knowledge_base_ids, knowledge_ids, excluded_knowledge_ids, top_k
        )
        if name is None:
            return []
        request = _request(floats(vector), cs.DENSE, cs.DENSE_METRIC, expr, top_k)
        return [hit_of(hit, float(hit["distance"])) for hit in self._search(name, request)]

    def search_keyword(
        self,
        model_key: str,
        query_text: str,
        *,
        tenant_ids: Sequence[str],
        knowledge_base_ids: Sequence[str],
        knowledge_ids: Sequence[str] | None = None,
        excluded_knowledge_ids: Sequence[str] = (),
        top_k: int = 10,
    ) -> list[IndexHit]:
        """Enabled rows ranked by BM25 over their keyword text, idf from the searched scope
        (keyword_scoring; score > 0)."""
        name, expr = self._search_scope(
            model_key, tenant_ids, knowledge_base_ids, knowledge_ids, excluded_knowledge_ids, top_k
        )
        if name is None:
            return []
        return self._keyword_hits(name, expr, query_text, top_k)

    def _keyword_hits(self, name: str, expr: str, query_text: str, limit: int) -> list[IndexHit]:
        with self._errors(f"keyword search {name}"):
            query = keyword_query(self._client, name, expr, query_text)
        if not query:
            return []
        request = _request(query, cs.SPARSE, cs.SPARSE_METRIC, expr, limit)
        return [hit_of(hit, float(hit["distance"])) for hit in self._search(name, request)]

    def search_hybrid(
        self,
        model_key: str,
        vector: Sequence[float],
        query_text: str,
        *,
        tenant_ids: Sequence[str],
        knowledge_base_ids: Sequence[str],
        knowledge_ids: Sequence[str] | None = None,
        excluded_knowledge_ids: Sequence[str] = (),
        top_k: int = 10,
    ) -> list[IndexHit]:
        """Dense and keyword rankings fused by their scaled scores, each ranking's first hit
        kept (fusion.fuse); not for the keyword-only collection."""
        _needs_vectors(model_key)
        name, expr = self._search_scope(
            model_key, tenant_ids, knowledge_base_ids, knowledge_ids, excluded_knowledge_ids, top_k
        )
        if name is None:
            return []
        # Deeper candidate lists let a row ranked well by only one side still surface.
        depth = top_k * 2
        dense_request = _request(floats(vector), cs.DENSE, cs.DENSE_METRIC, expr, depth)
        dense = [hit_of(h, float(h["distance"])) for h in self._search(name, dense_request)]
        keyword = self._keyword_hits(name, expr, query_text, depth)
        return fuse(dense, keyword, top_k=top_k)

    def _search(self, name: str, request: AnnSearchRequest) -> list[Mapping[str, Any]]:
        with self._errors(f"search {name}"):
            result = with_reload(
                self._client,
                name,
                lambda: self._client.search(
                    name,
                    data=request.data,
                    anns_field=request.anns_field,
                    filter=request.expr,
                    limit=request.limit,
                    output_fields=HIT_FIELDS,
                    search_params=request.param,
                ),
            )
        return list(result[0])

    def _search_scope(
        self,
        model_key: str,
        tenant_ids: Sequence[str],
        knowledge_base_ids: Sequence[str],
        knowledge_ids: Sequence[str] | None,
        excluded_knowledge_ids: Sequence[str],
        top_k: int,
    ) -> tuple[str | None, str]:
        """The collection and filter of a search; no collection when the scope is empty.
        The tenants are in the filter as well as the knowledge bases, so a caller that
        named another tenant's knowledge base by mistake still reads none of its rows.
        `excluded_knowledge_ids` are knowledges whose rows must not be found (not enabled)."""
        empty_knowledge_scope = knowledge_ids is not None and not knowledge_ids
        if top_k <= 0 or not tenant_ids or not knowledge_base_ids or empty_knowledge_scope:
            return None, ""
        clauses = [
            f"{cs.IS_ENABLED} == true",
            field_in(cs.TENANT_ID, tenant_ids),
            field_in(cs.KNOWLEDGE_BASE_ID, knowledge_base_ids),
        ]
        if knowledge_ids is not None:
            clauses.append(field_in(cs.KNOWLEDGE_ID, knowledge_ids))
        if excluded_knowledge_ids:
            clauses.append(f"not ({field_in(cs.KNOWLEDGE_ID, excluded_knowledge_ids)})")
        return self._existing(model_key), all_of(*clauses)

    # ── plumbing ─────────────────────────────────────────────────────────────────────────

    @contextmanager
    def _writing(self, name: str) -> Iterator[None]:
        with write_lock(self._lock_scope, name, lock_dir=self._lock_dir):
            yield

    @contextmanager
    def _errors(self, action: str) -> Iterator[None]:
        if self._closed:  # the process is stopping: another one may serve the call
            raise IndexUnavailableError(f"cannot {action}: the index is closed")
        try:
            yield
        except MilvusException as exc:
            error = IndexUnavailableError if is_unavailable(exc) else IndexStoreError
            raise error(f"cannot {action}: {exc.message} (code {exc.code})") from exc
        except grpc.RpcError as exc:
            # pymilvus hands a deadline (and what it does not retry) up as gRPC's own error.
            error = IndexUnavailableError if rpc_unavailable(exc) else IndexStoreError
            raise error(f"cannot {action}: {exc}") from exc


def _request(data: Any, field: str, metric: str, expr: str, limit: int) -> AnnSearchRequest:
    return AnnSearchRequest(
        data=[data], anns_field=field, param={"metric_type": metric}, limit=limit, expr=expr
    )


def _needs_vectors(model_key: str) -> None:
    if is_keyword_only(model_key):
        raise IndexStoreError("the keyword-only collection has no vectors to search")


def _already_exists(exc: MilvusException) -> bool:
    return "already exist" in exc.message.lower()

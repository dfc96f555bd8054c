"""Writes over rows already stored, by id, chunk, knowledge or tenant: deleting them,
flipping their enabled flag, and copying them under new owners (row_copy) without
re-embedding. MilvusIndex takes these methods from ``RowWrites``; they reach the index's
collections through ``_Collections``, what MilvusIndex provides."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from functools import partial
from typing import Protocol

from pymilvus import MilvusClient

from storage.index import collection_schema as cs
from storage.index.client_calls import query_all, with_reload
from storage.index.expressions import field_in
from storage.index.row_codec import batches
from storage.index.row_copy import RowOwner, copied_rows, read_rows

_FILTER_BATCH = 500


class _Collections(Protocol):
    _client: MilvusClient
    _write_batch_size: int

    @property
    def is_lite(self) -> bool: ...
    def _existing(self, model_key: str) -> str | None: ...
    def _errors(self, action: str) -> AbstractContextManager[None]: ...
    def _writing(self, name: str) -> AbstractContextManager[None]: ...
    def _settle(self, name: str) -> None: ...


class RowWrites:
    def delete_by_knowledge(
        self: _Collections, model_key: str, knowledge_ids: Sequence[str]
    ) -> None:
        _delete_where(self, model_key, cs.KNOWLEDGE_ID, knowledge_ids)

    def delete_by_tenant(self: _Collections, model_key: str, tenant_id: str) -> None:
        """Every row of a tenant (the last sweep when the tenant is deleted)."""
        _delete_where(self, model_key, cs.TENANT_ID, [tenant_id])

    def delete_by_chunk_ids(self: _Collections, model_key: str, chunk_ids: Sequence[str]) -> None:
        """Remove every row (chunk and derived sources) of the given chunks, e.g. the chunks
        of one processing round, leaving the knowledge's other rounds alone."""
        _delete_where(self, model_key, cs.CHUNK_ID, chunk_ids)

    def delete_by_ids(self: _Collections, model_key: str, row_ids: Sequence[str]) -> None:
        """Remove the given rows, e.g. an FAQ entry's separate similar-question rows that an
        update made obsolete, leaving its other rows alone."""
        _delete_where(self, model_key, cs.ID, row_ids)

    def set_enabled(
        self: _Collections, model_key: str, chunk_ids: Sequence[str], enabled: bool
    ) -> None:
        """Flip `is_enabled` on every row (chunk and derived sources) of the given chunks."""
        name = self._existing(model_key) if chunk_ids else None
        if name is None:
            return
        with self._errors(f"update {name}"), self._writing(name):
            for batch in batches(list(chunk_ids), _FILTER_BATCH):
                found = query_all(
                    self._client,
                    name,
                    field_in(cs.CHUNK_ID, batch),
                    [cs.ID, cs.KNOWLEDGE_BASE_ID],
                    lite=self.is_lite,
                )
                updates = [
                    {
                        cs.ID: row[cs.ID],
                        cs.KNOWLEDGE_BASE_ID: row[cs.KNOWLEDGE_BASE_ID],
                        cs.IS_ENABLED: enabled,
                    }
                    for row in found
                ]
                for part in batches(updates, self._write_batch_size):
                    upsert = partial(self._client.upsert, name, part, partial_update=True)
                    with_reload(self._client, name, upsert)
            self._settle(name)

    def copy_rows(
        self: _Collections, model_key: str, chunk_ids: Mapping[str, str], owner: RowOwner
    ) -> int:
        """Rows of the chunks keyed in `chunk_ids` (source -> target id) written as stored
        under the target ids and `owner` (row_copy); returns the count. Idempotent; a target
        id equal to its source (a move) replaces the row in place."""
        name = self._existing(model_key) if chunk_ids else None
        if name is None:
            return 0
        with self._errors(f"copy rows in {name}"), self._writing(name):
            stored = read_rows(self._client, name, list(chunk_ids), lite=self.is_lite)
            data = copied_rows(stored, chunk_ids, owner)
            for batch in batches(data, self._write_batch_size):
                with_reload(self._client, name, partial(self._client.upsert, name, batch))
            self._settle(name)
        return len(data)


def _delete_where(index: _Collections, model_key: str, field: str, values: Sequence[str]) -> None:
    name = index._existing(model_key) if values else None
    if name is None:
        return
    with index._errors(f"delete from {name}"), index._writing(name):
        for batch in batches(list(values), _FILTER_BATCH):
            expr = field_in(field, batch)
            with_reload(index._client, name, partial(index._client.delete, name, filter=expr))
        index._settle(name)

"""What the import needs of an FAQ knowledge base's entries: the FAQ entries' own write
layer (workers.faq) provides it; the import adds no entry writing or indexing of its own."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Protocol

from workers.faq_import.planner import EntryText


class EntryStore(Protocol):
    def entries(self) -> Iterable[tuple[str, EntryText]]:
        """Every entry of the knowledge base: its id and content."""
        ...

    def cleaned(self, entry: EntryText) -> EntryText:
        """The entry cleaned as a single create cleans it."""
        ...

    def violations(self, entry: EntryText) -> list[tuple[str, str]]:
        """Each (field, description) the cleaned entry breaks; empty when it is valid."""
        ...

    def create(self, entries: Sequence[tuple[str, EntryText]]) -> None:
        """Write and index new entries with these ids; an id already an entry's is left as
        it is (a retried write)."""
        ...

    def update(self, entries: Sequence[tuple[str, EntryText]]) -> None:
        """Write and index entries anew with this content."""
        ...

    def reindex(self, ids: Sequence[str]) -> None:
        """Write the index rows of the stored entries among ``ids`` again from their stored
        content (by row id: none doubled); ids that are no entry are ignored."""
        ...

    def delete(self, ids: Sequence[str]) -> None:
        """Delete entries and their index rows."""
        ...

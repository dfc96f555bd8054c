"""Removing stored files: one by one, best effort, and all the files of deleted knowledges."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from storage.db.models import Knowledge
from storage.db.repositories.resources import KNOWLEDGE_FILES
from storage.files.base import StorageError
from storage.files.resource_catalog import is_resource_ref
from workers.lifecycle.parts import FileParts, KnowledgeFileParts

log = logging.getLogger(__name__)


def delete_files(ctx: FileParts, paths: Sequence[str]) -> list[str]:
    """Delete each file, logging failures; returns the paths that are gone."""
    removed = []
    for path in dict.fromkeys(paths):
        try:
            ctx.files.delete(path)
        except StorageError as exc:
            log.warning("could not delete stored file %s: %s", path, exc)
            continue
        removed.append(path)
    return removed


def remove_knowledge_files(ctx: KnowledgeFileParts, rows: Sequence[Knowledge]) -> int:
    """Delete the originals and extracted images of knowledges whose rows are gone; returns
    how many files went. Their catalog records stay, marked deleted, until housekeeping
    forgets them (see sweep_resources), which also retries a file that would not go."""
    ids = [row.id for row in rows]
    # Again: an image a still-running round stored after the deletion began is caught too.
    ctx.catalog.mark_deleted(KNOWLEDGE_FILES, ids)
    paths = [r.path for r in ctx.catalog.owned_by(KNOWLEDGE_FILES, ids, include_deleted=True)]
    # An original stored before it was catalogued is only on its row.
    paths += [row.file_path for row in rows if row.file_path and not is_resource_ref(row.file_path)]
    return len(delete_files(ctx, paths))

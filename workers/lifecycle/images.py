"""Removing the images a knowledge's rounds extracted (recorded by pipeline.images)."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from storage.db.repositories.resources import KNOWLEDGE_IMAGE
from storage.files.base import StorageError
from workers.context import WorkerContext

log = logging.getLogger(__name__)


def remove_extracted_images(ctx: WorkerContext, knowledge_ids: Sequence[str]) -> int:
    """Best effort: a file that cannot be deleted keeps its record, so it can still be
    found later. Returns how many files went."""
    paths = ctx.resources.paths_owned_by(KNOWLEDGE_IMAGE, knowledge_ids)
    removed = delete_files(ctx, paths)
    ctx.resources.forget(KNOWLEDGE_IMAGE, knowledge_ids, removed)
    return len(removed)


def delete_files(ctx: WorkerContext, paths: Sequence[str]) -> list[str]:
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

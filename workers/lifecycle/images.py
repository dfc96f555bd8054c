"""Removing the images a knowledge's rounds extracted (recorded by pipeline.reading.images)."""

from __future__ import annotations

from collections.abc import Sequence

from storage.db.repositories.resources import KNOWLEDGE_IMAGE
from workers.lifecycle.files import delete_files
from workers.lifecycle.parts import ImageCleanupParts


def remove_extracted_images(ctx: ImageCleanupParts, knowledge_ids: Sequence[str]) -> int:
    """Best effort: a file that cannot be deleted keeps its record, so it can still be
    found later. Returns how many files went."""
    paths = ctx.resources.paths_owned_by(KNOWLEDGE_IMAGE, knowledge_ids)
    removed = delete_files(ctx, paths)
    ctx.resources.forget(KNOWLEDGE_IMAGE, knowledge_ids, removed)
    return len(removed)

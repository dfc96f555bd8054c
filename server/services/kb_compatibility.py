"""The check cloning a knowledge base and moving knowledges share: the target must be of the
source's type and embedding model, since rows and vectors go over as they are; else
FAILED_PRECONDITION KB_TYPE_MISMATCH or EMBEDDING_MODEL_MISMATCH, naming both values."""

from __future__ import annotations

from core.effective_config import embedding_model_of
from core.errors import FailedPrecondition
from storage.db.models import KnowledgeBase


def check_compatible(source: KnowledgeBase, target: KnowledgeBase, *, by_index: bool) -> None:
    """``by_index`` compares the stored index keys (a clone copies rows within one
    collection) instead of the configured models (a move that cannot reuse the vectors
    embeds again, with the same model)."""
    if source.type != target.type:
        raise FailedPrecondition(
            "KB_TYPE_MISMATCH",
            target.id,
            f"the knowledge base type differs: the source is {source.type!r}, the target "
            f"{target.type!r}",
        )
    source_model, target_model = (
        (source.embedding_model_key, target.embedding_model_key)
        if by_index
        else (
            embedding_model_of(source.config or {}).key,
            embedding_model_of(target.config or {}).key,
        )
    )
    if source_model != target_model:
        raise FailedPrecondition(
            "EMBEDDING_MODEL_MISMATCH",
            target.id,
            f"the embedding model differs: the source uses {source_model!r}, the target "
            f"{target_model!r}: vectors cannot be copied between them",
        )

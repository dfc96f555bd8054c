"""The chunking rules at the API: a knowledge base's config, and every knowledge's effective
config (the knowledge base's merged with its overrides, as the worker will merge them), pass
the chunker's own ``chunking_violations`` before anything is stored or queued, so a config
the chunker would refuse is INVALID_ARGUMENT now instead of a failure after the parse."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.chunking_limits import chunking_violations
from core.effective_config import resolve
from core.errors import InvalidArgument


def check_effective_chunking(
    kb_config: Mapping[str, Any], overrides: Mapping[str, Any] | None, prefix: str
) -> None:
    """INVALID_ARGUMENT with a field violation (``{prefix}.{field}``) per broken rule of the
    merged chunking; a value the overrides do not set is named as the knowledge base's."""
    effective = resolve(kb_config, overrides)
    violations = chunking_violations(
        effective.chunk_size,
        effective.chunk_overlap,
        effective.separators,
        enable_parent_child=effective.enable_parent_child,
        parent_chunk_size=effective.parent_chunk_size,
        child_chunk_size=effective.child_chunk_size,
    )
    if not violations:
        return
    overridden = (overrides or {}).get("chunking") or {}
    raise InvalidArgument(
        [
            (
                f"{prefix}.{v.field}",
                v.description + _origin(v.field.split("[")[0], overrides is not None, overridden),
            )
            for v in violations
        ]
    )


def _origin(name: str, has_overrides: bool, overridden: Mapping[str, Any]) -> str:
    """Where the rule's own value came from, when it is not the request's."""
    if has_overrides and name not in overridden:
        return f" ({name} is the knowledge base's; set it here to override)"
    return ""

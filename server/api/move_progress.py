"""MoveKnowledge's job as the API shows it, and the mode names between proto and core."""

from __future__ import annotations

from sluice.v1 import knowledge_pb2 as pb

from core.move_modes import MoveMode
from storage.db.models import KnowledgeMoveJob

_TO_PROTO = {
    MoveMode.REUSE_VECTORS: pb.MOVE_MODE_REUSE_VECTORS,
    MoveMode.REPARSE: pb.MOVE_MODE_REPARSE,
}
_FROM_PROTO = {value: mode for mode, value in _TO_PROTO.items()}


def mode_of(value: pb.MoveMode) -> MoveMode | None:
    """None for MOVE_MODE_UNSPECIFIED (the service picks); an unknown number is too."""
    return _FROM_PROTO.get(value)


def mode_value(mode: str) -> pb.MoveMode:
    return _TO_PROTO.get(MoveMode(mode), pb.MOVE_MODE_UNSPECIFIED)


def move_progress(job: KnowledgeMoveJob) -> pb.MoveProgress:
    return pb.MoveProgress(
        job_id=job.id,
        status=f"JOB_STATUS_{str(job.status).upper()}",
        mode=mode_value(job.mode),
        source_knowledge_base_id=job.source_knowledge_base_id,
        target_knowledge_base_id=job.target_knowledge_base_id,
        total=job.total,
        done=job.done,
        failed=job.failed,
        failures=[
            pb.MoveFailure(knowledge_id=str(k), error_message=str(v))
            for k, v in (job.failures or {}).items()
        ],
        error_message=job.error_message or "",
    )

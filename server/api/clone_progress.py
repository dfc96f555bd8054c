"""A clone job as the API shows it (sluice.v1.CloneProgress)."""

from __future__ import annotations

from sluice.v1 import knowledge_base_pb2 as pb

from storage.db.models import KbCloneJob


def clone_progress(job: KbCloneJob) -> pb.CloneProgress:
    return pb.CloneProgress(
        job_id=job.id,
        status=f"JOB_STATUS_{job.status.upper()}",
        total=job.total,
        done=job.done,
        error_message=job.error_message or "",
        source_id=job.source_knowledge_base_id,
        target_id=job.target_knowledge_base_id,
        added=job.added,
        removed=job.removed,
        skipped=job.skipped,
        failed=job.failed,
    )


def ended(progress: pb.CloneProgress) -> bool:
    return progress.status in (pb.JOB_STATUS_COMPLETED, pb.JOB_STATUS_FAILED)

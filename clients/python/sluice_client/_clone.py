"""`SluiceClient`'s methods for cloning a knowledge base (KnowledgeBaseService): start a
clone, read its progress, watch it to its end."""

from __future__ import annotations

from collections.abc import Iterator

from sluice_client._calls import call, required
from sluice_client._proto.sluice import v1
from sluice_client.errors import translated_rpc_errors

_ENDED = (v1.JobStatus.COMPLETED, v1.JobStatus.FAILED)


class CloneMethods:
    """Mixed into SluiceClient, which sets the stub."""

    _knowledge_bases: v1.KnowledgeBaseServiceStub

    def clone_knowledge_base(
        self, source_id: str, *, target_id: str = "", target_name: str = ""
    ) -> v1.CloneKnowledgeBaseResponse:
        """Starts a clone of `source_id`: into a new knowledge base (named `target_name`, or
        "<source> (copy)"), or synced into `target_id`. Returns the job and target ids."""
        request = v1.CloneKnowledgeBaseRequest(
            source_id=source_id, target_id=target_id, target_name=target_name
        )
        return call(self._knowledge_bases.clone_knowledge_base, request)

    def get_clone_progress(self, job_id: str) -> v1.CloneProgress:
        request = v1.GetCloneProgressRequest(job_id=job_id)
        response = call(self._knowledge_bases.get_clone_progress, request)
        return required(response.progress, "clone progress")

    def watch_clone_progress(self, job_id: str) -> Iterator[v1.CloneProgress]:
        """The job's progress now, then each change, until it is completed or failed."""
        request = v1.WatchCloneProgressRequest(job_id=job_id)
        with translated_rpc_errors():
            for response in self._knowledge_bases.watch_clone_progress(request):
                yield required(response.progress, "clone progress")

    def wait_for_clone(self, job_id: str) -> v1.CloneProgress:
        """Watches the job until it ends; returns its last progress."""
        last = self.get_clone_progress(job_id)
        for progress in self.watch_clone_progress(job_id):
            last = progress
            if progress.status in _ENDED:
                break
        return last

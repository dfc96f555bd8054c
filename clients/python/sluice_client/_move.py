"""`SluiceClient`'s methods for moving knowledges between knowledge bases: start a move,
read and watch its progress."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import grpc

from sluice_client._calls import call
from sluice_client._proto.sluice import v1
from sluice_client.errors import translated_rpc_errors


class MoveMethods:
    """Mixed into SluiceClient, which sets the stub and the channel."""

    _knowledges: v1.KnowledgeServiceStub
    _channel: grpc.Channel

    def move_knowledge(
        self,
        knowledge_ids: Iterable[str],
        target_knowledge_base_id: str,
        mode: v1.MoveMode = v1.MoveMode.UNSPECIFIED,
    ) -> v1.MoveKnowledgeResponse:
        """Moves knowledges of one knowledge base into another, in a background job; the
        answer names the job and the mode it runs in (unspecified: reuse_vectors when the
        two share the index collection, else reparse)."""
        request = v1.MoveKnowledgeRequest(
            ids=list(knowledge_ids), target_knowledge_base_id=target_knowledge_base_id, mode=mode
        )
        return call(self._knowledges.move_knowledge, request)

    def get_move_progress(self, job_id: str) -> v1.MoveProgress:
        request = v1.GetMoveProgressRequest(job_id=job_id)
        return call(self._knowledges.get_move_progress, request).progress or v1.MoveProgress()

    def watch_move_progress(
        self, job_id: str, *, timeout: float | None = None
    ) -> Iterator[v1.MoveProgress]:
        """The move's progress now, then on every change, until the job ends."""
        watch = self._channel.unary_stream(
            "/sluice.v1.KnowledgeService/WatchMoveProgress",
            request_serializer=v1.WatchMoveProgressRequest.SerializeToString,
            response_deserializer=v1.WatchMoveProgressResponse.FromString,
        )
        with translated_rpc_errors():
            call = watch(v1.WatchMoveProgressRequest(job_id=job_id), timeout=timeout)
            try:
                for answer in call:
                    yield answer.progress or v1.MoveProgress()
            finally:
                call.cancel()

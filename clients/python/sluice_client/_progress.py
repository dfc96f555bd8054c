"""`SluiceClient`'s methods for following a knowledge's processing: its spans, the
WatchSpans stream, and waiting (with reconnects) until the attempt ends."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import grpc

from sluice_client._calls import call, required
from sluice_client._proto.sluice import v1
from sluice_client.errors import (
    SluiceRpcError,
    Unavailable,
    WaitTimeoutError,
    translated_rpc_errors,
)

# Reconnect backoff of wait_until_done, in seconds.
_FIRST_RECONNECT_DELAY = 0.2
_MAX_RECONNECT_DELAY = 2.0


class ProgressMethods:
    """Mixed into SluiceClient, which sets the stub and the WatchSpans call."""

    _knowledges: v1.KnowledgeServiceStub
    _watch_spans: grpc.UnaryStreamMultiCallable[v1.WatchSpansRequest, v1.WatchSpansResponse]

    def get_spans(self, knowledge_id: str, attempt: int = 0) -> v1.GetSpansResponse:
        """The spans of one attempt (0 = the latest) with the server's stall verdict."""
        request = v1.GetSpansRequest(knowledge_id=knowledge_id, attempt=attempt)
        return call(self._knowledges.get_spans, request)

    def watch_spans(
        self,
        knowledge_id: str,
        attempt: int = 0,
        *,
        timeout: float | None = None,
        after_sequence: int = 0,
        after_attempt: int = 0,
    ) -> Iterator[v1.WatchSpansResponse]:
        """A snapshot, then every span change, until the END event of a terminal attempt.

        To resume a broken stream, pass the `sequence` and `attempt` of the last event it
        gave: if the attempt is unchanged, the stream opens with only the spans changed since
        (a SPAN event) instead of a snapshot. Leaving the loop early cancels the stream on
        the server too.
        """
        request = v1.WatchSpansRequest(
            knowledge_id=knowledge_id,
            attempt=attempt,
            after_sequence=after_sequence,
            after_attempt=after_attempt,
        )
        with translated_rpc_errors():
            call = self._watch_spans(request, timeout=timeout)
            try:
                yield from call
            finally:
                call.cancel()

    def wait_until_done(
        self,
        knowledge_id: str,
        timeout: float,
        *,
        on_event: Callable[[v1.WatchSpansResponse], None] | None = None,
    ) -> v1.Knowledge:
        """Watches the knowledge's spans until its attempt ends, and returns the knowledge.

        A stream that breaks (UNAVAILABLE) or closes before END is reopened from the last
        event's sequence, so it goes on with what changed meanwhile; `on_event` sees every
        event. Raises `WaitTimeoutError` (a `TimeoutError`) after `timeout` seconds.
        """
        deadline = time.monotonic() + timeout
        delay = _FIRST_RECONNECT_DELAY
        after_sequence = after_attempt = 0
        while (remaining := deadline - time.monotonic()) > 0:
            events = self.watch_spans(
                knowledge_id,
                timeout=remaining,
                after_sequence=after_sequence,
                after_attempt=after_attempt,
            )
            try:
                for event in events:
                    delay = _FIRST_RECONNECT_DELAY
                    after_sequence, after_attempt = event.sequence, event.attempt
                    if on_event is not None:
                        on_event(event)
                    if event.type == v1.WatchEventType.END:
                        request = v1.GetKnowledgeRequest(id=knowledge_id)
                        answer = call(self._knowledges.get_knowledge, request)
                        return required(answer.knowledge, "knowledge")
            except Unavailable:
                pass
            except SluiceRpcError as error:
                if error.code != grpc.StatusCode.DEADLINE_EXCEEDED:
                    raise
                break
            time.sleep(max(0.0, min(delay, deadline - time.monotonic())))
            delay = min(delay * 2, _MAX_RECONNECT_DELAY)
        raise WaitTimeoutError(f"knowledge {knowledge_id} was not done after {timeout:g} s")

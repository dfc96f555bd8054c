"""The provider metrics of real calls to a real embeddings server on loopback: each call is
timed by its outcome, and a failed one counted by why — the status the server answered, no
server at all, an endpoint the SSRF policy refuses, an answer that is not JSON."""

from __future__ import annotations

import socket

import pytest
from prometheus_client import REGISTRY

from core.ssrf.url_policy import UrlPolicy
from tests.integration.models.test_provider_connections import embed, endpoint
from tests.support.openai_embeddings import EmbeddingServer, Reply
from workers.net.provider_endpoint import ProviderCallError


def _errors(reason: str) -> float:
    labels = {"kind": "embedding", "reason": reason}
    return REGISTRY.get_sample_value("sluice_provider_errors_total", labels) or 0.0


def _calls(outcome: str) -> float:
    labels = {"kind": "embedding", "outcome": outcome}
    found = REGISTRY.get_sample_value("sluice_provider_request_duration_seconds_count", labels)
    return found or 0.0


def test_calls_are_timed_and_failures_counted_by_reason() -> None:
    with EmbeddingServer() as server:
        target = endpoint(server.url("/v1/embeddings"))
        ok, failed = _calls("ok"), _calls("error")
        before = {r: _errors(r) for r in ("http_503", "malformed", "refused", "unreachable")}

        embed(target, "fine")
        server.plan(Reply(503, "busy"))
        with pytest.raises(ProviderCallError):
            embed(target, "busy")
        server.plan(Reply(200, "not json"))
        with pytest.raises(ProviderCallError):
            embed(target, "garbled")
        refused = endpoint(server.url("/v1/embeddings"), policy=UrlPolicy())
        with pytest.raises(ProviderCallError):
            embed(refused, "refused")

    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]  # bound, never listening: connections are refused
        with pytest.raises(ProviderCallError):
            embed(endpoint(f"http://127.0.0.1:{port}/v1/embeddings"), "nobody")

    assert _calls("ok") == ok + 2  # the garbled answer was a 200: the call itself succeeded
    assert _calls("error") == failed + 3
    for reason in before:
        assert _errors(reason) == before[reason] + 1, reason

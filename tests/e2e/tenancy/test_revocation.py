"""Keys can be taken back: the admin tool lists and revokes them, and a revoked key stops
working on every API process within a second; the key check comes before anything else,
so an anonymous caller cannot even learn which methods exist."""

from __future__ import annotations

import time
from typing import cast

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc
from sluice_client import SluiceClient, Unauthenticated

from tests.e2e.tenancy.conftest import Deployment, admin, create_key


def _status(target: str, key: str | None, method: str = "") -> grpc.StatusCode:
    """The status of one call: ListKnowledgeBases, or ``method`` (sent as an empty message)."""
    metadata = () if key is None else (("authorization", f"Bearer {key}"),)
    path = method or "/sluice.v1.KnowledgeBaseService/ListKnowledgeBases"
    with grpc.insecure_channel(target) as channel:
        call = channel.unary_unary(path, lambda b: b, lambda b: b)
        try:
            call(b"", metadata=metadata, timeout=10)
        except grpc.RpcError as error:
            return cast(grpc.Call, error).code()
    return grpc.StatusCode.OK


def test_a_revoked_key_stops_working_on_every_api_process_within_a_second(
    deployment: Deployment,
) -> None:
    first = create_key(deployment.stack, "dora")
    second = create_key(deployment.stack, tenant_id=first.tenant_id)
    # Both processes have seen (and cached) both keys.
    for _ in range(3):
        for target in deployment.targets:
            assert _status(target, first.key) == grpc.StatusCode.OK
            assert _status(target, second.key) == grpc.StatusCode.OK
    listed = admin(deployment.stack, "list-keys", "--tenant-id", first.tenant_id)
    assert listed.returncode == 0, listed.stderr
    assert {line.split("\t")[0] for line in listed.stdout.splitlines()} == {
        first.key_id,
        second.key_id,
    }

    revoked = admin(deployment.stack, "revoke-key", first.key_id)
    assert revoked.returncode == 0, revoked.stderr
    told_at = time.monotonic()
    refused: dict[str, float] = {}
    while len(refused) < len(deployment.targets) and time.monotonic() - told_at < 5:
        for target in deployment.targets:
            if target not in refused and _status(target, first.key) != grpc.StatusCode.OK:
                assert _status(target, first.key) == grpc.StatusCode.UNAUTHENTICATED
                refused[target] = time.monotonic() - told_at
    assert set(refused) == set(deployment.targets), refused
    assert max(refused.values()) < 1.0, refused
    for target in deployment.targets:
        assert _status(target, second.key) == grpc.StatusCode.OK  # the other key still works

    listed = admin(deployment.stack, "list-keys", "--tenant-id", first.tenant_id)
    states = {line.split("\t")[0]: line.split("\t")[3] for line in listed.stdout.splitlines()}
    assert states[first.key_id].startswith("revoked") and states[second.key_id] == "active"
    assert admin(deployment.stack, "revoke-key", first.key_id).returncode == 1
    deleted = admin(deployment.stack, "delete-key", second.key_id)
    assert deleted.returncode == 0, deleted.stderr
    for target in deployment.targets:
        with SluiceClient(target, api_key=second.key) as client, pytest.raises(Unauthenticated):
            list(client.list_knowledge_bases())
    listed = admin(deployment.stack, "list-keys", "--tenant-id", first.tenant_id)
    assert [line.split("\t")[0] for line in listed.stdout.splitlines()] == [first.key_id]
    tenants = admin(deployment.stack, "list-tenants").stdout
    assert any(line.split("\t")[0] == first.tenant_id for line in tenants.splitlines())


@pytest.mark.parametrize(
    "method",
    ["/sluice.v1.NoSuchService/Anything", "/sluice.v1.KnowledgeService/NoSuchMethod"],
)
def test_an_unknown_method_is_unauthenticated_without_a_key(
    deployment: Deployment, method: str
) -> None:
    target = deployment.targets[0]
    assert _status(target, None, method) == grpc.StatusCode.UNAUTHENTICATED
    assert _status(target, "sk-sluice-made-up", method) == grpc.StatusCode.UNAUTHENTICATED
    key = create_key(deployment.stack, "erin").key
    assert _status(target, key, method) == grpc.StatusCode.UNIMPLEMENTED
    # Known methods alike, streaming ones included; health stays open to probes.
    watch = "/sluice.v1.KnowledgeService/WatchSpans"
    assert _status(target, None, watch) == grpc.StatusCode.UNAUTHENTICATED
    with grpc.insecure_channel(target) as channel:
        health = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest())
    assert health.status == health_pb2.HealthCheckResponse.SERVING

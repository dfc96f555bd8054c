"""The README's grpcurl session, made the way grpcurl makes it: descriptors from server
reflection (no proto files), requests written as the README's JSON, responses read as JSON.

grpcurl itself is not installable on these machines (no package in PyPI, npm or Debian 12),
so this drives the same reflection + JSON path with the protobuf runtime.
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest
from google.protobuf import descriptor_pool, json_format, message_factory
from grpc_reflection.v1alpha.proto_reflection_descriptor_database import (
    ProtoReflectionDescriptorDatabase,
)

from tests.e2e.stacks import Stack, lite_stack


class ReflectionClient:
    """Calls any method by its full name with JSON in and JSON out."""

    def __init__(self, channel: grpc.Channel) -> None:
        self._channel = channel
        self._pool = descriptor_pool.DescriptorPool(ProtoReflectionDescriptorDatabase(channel))

    def _method(self, full_name: str) -> tuple[str, Any, Any]:
        service_name, method_name = full_name.split("/")
        method = self._pool.FindServiceByName(service_name).FindMethodByName(method_name)
        request = message_factory.GetMessageClass(method.input_type)
        response = message_factory.GetMessageClass(method.output_type)
        return f"/{service_name}/{method_name}", request, response

    def unary(self, full_name: str, body: dict[str, Any]) -> dict[str, Any]:
        path, request, response = self._method(full_name)
        call = self._channel.unary_unary(
            path,
            request_serializer=request.SerializeToString,
            response_deserializer=response.FromString,
        )
        return json_format.MessageToDict(call(json_format.ParseDict(body, request()), timeout=60))

    def client_stream(self, full_name: str, bodies: list[dict[str, Any]]) -> dict[str, Any]:
        path, request, response = self._method(full_name)
        call = self._channel.stream_unary(
            path,
            request_serializer=request.SerializeToString,
            response_deserializer=response.FromString,
        )
        frames = (json_format.ParseDict(b, request()) for b in bodies)
        return json_format.MessageToDict(call(frames, timeout=60))

    def server_stream(self, full_name: str, body: dict[str, Any]) -> list[dict[str, Any]]:
        path, request, response = self._method(full_name)
        call = self._channel.unary_stream(
            path,
            request_serializer=request.SerializeToString,
            response_deserializer=response.FromString,
        )
        replies = call(json_format.ParseDict(body, request()), timeout=120)
        return [json_format.MessageToDict(r) for r in replies]


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with lite_stack(tmp_path_factory.mktemp("sluice-json")) as running:
        yield running


def test_readme_grpcurl_session(stack: Stack, tmp_path: Path) -> None:
    notes = b"# Pumps\n\nTo reset the pump, hold the red button for five seconds.\n"
    with grpc.insecure_channel(stack.target) as channel:
        api = ReflectionClient(channel)
        kb = api.unary("sluice.v1.KnowledgeBaseService/CreateKnowledgeBase", {"name": "handbook"})
        kb_id = kb["knowledgeBase"]["id"]
        created = api.client_stream(
            "sluice.v1.KnowledgeService/CreateFromFile",
            [
                {"header": {"knowledge_base_id": kb_id, "file_name": "notes.md"}},
                {"data": base64.b64encode(notes).decode()},
            ],
        )
        knowledge_id = created["knowledge"]["id"]
        events = api.server_stream(
            "sluice.v1.KnowledgeService/WatchSpans", {"knowledge_id": knowledge_id}
        )
        assert events[0]["type"] == "WATCH_EVENT_TYPE_SNAPSHOT"
        assert events[-1]["type"] == "WATCH_EVENT_TYPE_END"
        assert events[-1]["parseStatus"] == "PARSE_STATUS_COMPLETED"
        found = api.unary(
            "sluice.v1.SearchService/Search",
            {"query": "how do I reset the pump?", "knowledge_base_ids": [kb_id]},
        )
        assert found["results"][0]["knowledgeId"] == knowledge_id
        listed = api.unary(
            "sluice.v1.ResourceService/ListResources", {"knowledge_id": knowledge_id}
        )
        assert [r["kind"] for r in listed["resources"]] == ["RESOURCE_KIND_ORIGINAL"]
        grant = api.unary(
            "sluice.v1.ResourceService/CreateAccessGrant",
            {"knowledge_id": knowledge_id, "ttl_seconds": 600},
        )
        assert set(grant) == {"token", "expiresAt", "resource"}  # no URL carries the token
        frames = api.server_stream(
            "sluice.v1.ResourceService/ReadResource", {"token": grant["token"]}
        )
        assert frames[0]["meta"]["fileName"] == "notes.md"
        assert b"".join(base64.b64decode(f["data"]) for f in frames[1:]) == notes
        draft = api.unary(
            "sluice.v1.KnowledgeService/CreateManual",
            {
                "knowledge_base_id": kb_id,
                "title": "Rota",
                "content": "Anna opens the gate.",
                "status": "MANUAL_STATUS_DRAFT",
            },
        )
        assert draft["knowledge"]["parseStatus"] == "PARSE_STATUS_DRAFT"
        published = api.unary(
            "sluice.v1.KnowledgeService/UpdateManual",
            {"id": draft["knowledge"]["id"], "status": "MANUAL_STATUS_PUBLISH"},
        )
        assert published["knowledge"]["parseStatus"] == "PARSE_STATUS_PENDING"

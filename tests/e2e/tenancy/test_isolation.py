"""Every RPC of every sluice.v1 service, called as a second tenant with the first tenant's
ids, finds nothing and changes nothing.

The RPCs come from the service descriptors, so a new RPC is covered the day it is added:
each request has every id-like field set to one of tenant A's ids (every member of a oneof
in turn), the other fields set so the request is otherwise valid. An answer is either
NOT_FOUND / PERMISSION_DENIED, or a success that is the caller's own business (its own
list, its own new knowledge base, a batch that accepted none of A's ids); no answer, error
details included, holds a trace of A's data; and A's data is all still there afterwards.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, cast

import grpc
import pytest
from google.protobuf import message_factory
from google.protobuf.descriptor import FieldDescriptor, MethodDescriptor
from google.protobuf.message import Message
from sluice.v1 import (
    faq_pb2,
    faq_pb2_grpc,
    graph_pb2,
    knowledge_base_pb2,
    knowledge_pb2,
    resource_pb2,
    search_pb2,
    tag_pb2,
)
from sluice_client import PermissionDenied, SluiceClient
from sluice_client._proto.sluice import v1
from sluice_client.cli import main as cli

from tests.e2e.tenancy.conftest import Deployment, TenantData, create_key, tenant_with_data

SERVICES = [
    service
    for module in (
        knowledge_base_pb2,
        knowledge_pb2,
        search_pb2,
        resource_pb2,
        tag_pb2,
        graph_pb2,
        faq_pb2,
    )
    for service in module.DESCRIPTOR.services_by_name.values()
]
REFUSED = {grpc.StatusCode.NOT_FOUND, grpc.StatusCode.PERMISSION_DENIED}


def _successes_allowed(method: str, answer: Message) -> bool:
    """The successes that concern only the caller: B's own list or new knowledge base, and
    batches over A's ids that accepted none of them."""
    fields = {f.name: v for f, v in answer.ListFields()}
    return {
        "CreateKnowledgeBase": True,
        "ListKnowledgeBases": True,
        "BatchReparse": not fields.get("accepted"),
        "BatchDeleteKnowledge": not fields.get("deleted"),
    }.get(method.rsplit(".", 1)[-1], False)


def _ids(a: TenantData, method: MethodDescriptor, job_ids: dict[str, str]) -> dict[str, str]:
    """A's id for each id-like field name (``id`` is the knowledge base's in its service)."""
    service = method.containing_service.name
    own_id = a.kb_id if service == "KnowledgeBaseService" else a.knowledge_id
    return {
        "id": own_id,
        "ids": a.knowledge_id,
        "knowledge_id": a.knowledge_id,
        "knowledge_ids": a.knowledge_id,
        "knowledge_base_id": a.kb_id,
        "knowledge_base_ids": a.kb_id,
        "target_knowledge_base_id": a.kb_id,
        "source_id": a.kb_id,
        "target_id": a.kb_id,
        "resource_ref": a.image_ref,
        "chunk_id": a.chunk_id,
        "tag_id": a.tag_id,
        "tag_ids": a.tag_id,
        "entity_id": a.entity_id,
        "relation_id": a.relation_id,
        # A job of A's of the method's kind (job_ids: "Clone", "Move", ...).
        "job_id": next((job for kind, job in job_ids.items() if kind in method.name), ""),
        # ReadResource's token is a bearer credential by design (whoever holds it reads):
        # B presents one of A's ids as a token; RevokeAccessGrant's is A's real token.
        "token": a.knowledge_id if method.name == "ReadResource" else a.token,
        # FAQService: A's FAQ knowledge base and entry.
        **(
            {"knowledge_base_id": a.faq_kb_id, "id": a.faq_entry_id, "ids": a.faq_entry_id}
            if service == "FAQService"
            else {}
        ),
    }


# Plain values that make a request valid apart from whose ids it names.
_VALUES: dict[str, object] = {
    "name": "probe",
    "query": "gauges",
    "url": "https://example.org/probe.md",
    "file_name": "probe.md",
    "title": "probe",
    "content": "probe text",
    "data": b"# probe\n",
    "ttl_seconds": 60,
}


# Message fields filled like the request itself: an upload's header frame, an FAQ import's
# options and an FAQ entry's content.
_NESTED = frozenset({"header", "options", "content"})


def _fill(message: Message, ids: dict[str, str], oneof_choice: dict[str, str]) -> None:
    """Set A's ids and valid values; of each real oneof only the chosen member (default:
    the first); an upload's header frame is filled the same way."""
    for field in message.DESCRIPTOR.fields:
        oneof = field.containing_oneof
        chosen = oneof_choice.get(oneof.name, oneof.fields[0].name) if oneof else field.name
        if oneof is not None and len(oneof.fields) > 1 and chosen != field.name:
            continue
        value: object = ids.get(field.name, _VALUES.get(field.name))
        if field.type == FieldDescriptor.TYPE_MESSAGE and field.name in _NESTED:
            _fill(getattr(message, field.name), ids, oneof_choice)
        elif value is not None and field.is_repeated:
            getattr(message, field.name).append(value)
        elif value is not None:
            setattr(message, field.name, value)
        elif field.enum_type is not None and not field.is_repeated:
            setattr(message, field.name, field.enum_type.values[-1].number)


def _variants(method: MethodDescriptor) -> Iterator[dict[str, str]]:
    """One oneof choice per member of each real oneof of the request (and of its header)."""
    headers = [
        f.message_type
        for f in method.input_type.fields
        if f.name == "header" and f.message_type is not None
    ]
    oneofs = [
        oneof
        for descriptor in (method.input_type, *headers)
        for oneof in descriptor.oneofs
        if len(oneof.fields) > 1 and oneof.name != "frame"
    ]
    if not oneofs:
        yield {}
    for oneof in oneofs:
        for member in oneof.fields:
            yield {oneof.name: member.name}


def _requests(
    method: MethodDescriptor, ids: dict[str, str], choice: dict[str, str]
) -> list[Message]:
    """The request, or for a client stream its header frame and one data frame."""
    cls = message_factory.GetMessageClass(method.input_type)
    if not method.client_streaming:
        request = cls()
        _fill(request, ids, choice)
        return [request]
    header, data = cls(), cls()
    _fill(header, ids, {**choice, "frame": "header"})
    _fill(data, ids, {"frame": "data"})
    return [header, data]


@dataclass
class Outcome:
    code: grpc.StatusCode
    answer: Message | None  # a unary success's answer
    text: str  # everything the server sent: messages, error message, trailing details


def _call(
    channel: grpc.Channel, method: MethodDescriptor, requests: list[Message], key: str
) -> Outcome:
    path = f"/{method.containing_service.full_name}/{method.name}"
    output = message_factory.GetMessageClass(method.output_type)
    serialize, parse = (lambda m: m.SerializeToString()), output.FromString
    options: dict[str, Any] = {"metadata": (("authorization", f"Bearer {key}"),), "timeout": 60}
    received: list[str] = []
    answer: Message | None = None
    try:
        if method.server_streaming:
            stream = channel.unary_stream(path, serialize, parse)(requests[0], **options)
            received += [str(item) for item in stream]
        elif method.client_streaming:
            answer = channel.stream_unary(path, serialize, parse)(iter(requests), **options)
        else:
            answer = channel.unary_unary(path, serialize, parse)(requests[0], **options)
    except grpc.RpcError as error:
        call = cast(grpc.Call, error)
        trailers = [str(item) for item in call.trailing_metadata() or ()]
        text = "\n".join([*received, call.details() or "", *trailers])
        return Outcome(call.code(), None, text)
    return Outcome(grpc.StatusCode.OK, answer, "\n".join([*received, str(answer or "")]))


def _move_job(deployment: Deployment, a: TenantData) -> str:
    """A real move job of A's, of a draft between two knowledge bases of its own (A's
    checked data stays where it is)."""
    with SluiceClient(deployment.targets[0], api_key=a.key.key) as owner:
        source = owner.create_knowledge_base("move-from").id
        target = owner.create_knowledge_base("move-to").id
        draft = owner.create_manual(source, "draft", "draft text", publish=False)
        return owner.move_knowledge([draft.id], target).job_id


def test_every_rpc_as_another_tenant_finds_nothing(deployment: Deployment) -> None:
    a = tenant_with_data(deployment, "alice")
    b = create_key(deployment.stack, "bob")
    with SluiceClient(deployment.targets[0], api_key=a.key.key) as owner:
        clone_job_id = owner.clone_knowledge_base(a.kb_id).job_id
        # A dry run: it writes no entry, so A's FAQ data stays as it is checked below.
        faq_import_job_id = owner.import_faq_entries(
            v1.FaqImportOptions(knowledge_base_id=a.faq_kb_id, dry_run=True),
            [v1.FaqEntryContent(standard_question="probe question", answers=["probe"])],
        ).job_id
    job_ids = {
        "Clone": clone_job_id,
        "Move": _move_job(deployment, a),
        "FAQImport": faq_import_job_id,
    }
    outcomes: dict[str, grpc.StatusCode] = {}
    with grpc.insecure_channel(deployment.targets[1]) as channel:
        for service in SERVICES:
            for method in service.methods:
                ids = _ids(a, method, job_ids)
                for choice in _variants(method):
                    label = f"{method.full_name} {choice or ''}".strip()
                    got = _call(channel, method, _requests(method, ids, choice), b.key)
                    outcomes[label] = got.code
                    for marker in a.markers:
                        assert marker not in got.text.lower(), f"{label} gave A's data: {got.text}"
                    if got.code == grpc.StatusCode.OK:
                        assert got.answer is not None and _successes_allowed(
                            method.full_name, got.answer
                        ), (label, got.text)
                    else:
                        assert got.code in REFUSED, (label, got.code, got.text)
    covered = {label.split(" ")[0] for label in outcomes}
    assert covered == {m.full_name for s in SERVICES for m in s.methods}
    assert outcomes["sluice.v1.ResourceService.RevokeAccessGrant {'target': 'token'}"] in REFUSED
    _untouched(deployment, a)


def _untouched(deployment: Deployment, a: TenantData) -> None:
    with SluiceClient(deployment.targets[0], api_key=a.key.key) as client:
        knowledge = client.get_knowledge(a.knowledge_id)
        assert knowledge.parse_status.name == "COMPLETED"
        assert knowledge.tag_ids == [a.tag_id]
        assert [t.id for t in client.list_tags(a.kb_id)] == [a.tag_id]
        chunk = next(c for c in client.list_chunks(a.knowledge_id) if c.id == a.chunk_id)
        assert chunk.is_enabled and "probe" not in chunk.content
        assert client.get_knowledge_base(a.kb_id).name.lower() == f"kb-{a.markers[0]}"
        assert [r.ref for r in client.list_resources(a.knowledge_id)] == [
            a.original_ref,
            a.image_ref,
        ]
        assert any(hit.knowledge_id == a.knowledge_id for hit in client.search("gauges", [a.kb_id]))
        meta = next(iter(client.read_resource(a.token))).meta
        assert meta is not None and meta.ref == a.original_ref
        assert client.get_entity(a.entity_id).chunk_count == 1
        [source] = client.get_relation_sources(a.relation_id)
        assert source.chunk_id == a.chunk_id
    _faq_untouched(deployment, a)


def _faq_untouched(deployment: Deployment, a: TenantData) -> None:
    with grpc.insecure_channel(deployment.targets[0]) as channel:
        entry = (
            faq_pb2_grpc.FAQServiceStub(channel)
            .GetFAQEntry(
                faq_pb2.GetFAQEntryRequest(knowledge_base_id=a.faq_kb_id, id=a.faq_entry_id),
                metadata=(("authorization", f"Bearer {a.key.key}"),),
            )
            .entry
        )
    assert entry.enabled and entry.content.standard_question == f"Where is {a.markers[0]}?"


def test_grants_are_revoked_by_token_resource_or_knowledge(
    deployment: Deployment, capsys: pytest.CaptureFixture[str]
) -> None:
    a = tenant_with_data(deployment, "carol")
    with SluiceClient(deployment.targets[1], api_key=a.key.key) as client:
        image_grant = client.create_access_grant(resource_ref=a.image_ref)
        target = ["--target", deployment.targets[1], "--api-key", a.key.key]
        assert cli([*target, "revoke-grant", "--token", a.token]) == 0
        assert capsys.readouterr().out.strip() == "revoked 1"
        assert cli([*target, "revoke-grant", "--token", a.token]) == 4
        assert "NOT_FOUND" in capsys.readouterr().err
        with pytest.raises(PermissionDenied):
            list(client.read_resource(a.token))
        # The image's grant still opens it, until the knowledge's grants go all at once.
        meta = next(iter(client.read_resource(image_grant.token))).meta
        assert meta is not None and meta.ref == a.image_ref
        assert client.revoke_access_grant(knowledge_id=a.knowledge_id) == 1
        with pytest.raises(PermissionDenied):
            list(client.read_resource(image_grant.token))
        assert client.revoke_access_grant(resource_ref=a.image_ref) == 0

"""One full-mode deployment with auth on and a second API process, shared by the tenancy
tests; tenants and keys are made with the admin tool, as an operator would."""

from __future__ import annotations

import io
import re
import subprocess
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import grpc
import pytest
from sluice.v1 import faq_pb2, faq_pb2_grpc, knowledge_base_pb2, knowledge_base_pb2_grpc
from sluice_client import SluiceClient

from tests.e2e.graph_support import stack_database, write_graph
from tests.e2e.lifecycle_support import done, html_with_image
from tests.e2e.stacks import Stack, full_stack
from tests.support.processes import PYTHONPATH, REPO, Process, python

_LISTENING = r"listening on [\d.]+:(\d+)"


@dataclass(frozen=True)
class Deployment:
    stack: Stack
    # Both API processes: the stack's own and a second one on the same Redis and database.
    targets: tuple[str, str]


@dataclass(frozen=True)
class TenantKey:
    tenant_id: str
    key_id: str
    key: str


@dataclass(frozen=True)
class TenantData:
    """What a tenant owns: a knowledge base with a processed page (an original and an
    extracted image in the catalog) and a live access grant; ``markers`` are strings
    (lower case) that appear only in this tenant's data."""

    key: TenantKey
    kb_id: str
    knowledge_id: str
    original_ref: str
    image_ref: str
    token: str
    # One of the knowledge's chunks, and a tag of the knowledge base linked to it.
    chunk_id: str
    tag_id: str
    # An entity of the knowledge base's graph and a relation from it, in that chunk.
    entity_id: str
    relation_id: str
    markers: tuple[str, ...]
    # An FAQ knowledge base of the tenant and one entry of it (issue 15).
    faq_kb_id: str = ""
    faq_entry_id: str = ""


@pytest.fixture(scope="package")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    data_dir = tmp_path_factory.mktemp("tenancy-full")
    with full_stack(data_dir, workers=1, extra_env={"SLUICE_AUTH_REQUIRED": "true"}) as stack:
        second = Process(
            "api2",
            python("-m", "server.main", "--mode", "full", "--address", "127.0.0.1:0"),
            stack.env,
        )
        try:
            port = int(second.wait_for_line(_LISTENING, timeout=120).group(1))
            yield Deployment(stack, (stack.target, f"127.0.0.1:{port}"))
        finally:
            second.stop()


def admin(stack: Stack, *args: str) -> subprocess.CompletedProcess[str]:
    """``python -m server.admin ARGS`` against the deployment's database and Redis."""
    return subprocess.run(
        python("-m", "server.admin", *args),
        cwd=REPO,
        capture_output=True,
        text=True,
        env={**stack.env, "PYTHONPATH": PYTHONPATH},
        timeout=300,
    )


def create_key(stack: Stack, tenant_name: str = "", tenant_id: str = "") -> TenantKey:
    args = ("--tenant-id", tenant_id) if tenant_id else (tenant_name,)
    result = admin(stack, "create-key", *args)
    assert result.returncode == 0, result.stderr
    found = re.search(r"tenant (\S+)\nkey id (\S+)\napi key (\S+)", result.stdout)
    assert found, result.stdout
    return TenantKey(found.group(1), found.group(2), found.group(3))


def tenant_with_data(deployment: Deployment, name: str) -> TenantData:
    key = create_key(deployment.stack, name)
    secret = f"{name}{uuid.uuid4().hex[:8]}"
    with SluiceClient(deployment.targets[0], api_key=key.key) as client:
        kb = client.create_knowledge_base(f"kb-{secret}", description=f"about {secret}")
        page = html_with_image(secret.capitalize())
        knowledge = client.upload_file(kb.id, io.BytesIO(page), file_name=f"{secret}.html")
        done(client, knowledge.id)
        original, image = client.list_resources(knowledge.id)
        grant = client.create_access_grant(knowledge_id=knowledge.id, ttl_seconds=3600)
        chunk = next(iter(client.list_chunks(knowledge.id)))
        tag = client.create_tag(kb.id, f"tag-{secret}")
        client.set_knowledge_tags(knowledge.id, [tag.id])
        with stack_database(deployment.stack) as db:
            entities = [(f"{secret} pump", "DEVICE"), (f"{secret} valve", "DEVICE")]
            relations = [(f"{secret} pump", "feeds", f"{secret} valve")]
            write_graph(db, knowledge.id, {chunk.id: (entities, relations)})
        [entity, _] = client.list_entities(kb.id)
        [relation] = client.get_neighbourhood(entity.id).relations
    return TenantData(
        key,
        kb.id,
        knowledge.id,
        original.ref,
        image.ref,
        grant.token,
        chunk.id,
        tag.id,
        entity.id,
        relation.id,
        (secret.lower(),),
        *faq_data(deployment.targets[0], key.key, secret),
    )


def faq_data(target: str, key: str, secret: str) -> tuple[str, str]:
    """An FAQ knowledge base and one entry of it whose texts carry ``secret``."""
    metadata = (("authorization", f"Bearer {key}"),)
    with grpc.insecure_channel(target) as channel:
        kb = knowledge_base_pb2_grpc.KnowledgeBaseServiceStub(channel).CreateKnowledgeBase(
            knowledge_base_pb2.CreateKnowledgeBaseRequest(
                name=f"faq-{secret}", type=knowledge_base_pb2.KNOWLEDGE_BASE_TYPE_FAQ
            ),
            metadata=metadata,
        )
        entry = faq_pb2_grpc.FAQServiceStub(channel).CreateFAQEntry(
            faq_pb2.CreateFAQEntryRequest(
                knowledge_base_id=kb.knowledge_base.id,
                content=faq_pb2.FAQEntryContent(
                    standard_question=f"Where is {secret}?", answers=[f"{secret} is here"]
                ),
            ),
            metadata=metadata,
        )
    return kb.knowledge_base.id, entry.entry.id

"""`grpcurl describe` with the real grpcurl binary against running servers: the limits in
proto/'s field comments (top_k, page sizes, the docreader's input caps) come through server
reflection, and every file a described type needs, well-known types included, resolves."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator

import pytest

from tests.e2e.stacks import Stack, lite_stack
from tests.support.docreader import docreader_server
from tests.support.grpcurl import grpcurl_binary


def grpcurl(target: str, *args: str) -> str:
    done = subprocess.run(
        [grpcurl_binary(), "-plaintext", target, *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    with lite_stack(tmp_path_factory.mktemp("sluice-describe")) as running:
        yield running


def test_describe_search_request_states_the_top_k_limit(stack: Stack) -> None:
    described = grpcurl(stack.target, "describe", "sluice.v1.SearchRequest")
    assert "  // Default 10, at most 100.\n  int32 top_k = 3;\n" in described


def test_describe_list_knowledge_request_states_the_page_size_limit(stack: Stack) -> None:
    described = grpcurl(stack.target, "describe", "sluice.v1.ListKnowledgeRequest")
    assert (
        "  // Items per page: 0 = 100, at most 1000 (larger is clamped); negative is"
        " INVALID_ARGUMENT.\n"
    ) in described
    assert "  int32 page_size = 2;\n" in described


def test_the_well_known_types_and_every_service_still_resolve(stack: Stack) -> None:
    # Knowledge imports google/protobuf/timestamp.proto: served from the compiled pool.
    assert "google.protobuf.Timestamp created_at" in grpcurl(
        stack.target, "describe", "sluice.v1.Knowledge"
    )
    assert "int64 seconds = 1;" in grpcurl(stack.target, "describe", "google.protobuf.Timestamp")
    services = grpcurl(stack.target, "list").split()
    assert "grpc.health.v1.Health" in services
    assert "grpc.reflection.v1alpha.ServerReflection" in services
    assert "sluice.v1.SearchService" in services
    # A service of a file outside proto/ is described too.
    assert "rpc Check" in grpcurl(stack.target, "describe", "grpc.health.v1.Health")


def test_the_docreader_describes_its_input_caps() -> None:
    with docreader_server(max_message_bytes=4 << 20) as target:
        described = grpcurl(target, "describe", "sluice.docreader.v1.Engine")
        # It lists its own services only, though the descriptor set holds the API's too.
        assert "sluice.v1.SearchService" not in grpcurl(target, "list").split()
        missing = subprocess.run(
            [grpcurl_binary(), "-plaintext", target, "describe", "sluice.docreader.v1.Nope"],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert missing.returncode != 0
    assert "not found" in missing.stderr
    assert "// The largest file of each type this engine reads here, in bytes" in described
    assert "map<string, int64> max_input_bytes = 7;" in described

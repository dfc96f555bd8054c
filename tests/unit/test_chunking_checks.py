"""The API's chunking checks: the knowledge base's config merged with the overrides, as the
worker merges them, refused with one field violation per broken rule."""

from __future__ import annotations

from typing import Any

import grpc
import pytest
from sluice.v1 import config_pb2

from core.ssrf.url_policy import UrlPolicy
from server.api.errors import ApiError
from server.api.rpc import translated
from server.services.chunking_checks import check_effective_chunking
from server.services.knowledge_bases import validate_config, with_defaults
from server.services.overrides import MAX_PROCESS_CONFIG_BYTES, checked_overrides

KB = {"chunking": {"chunk_size": 512, "chunk_overlap": 64}}
POLICY = UrlPolicy()


def _violations(error: pytest.ExceptionInfo[ApiError]) -> list[str]:
    assert error.value.code == grpc.StatusCode.INVALID_ARGUMENT
    (bad_request,) = error.value.details
    return [v.field for v in bad_request.field_violations]  # type: ignore[attr-defined]


def _override(**chunking: Any) -> config_pb2.ProcessConfig:
    return config_pb2.ProcessConfig(chunking=config_pb2.ChunkingConfig(**chunking))


@pytest.mark.parametrize(
    ("chunking", "field"),
    [
        # The knowledge base's overlap (64) is inherited by a size of 1.
        ({"chunk_size": 1}, "chunk_overlap"),
        # 0 means "inherit 512": an overlap of 600 does not fit it.
        ({"chunk_size": 0, "chunk_overlap": 600}, "chunk_overlap"),
        ({"separators": [""]}, "separators[0]"),
        ({"chunk_size": -5}, "chunk_size"),
        (
            {"enable_parent_child": True, "parent_chunk_size": 100, "child_chunk_size": 300},
            "child_chunk_size",
        ),
    ],
)
def test_overrides_are_checked_merged_with_the_knowledge_base(
    chunking: dict[str, Any], field: str
) -> None:
    with pytest.raises(ApiError) as refused, translated():
        checked_overrides(_override(**chunking), "header.process_config", KB, POLICY)
    assert _violations(refused)[0] == f"header.process_config.chunking.{field}"


def test_an_inherited_value_is_named_as_the_knowledge_bases() -> None:
    with pytest.raises(ApiError) as refused, translated():
        check_effective_chunking(KB, {"chunking": {"chunk_size": 1}}, "process_config.chunking")
    assert "chunk_overlap is the knowledge base's" in refused.value.message


def test_good_overrides_are_returned_as_stored() -> None:
    override = _override(chunk_size=100, chunk_overlap=0)
    stored = checked_overrides(override, "process_config", KB, POLICY)
    assert stored == {"chunking": {"chunk_size": 100, "chunk_overlap": 0}}


def test_overrides_have_a_size_cap() -> None:
    rules = [
        config_pb2.ParserEngineRule(file_type="pdf", engine="simple", options={"k": "v" * 1024})
        for _ in range(MAX_PROCESS_CONFIG_BYTES // 1024)
    ]
    with pytest.raises(ApiError) as refused, translated():
        checked_overrides(
            config_pb2.ProcessConfig(parser_engine_rules=rules), "process_config", KB, POLICY
        )
    assert _violations(refused) == ["process_config"]


def test_a_knowledge_base_config_with_int32_min_chunk_size_is_invalid_argument() -> None:
    config = with_defaults(
        config_pb2.KnowledgeBaseConfig(chunking=config_pb2.ChunkingConfig(chunk_size=-(2**31)))
    )
    with pytest.raises(ApiError) as refused, translated():
        validate_config(config, POLICY)
    assert _violations(refused) == ["config.chunking.chunk_size"]


def test_several_broken_rules_are_all_reported() -> None:
    config = config_pb2.KnowledgeBaseConfig(
        chunking=config_pb2.ChunkingConfig(chunk_size=-1, chunk_overlap=-1, separators=["", ""])
    )
    with pytest.raises(ApiError) as refused, translated():
        validate_config(with_defaults(config), POLICY)
    assert _violations(refused) == [
        "config.chunking.chunk_size",
        "config.chunking.chunk_overlap",
        "config.chunking.separators[0]",
        "config.chunking.separators[1]",
    ]

"""A new knowledge base's embedding model: the multilingual local default, named in its
stored configuration, and only models the local provider ships."""

from __future__ import annotations

import grpc
import pytest
from sluice.v1 import config_pb2

from core.effective_config import embedding_model_of
from core.ssrf.url_policy import UrlPolicy
from server.api.errors import ApiError
from server.api.rpc import translated
from server.services.config_json import to_json
from server.services.knowledge_bases import validate_config, with_defaults

USE_KEY = "local/universal-sentence-encoder-multilingual-3/512"


def stored_key(config: config_pb2.KnowledgeBaseConfig) -> str:
    merged = with_defaults(config)
    validate_config(merged, UrlPolicy())
    return embedding_model_of(to_json(merged)).key


@pytest.mark.parametrize(
    "config",
    [
        config_pb2.KnowledgeBaseConfig(),
        config_pb2.KnowledgeBaseConfig(embedding=config_pb2.ModelConfig(provider="local")),
        config_pb2.KnowledgeBaseConfig(
            embedding=config_pb2.ModelConfig(provider="local", model=" ", dimensions=512)
        ),
    ],
)
def test_an_unnamed_local_model_is_the_multilingual_one(
    config: config_pb2.KnowledgeBaseConfig,
) -> None:
    assert stored_key(config) == USE_KEY


def test_minilm_can_still_be_chosen() -> None:
    config = config_pb2.KnowledgeBaseConfig(
        embedding=config_pb2.ModelConfig(provider="local", model="all-MiniLM-L6-v2")
    )
    assert stored_key(config) == "local/all-MiniLM-L6-v2/384"


@pytest.mark.parametrize(
    ("model", "dimensions", "field"),
    [
        ("bge-m3", 0, "config.embedding.model"),
        ("all-MiniLM-L6-v2", 512, "config.embedding.dimensions"),
        ("", 384, "config.embedding.dimensions"),
    ],
)
def test_other_local_models_are_refused(model: str, dimensions: int, field: str) -> None:
    config = config_pb2.KnowledgeBaseConfig(
        embedding=config_pb2.ModelConfig(provider="local", model=model, dimensions=dimensions)
    )
    with pytest.raises(ApiError) as refused, translated():
        stored_key(config)
    assert refused.value.code == grpc.StatusCode.INVALID_ARGUMENT
    (bad_request,) = refused.value.details
    assert [v.field for v in bad_request.field_violations] == [field]  # type: ignore[attr-defined]

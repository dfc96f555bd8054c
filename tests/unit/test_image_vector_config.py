"""Image vectors' configuration: only an embedding model said to take images may have
them (ModelConfig.accepts_images, refused for the local text models), and the effective
configuration carries both switches to the multimodal stage."""

from __future__ import annotations

import grpc
import pytest
from sluice.v1 import config_pb2

from core.effective_config import resolve
from core.ssrf.url_policy import UrlPolicy
from server.api.errors import ApiError
from server.api.rpc import translated
from server.services.config_json import to_json
from server.services.knowledge_bases import validate_config, with_defaults

ENDPOINT = config_pb2.ModelConfig(
    provider="openai", model="jina-clip-v2", base_url="http://127.0.0.1:8080/v1", dimensions=1024
)
# The endpoint is a loopback one (there is no network here), let in as an operator would.
POLICY = UrlPolicy(allow_hosts=frozenset({"127.0.0.1"}))


def refused_field(config: config_pb2.KnowledgeBaseConfig) -> str:
    with pytest.raises(ApiError) as refused, translated():
        validate_config(with_defaults(config), POLICY)
    assert refused.value.code == grpc.StatusCode.INVALID_ARGUMENT
    (bad_request,) = refused.value.details
    (violation,) = bad_request.field_violations  # type: ignore[attr-defined]
    return str(violation.field)


def test_a_model_that_takes_images_gets_image_vectors() -> None:
    embedding = config_pb2.ModelConfig()
    embedding.CopyFrom(ENDPOINT)
    embedding.accepts_images = True
    config = config_pb2.KnowledgeBaseConfig(
        embedding=embedding,
        image_processing=config_pb2.ImageProcessingConfig(image_vector_enabled=True),
    )
    merged = with_defaults(config)
    validate_config(merged, POLICY)
    effective = resolve(to_json(merged), None)
    assert effective.image_vector and effective.embedding.accepts_images
    # Whether it takes images is not part of the vector space.
    assert effective.embedding.key == "openai/jina-clip-v2/1024"


def test_image_vectors_need_a_model_that_takes_images() -> None:
    config = config_pb2.KnowledgeBaseConfig(
        embedding=ENDPOINT,
        image_processing=config_pb2.ImageProcessingConfig(image_vector_enabled=True),
    )
    assert refused_field(config) == "config.image_processing.image_vector_enabled"


def test_the_local_models_embed_text_only() -> None:
    config = config_pb2.KnowledgeBaseConfig(
        embedding=config_pb2.ModelConfig(provider="local", accepts_images=True)
    )
    assert refused_field(config) == "config.embedding.accepts_images"


def test_image_vectors_are_off_by_default() -> None:
    effective = resolve(to_json(with_defaults(config_pb2.KnowledgeBaseConfig())), None)
    assert not effective.image_vector and not effective.embedding.accepts_images

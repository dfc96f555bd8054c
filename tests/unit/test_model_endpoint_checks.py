"""Every model endpoint a configuration names — embedding, ASR, the VLM and the chat models
of summary, questions, extraction and wiki — is held to the SSRF policy when the
configuration is given (a knowledge base's config, an upload's process_config)."""

from __future__ import annotations

import pytest
from sluice.v1 import config_pb2

from core.errors import InvalidArgument
from core.ssrf.url_policy import UrlPolicy
from server.services.model_endpoints import REFUSED_REASON, check_model_endpoints

INTERNAL = "http://10.0.0.7:11434/v1"


def _kb_configs() -> list[tuple[config_pb2.KnowledgeBaseConfig, str]]:
    model = config_pb2.ModelConfig(provider="openai", model="m", base_url=INTERNAL)
    c = config_pb2
    return [
        (c.KnowledgeBaseConfig(embedding=model), "config.embedding"),
        (c.KnowledgeBaseConfig(vlm=c.VLMConfig(model=model)), "config.vlm.model"),
        (c.KnowledgeBaseConfig(asr=c.ASRConfig(model=model)), "config.asr.model"),
        (c.KnowledgeBaseConfig(summary=c.SummaryConfig(model=model)), "config.summary.model"),
        (
            c.KnowledgeBaseConfig(question_generation=c.QuestionGenerationConfig(model=model)),
            "config.question_generation.model",
        ),
        (c.KnowledgeBaseConfig(extract=c.ExtractConfig(model=model)), "config.extract.model"),
        (
            c.KnowledgeBaseConfig(wiki=c.WikiConfig(synthesis_model=model)),
            "config.wiki.synthesis_model",
        ),
    ]


@pytest.mark.parametrize(("config", "path"), _kb_configs())
def test_every_model_of_a_knowledge_base_config_is_checked(
    config: config_pb2.KnowledgeBaseConfig, path: str
) -> None:
    with pytest.raises(InvalidArgument) as refused:
        check_model_endpoints(config, "config", UrlPolicy())
    assert refused.value.violations == [
        (f"{path}.base_url", "refused by the SSRF policy: 10.0.0.7 is a private address")
    ]
    assert refused.value.reason == REFUSED_REASON
    # Allow-listed, the same endpoint passes.
    allowed = UrlPolicy(allow_hosts=frozenset({"10.0.0.7:11434"}))
    check_model_endpoints(config, "config", allowed)


def test_every_model_of_an_uploads_process_config_is_checked() -> None:
    model = config_pb2.ModelConfig(model="m", base_url=INTERNAL)
    c = config_pb2
    for over, path in [
        (c.ProcessConfig(vlm=c.VLMConfig(model=model)), "vlm.model"),
        (
            c.ProcessConfig(question_generation=c.QuestionGenerationConfig(model=model)),
            "question_generation.model",
        ),
        (c.ProcessConfig(extract=c.ExtractConfig(model=model)), "extract.model"),
    ]:
        with pytest.raises(InvalidArgument) as refused:
            check_model_endpoints(over, "process_config", UrlPolicy())
        assert refused.value.violations[0][0] == f"process_config.{path}.base_url"


def test_a_chat_model_needs_a_known_provider_and_an_endpoint() -> None:
    c = config_pb2
    allowed = UrlPolicy(allow_hosts=frozenset({"10.0.0.7:11434"}))
    for model, violation in [
        (c.ModelConfig(provider="anthropic", model="m", base_url=INTERNAL), "provider"),
        (c.ModelConfig(provider="ollama", model="llava"), "base_url"),
    ]:
        with pytest.raises(InvalidArgument) as refused:
            check_model_endpoints(
                c.KnowledgeBaseConfig(vlm=c.VLMConfig(model=model)), "config", allowed
            )
        assert refused.value.violations[0][0] == f"config.vlm.model.{violation}"
    for provider in ("", "OpenAI", "ollama", "vllm"):
        model = c.ModelConfig(provider=provider, model="m", base_url=INTERNAL)
        check_model_endpoints(c.ProcessConfig(extract=c.ExtractConfig(model=model)), "p", allowed)
    # A block that names no model asks nothing of its endpoint.
    check_model_endpoints(
        c.KnowledgeBaseConfig(summary=c.SummaryConfig(enabled=True)), "config", allowed
    )

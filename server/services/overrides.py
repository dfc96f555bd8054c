"""The checks a knowledge's processing overrides pass before anything is stored or queued
(spec: ValidateProcessOverrides): the chunking limits, the model endpoints against the SSRF
policy, and the models a file type needs."""

from __future__ import annotations

from typing import Any

from sluice.v1 import config_pb2

from server.api import convert
from server.api.errors import failed_precondition
from server.services.knowledge_bases import validate_chunking
from server.services.model_endpoints import check_model_endpoints
from workers.model_prechecks import missing_model
from workers.net.ssrf import UrlPolicy


def checked_overrides(
    config: config_pb2.ProcessConfig, field: str, policy: UrlPolicy
) -> dict[str, Any]:
    """The overrides as stored (their JSON form); INVALID_ARGUMENT naming ``field``."""
    if config.HasField("chunking"):
        validate_chunking(config.chunking, f"{field}.chunking")
    check_model_endpoints(config, field, policy)
    return convert.to_json(config)


def precheck_models(
    file_type: str,
    multimodal: bool,
    kb: config_pb2.KnowledgeBaseConfig,
    over: config_pb2.ProcessConfig,
) -> None:
    """Audio needs an ASR model, images with multimodal a VLM (FAILED_PRECONDITION)."""
    missing = missing_model(
        file_type,
        multimodal,
        asr_model=over.asr.model.model or kb.asr.model.model,
        vlm_model=over.vlm.model.model or kb.vlm.model.model,
    )
    if missing is not None:
        raise failed_precondition(missing.reason, missing.field, missing.message)

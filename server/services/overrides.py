"""The checks a knowledge's processing overrides pass before anything is stored or queued
(spec: ValidateProcessOverrides): their size, the chunking rules on the config they make
with the knowledge base's, the model endpoints against the SSRF policy, the OCR language
codes, and the models a file type needs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sluice.v1 import config_pb2

from core.errors import FailedPrecondition, InvalidArgument
from core.model_prechecks import missing_model
from core.ssrf.url_policy import UrlPolicy
from server.services.chunking_checks import check_effective_chunking
from server.services.config_json import to_json
from server.services.model_endpoints import check_model_endpoints
from server.services.ocr_checks import check_ocr_languages
from server.services.question_checks import check_question_count

# Every Knowledge message carries its overrides: they stay small, as configs are.
MAX_PROCESS_CONFIG_BYTES = 16 * 1024


def checked_overrides(
    config: config_pb2.ProcessConfig,
    field: str,
    kb_config: Mapping[str, Any],
    policy: UrlPolicy,
) -> dict[str, Any]:
    """The overrides as stored (their JSON form), once the config they make with the
    knowledge base's (``kb_config``, its stored JSON) is one the chunker takes, every model
    endpoint they name passes the SSRF ``policy`` and their OCR language codes are well
    formed; INVALID_ARGUMENT naming the field under ``field`` otherwise."""
    if config.ByteSize() > MAX_PROCESS_CONFIG_BYTES:
        raise InvalidArgument.field(field, f"is larger than {MAX_PROCESS_CONFIG_BYTES} bytes")
    overrides = to_json(config)
    check_effective_chunking(kb_config, overrides, f"{field}.chunking")
    check_model_endpoints(config, field, policy)
    check_ocr_languages(config.ocr.languages, f"{field}.ocr.languages")
    check_question_count(config.question_generation, f"{field}.question_generation")
    return overrides


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
        raise FailedPrecondition(missing.reason, missing.field, missing.message)

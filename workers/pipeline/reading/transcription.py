"""Audio documents: the docreader hands back the audio, the configured ASR model writes the
text that replaces the stub Markdown (spec: «Транскрипция ASR»)."""

from __future__ import annotations

from pathlib import PurePosixPath

from core.effective_config import EffectiveConfig
from core.ssrf.url_policy import UrlPolicy
from core.statuses import Stage
from workers.asr.config import transcriber_from_config
from workers.asr.errors import AsrError
from workers.docreader_client import ReadOutcome
from workers.pipeline.round.errors import DocReaderFailed, ModelEndpointRefused

# Statuses worth another attempt: the provider was busy or timed out.
_RETRYABLE_STATUSES = frozenset({0, 408, 429})


def transcribe(
    config: EffectiveConfig, outcome: ReadOutcome, file_name: str, policy: UrlPolicy
) -> str:
    """The transcript; the ASR endpoint is held to the SSRF ``policy``."""
    try:
        transcriber = transcriber_from_config(config.asr, policy)
    except AsrError as exc:
        raise DocReaderFailed(Stage.DOCREADER, str(exc), permanent=True) from exc
    if transcriber is None:
        raise DocReaderFailed(
            Stage.DOCREADER,
            "the file is audio but no ASR model is configured (config.asr.model)",
            permanent=True,
        )
    # Providers pick the decoder by extension: use the type the docreader detected.
    kind = outcome.detected_file_type
    name = str(PurePosixPath(file_name).with_suffix(f".{kind}")) if kind else file_name
    try:
        return transcriber.transcribe(outcome.audio_data, name)
    except AsrError as exc:
        if exc.refused:
            raise ModelEndpointRefused(Stage.DOCREADER, f"ASR failed: {exc}") from exc
        status = exc.status or 0
        permanent = status not in _RETRYABLE_STATUSES and status < 500
        raise DocReaderFailed(Stage.DOCREADER, f"ASR failed: {exc}", permanent=permanent) from exc

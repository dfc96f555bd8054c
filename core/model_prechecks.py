"""The models a file type needs before it can be processed (spec: the upload pre-checks):
audio needs an ASR model, an image under multimodal processing a VLM model.

The API asks at creation and at reparse; the worker asks again when a URL download turns out
to be another type than the one planned at creation (a link to "report" that serves an MP3),
so both sides judge by this one rule.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.extensions import AUDIO_EXTENSIONS, IMAGE_EXTENSIONS


@dataclass(frozen=True)
class MissingModel:
    reason: str  # ASR_MODEL_MISSING, VLM_MODEL_MISSING
    field: str  # the configuration field to set
    message: str


def missing_model(
    file_type: str, multimodal: bool, *, asr_model: str, vlm_model: str
) -> MissingModel | None:
    """What processing a ``file_type`` file lacks under these models ("" = none), or None."""
    if file_type in AUDIO_EXTENSIONS and not asr_model:
        return MissingModel(
            "ASR_MODEL_MISSING",
            "config.asr.model",
            "audio files need an ASR model: configure config.asr.model on the knowledge base",
        )
    if file_type in IMAGE_EXTENSIONS and multimodal and not vlm_model:
        return MissingModel(
            "VLM_MODEL_MISSING",
            "config.vlm.model",
            "multimodal image processing needs a VLM model: configure config.vlm.model",
        )
    return None

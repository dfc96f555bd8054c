"""The transcriber a knowledge base's ASR configuration names.

The configuration is the JSON form of the ``ASRConfig`` message (proto/sluice/v1/config.proto,
field names as in the .proto, as the database stores it)::

    {"model": {"provider": "openai", "model": "whisper-1",
               "base_url": "https://api.openai.com/v1", "api_key": "..."},
     "language": "en"}
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from core.ssrf.url_policy import UrlPolicy
from workers.asr.errors import AsrError
from workers.asr.openai_http import OpenAITranscriber

PROVIDERS = ("openai",)


def transcriber_from_config(
    asr_config: Mapping[str, Any] | None, policy: UrlPolicy
) -> OpenAITranscriber | None:
    """None when no ASR model is configured; AsrError when the configuration is unusable.
    Every request of the transcriber is held to the SSRF ``policy``."""
    config = asr_config or {}
    model = config.get("model") or {}
    name = str(model.get("model") or "").strip()
    if not name:
        return None
    # OpenAI-compatible endpoints are the only kind, so an empty provider means one.
    provider = str(model.get("provider") or "openai").strip().lower()
    if provider not in PROVIDERS:
        raise AsrError(f"unknown ASR provider {provider!r} (known: {', '.join(PROVIDERS)})")
    base_url = str(model.get("base_url") or "").strip()
    if not base_url:
        # No silent default endpoint: audio must not go to a third party nobody configured.
        raise AsrError(f"the ASR model {name!r} has no base_url: set config.asr.model.base_url")
    return OpenAITranscriber(
        base_url,
        str(model.get("api_key") or ""),
        name,
        language=str(config.get("language") or "").strip(),
        policy=policy,
    )

"""Transcription through any endpoint speaking OpenAI's `POST {base_url}/audio/transcriptions`.

OpenAI, Groq, vLLM, LocalAI, faster-whisper-server and speaches all take a multipart form
with `model`, `file`, `response_format` and an optional `language`, and answer
`{"text": ...}` (or the bare text for `response_format=text`). `base_url` already ends in
`/v1`, as in OpenAI's SDK. Every request passes the SSRF policy first (provider_endpoint), like
the embedder's; error messages never carry the answer's bytes (the body is logged).
"""

from __future__ import annotations

import json
from pathlib import PurePosixPath
from typing import Any

from core.ssrf.guard import Resolver
from core.ssrf.url_policy import UrlPolicy
from workers.asr.errors import AsrError
from workers.asr.multipart import multipart_body
from workers.net.provider_endpoint import ProviderCallError, ProviderEndpoint
from workers.net.provider_http import RetryPolicy

RESPONSE_FORMATS = ("json", "text")
# Providers infer the audio format from the file name; the part's type is informative.
_AUDIO_TYPES = {
    "mp3": "audio/mpeg",
    "wav": "audio/wav",
    "m4a": "audio/mp4",
    "flac": "audio/flac",
    "ogg": "audio/ogg",
}


class OpenAITranscriber:
    """Thread-safe; its requests share kept-alive connections (ProviderEndpoint)."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        model: str,
        timeout_s: float = 600.0,
        language: str = "",
        *,
        policy: UrlPolicy,
        resolver: Resolver | None = None,
        response_format: str = "json",
        max_retries: int = 2,
        backoff_s: float = 1.0,
        max_backoff_s: float = 10.0,
    ) -> None:
        if not base_url or not model:
            raise AsrError("an OpenAI-compatible transcriber needs base_url and model")
        if response_format not in RESPONSE_FORMATS:
            raise AsrError(
                f"response_format must be one of {RESPONSE_FORMATS}, not {response_format!r}"
            )
        self._model = model
        self._language = language
        self._response_format = response_format
        self._endpoint = ProviderEndpoint(
            base_url.rstrip("/") + "/audio/transcriptions",
            kind="ASR",
            model=model,
            api_key=api_key,
            policy=policy,
            resolver=resolver,
            timeout_s=timeout_s,
            # A timed-out upload already cost timeout_s: retrying would multiply that.
            retry=RetryPolicy(max_retries, backoff_s, max_backoff_s, retry_timeouts=False),
        )

    def transcribe(self, audio: bytes, file_name: str) -> str:
        """The transcript of ``audio``; ``file_name``'s extension tells the format."""
        if not audio:
            raise AsrError(f"{file_name!r} has no audio bytes to transcribe")
        fields = {"model": self._model, "response_format": self._response_format}
        if self._language:
            fields["language"] = self._language
        extension = PurePosixPath(file_name).suffix.lstrip(".").lower()
        body, content_type = multipart_body(
            fields,
            file_field="file",
            file_name=file_name,
            data=audio,
            content_type=_AUDIO_TYPES.get(extension, "application/octet-stream"),
        )
        raw, answer_type = self._post(body, content_type)
        return self._transcript(raw, answer_type)

    def _post(self, body: bytes, content_type: str) -> tuple[bytes, str]:
        try:
            response = self._endpoint.post(
                body, content_type, accept="application/json, text/plain"
            )
        except ProviderCallError as exc:
            raise AsrError(str(exc), exc.status, refused=exc.refused) from exc
        return response.body, response.content_type

    def _transcript(self, raw: bytes, content_type: str) -> str:
        text = raw.decode("utf-8", errors="replace")
        is_json = "json" in content_type or (not content_type and text.lstrip().startswith("{"))
        if not is_json:
            return text.strip()
        try:
            payload: Any = json.loads(text)
        except ValueError as exc:
            raise self._malformed("invalid JSON", text) from exc
        transcript = payload.get("text") if isinstance(payload, dict) else None
        if not isinstance(transcript, str):
            raise self._malformed("without a text field", text)
        return transcript.strip()

    def _malformed(self, what: str, body: str) -> AsrError:
        return AsrError(str(self._endpoint.malformed(what, body)), status=200)

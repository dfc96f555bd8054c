"""Transcription through any endpoint speaking OpenAI's `POST {base_url}/audio/transcriptions`.

OpenAI, Groq, vLLM, LocalAI, faster-whisper-server and speaches all take a multipart form
with `model`, `file`, `response_format` and an optional `language`, and answer
`{"text": ...}` (or the bare text for `response_format=text`). `base_url` already ends in
`/v1`, as in OpenAI's SDK. Uses the standard library's HTTP client, like the embedder.
"""

from __future__ import annotations

import json
import random
import time
import urllib.error
import urllib.request
from email.message import Message
from pathlib import PurePosixPath
from typing import Any

from workers.asr.errors import AsrError
from workers.asr.multipart import multipart_body

RESPONSE_FORMATS = ("json", "text")
# Providers infer the audio format from the file name; the part's type is informative.
_AUDIO_TYPES = {
    "mp3": "audio/mpeg", "wav": "audio/wav", "m4a": "audio/mp4", "flac": "audio/flac",
    "ogg": "audio/ogg",
}
_EXCERPT = 500


class OpenAITranscriber:
    """Thread-safe; each request opens its own connection."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        model: str,
        timeout_s: float = 600.0,
        language: str = "",
        *,
        response_format: str = "json",
        max_retries: int = 2,
        backoff_s: float = 1.0,
        max_backoff_s: float = 10.0,
    ) -> None:
        if not base_url or not model:
            raise AsrError("an OpenAI-compatible transcriber needs base_url and model")
        if response_format not in RESPONSE_FORMATS:
            raise AsrError(f"response_format must be one of {RESPONSE_FORMATS}, not "
                           f"{response_format!r}")
        self._url = base_url.rstrip("/") + "/audio/transcriptions"
        self._api_key = api_key
        self._model = model
        self._timeout = timeout_s
        self._language = language
        self._response_format = response_format
        self._max_retries = max_retries
        self._backoff = backoff_s
        self._max_backoff = max_backoff_s

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
        headers = {"Content-Type": content_type, "Accept": "application/json, text/plain"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        attempt = 0
        while True:
            request = urllib.request.Request(self._url, data=body, headers=headers, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=self._timeout) as response:
                    return response.read(), str(response.headers.get("Content-Type", ""))
            except urllib.error.HTTPError as exc:
                if _retryable(exc.code) and attempt < self._max_retries:
                    time.sleep(self._delay(attempt, exc.headers))
                    attempt += 1
                    continue
                raise AsrError(
                    f"transcription with {self._model} at {self._url} failed: HTTP {exc.code}: "
                    f"{_provider_message(_read_body(exc))}",
                    status=exc.code,
                ) from exc
            except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
                # A timed-out upload already cost timeout_s: retrying would multiply that.
                timed_out = isinstance(exc, TimeoutError) or isinstance(
                    getattr(exc, "reason", None), TimeoutError
                )
                if not timed_out and attempt < self._max_retries:
                    time.sleep(self._delay(attempt, None))
                    attempt += 1
                    continue
                raise AsrError(
                    f"cannot reach {self._url} after {attempt + 1} attempts: {exc}"
                ) from exc

    def _delay(self, attempt: int, headers: Message | None) -> float:
        retry_after = headers.get("Retry-After") if headers is not None else None
        if retry_after is not None:
            try:
                return min(max(float(retry_after), 0.0), self._max_backoff)
            except ValueError:
                pass  # an HTTP date: fall back to our own backoff
        # Exponential backoff with jitter, so retrying workers do not stampede together.
        return min(self._backoff * 2.0**attempt, self._max_backoff) * random.uniform(0.5, 1.0)

    def _transcript(self, raw: bytes, content_type: str) -> str:
        text = raw.decode("utf-8", errors="replace")
        is_json = "json" in content_type or (not content_type and text.lstrip().startswith("{"))
        if not is_json:
            return text.strip()
        try:
            payload: Any = json.loads(text)
        except ValueError as exc:
            raise AsrError(
                f"{self._url} answered invalid JSON: {text[:_EXCERPT]}", status=200
            ) from exc
        transcript = payload.get("text") if isinstance(payload, dict) else None
        if not isinstance(transcript, str):
            raise AsrError(
                f"{self._url} answered without a text field: {text[:_EXCERPT]}", status=200
            )
        return transcript.strip()


def _retryable(status: int) -> bool:
    """Rate limiting, request timeouts and server-side failures may pass on their own."""
    return status in (408, 429) or status >= 500


def _read_body(exc: urllib.error.HTTPError) -> str:
    try:
        return exc.read().decode("utf-8", errors="replace")
    except OSError:
        return ""


def _provider_message(body: str) -> str:
    """The error message in an error body: OpenAI's `error.message`, else `detail`/`message`."""
    try:
        payload: Any = json.loads(body)
    except ValueError:
        payload = None
    if isinstance(payload, dict):
        error = payload.get("error")
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return str(error["message"])
        for value in (error, payload.get("detail"), payload.get("message")):
            if isinstance(value, str) and value:
                return value
    return body.strip()[:_EXCERPT] or "(empty response body)"

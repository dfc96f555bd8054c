"""OpenAITranscriber against a real HTTP server speaking OpenAI's transcription protocol,
held to the SSRF policy: the server on 127.0.0.1 is reached through an allow-list entry
naming its port."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest

from core.ssrf.url_policy import UrlPolicy
from tests.support.openai_asr import (
    MODEL,
    FakeOpenAI,
    Reply,
    error_reply,
    serve_openai_asr,
    wav_bytes,
)
from workers.asr.config import transcriber_from_config
from workers.asr.errors import AsrError
from workers.asr.openai_http import OpenAITranscriber


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with serve_openai_asr() as state:
        yield state


def allowing(url: str) -> UrlPolicy:
    """The policy that lets the server at ``url`` (127.0.0.1:port) be reached."""
    return UrlPolicy(allow_hosts=frozenset({url.split("/")[2]}))


def client(url: str, **options: Any) -> OpenAITranscriber:
    defaults: dict[str, Any] = {"timeout_s": 5.0, "backoff_s": 0.01, "policy": allowing(url)}
    return OpenAITranscriber(url, "sk-test", MODEL, **{**defaults, **options})


def test_transcript_of_the_uploaded_audio(server: FakeOpenAI) -> None:
    audio = wav_bytes(12_000)

    text = client(server.url + "/").transcribe(audio, "meeting.wav")

    assert text == "12000 frames at 8000 Hz"
    [upload] = server.uploads
    assert upload.fields == {"model": MODEL, "response_format": "json"}
    assert (upload.file_name, upload.file_type, upload.audio) == ("meeting.wav", "audio/wav", audio)
    assert upload.authorization == "Bearer sk-test"


def test_text_response_format_and_language(server: FakeOpenAI) -> None:
    transcriber = client(server.url, response_format="text", language="ru")

    text = transcriber.transcribe(wav_bytes(800, rate=16_000), "запись.wav")

    assert text == "800 frames at 16000 Hz"
    [upload] = server.uploads
    assert upload.fields == {"model": MODEL, "response_format": "text", "language": "ru"}
    assert upload.file_name == "запись.wav"


def test_an_authentication_error_is_reported_not_retried(server: FakeOpenAI) -> None:
    server.planned.append(error_reply(401, "Incorrect API key provided: sk-test."))

    with pytest.raises(AsrError) as caught:
        client(server.url).transcribe(wav_bytes(10), "a.wav")

    assert caught.value.status == 401
    assert "HTTP 401 Unauthorized" in str(caught.value)
    # The answer's bytes stay in the log.
    assert "Incorrect API key" not in str(caught.value)
    assert len(server.uploads) == 1


def test_a_server_error_is_retried_until_success(server: FakeOpenAI) -> None:
    server.planned.append(Reply(500, "upstream exploded"))

    text = client(server.url).transcribe(wav_bytes(400), "a.wav")

    assert text == "400 frames at 8000 Hz"
    assert len(server.uploads) == 2
    assert server.uploads[0].audio == server.uploads[1].audio


def test_retries_are_bounded(server: FakeOpenAI) -> None:
    server.planned.extend(
        error_reply(429, "Rate limit reached for requests", **{"Retry-After": "0"})
        for _ in range(5)
    )

    with pytest.raises(AsrError, match="HTTP 429 Too Many Requests") as caught:
        client(server.url, max_retries=2).transcribe(wav_bytes(10), "a.wav")
    assert "Rate limit" not in str(caught.value)

    assert caught.value.status == 429
    assert len(server.uploads) == 3


def test_an_unknown_model_is_named_without_the_providers_words(server: FakeOpenAI) -> None:
    transcriber = OpenAITranscriber(
        server.url, "sk-test", "no-such-model", timeout_s=5.0, policy=allowing(server.url)
    )

    with pytest.raises(
        AsrError, match=r"/audio/transcriptions answered HTTP 404 Not Found for model no-such"
    ):
        transcriber.transcribe(wav_bytes(10), "a.wav")


def test_a_json_answer_without_text_is_an_error(server: FakeOpenAI) -> None:
    server.planned.append(Reply(200, '{"segments": []}', {"Content-Type": "application/json"}))

    with pytest.raises(AsrError, match="without a text field"):
        client(server.url).transcribe(wav_bytes(10), "a.wav")


def test_an_unreachable_endpoint_is_an_error() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    transcriber = client(f"http://127.0.0.1:{port}/v1", max_retries=1)

    with pytest.raises(AsrError, match=r"cannot reach .* after 2 attempts") as caught:
        transcriber.transcribe(wav_bytes(10), "a.wav")

    assert caught.value.status is None


def test_a_knowledge_base_config_builds_the_transcriber(server: FakeOpenAI) -> None:
    config = {
        "model": {"provider": "openai", "model": MODEL, "base_url": server.url, "api_key": "kb"},
        "language": "de",
    }

    transcriber = transcriber_from_config(config, allowing(server.url))

    assert transcriber is not None
    assert transcriber.transcribe(wav_bytes(160), "memo.wav") == "160 frames at 8000 Hz"
    [upload] = server.uploads
    assert upload.fields["language"] == "de"
    assert upload.authorization == "Bearer kb"


def test_configs_without_a_usable_model() -> None:
    policy = UrlPolicy()
    assert transcriber_from_config(None, policy) is None
    assert transcriber_from_config({}, policy) is None
    no_model = {"language": "en", "model": {"provider": "openai"}}
    assert transcriber_from_config(no_model, policy) is None
    with pytest.raises(AsrError, match="unknown ASR provider 'local'"):
        transcriber_from_config({"model": {"provider": "local", "model": "whisper"}}, policy)
    with pytest.raises(AsrError, match="has no base_url"):
        transcriber_from_config({"model": {"model": "whisper-1"}}, policy)


def test_a_refused_endpoint_gets_no_upload_and_says_so(server: FakeOpenAI) -> None:
    for policy, rule in [
        (UrlPolicy(), "127.0.0.1 is a loopback address"),
        (UrlPolicy(allow_hosts=frozenset({"127.0.0.1:1"})), "loopback"),
    ]:
        with pytest.raises(AsrError, match=f"refused by the SSRF policy: .*{rule}") as caught:
            client(server.url, policy=policy, max_retries=3).transcribe(wav_bytes(10), "a.wav")
        assert caught.value.refused and caught.value.status is None
    assert server.uploads == []

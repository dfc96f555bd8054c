"""Chat and vision models against a real HTTP server speaking OpenAI's chat-completions
protocol (tests/support/openai_chat_server.py), resolved through the ModelRegistry from a
knowledge base's configuration and held to the SSRF policy: the server on 127.0.0.1 is
reached only through an allow-list entry naming its port."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from core.effective_config import resolve
from core.model_configs import ChatModelConfig, VlmConfig
from core.ssrf.url_policy import UrlPolicy
from core.statuses import Stage
from tests.support.openai_chat_server import ChatServer, RawReply
from tests.support.processes import free_port
from workers.models import errors
from workers.models.errors import ModelUnavailable, ModelUnusable
from workers.models.openai_chat import OpenAIChatModel
from workers.models.protocols import ChatMessage, ChatModel, VisionModel
from workers.models.registry import ModelRegistry
from workers.net.retry_notices import RetryNotice, observe_retries
from workers.pipeline.round.errors import ModelFailed

MODEL = "chat-test"
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(64))


@pytest.fixture
def server() -> Iterator[ChatServer]:
    with ChatServer() as server:
        yield server


def allowing(server: ChatServer) -> UrlPolicy:
    return UrlPolicy(allow_hosts=frozenset({f"127.0.0.1:{server.port}"}))


def config_of(server: ChatServer, **fields: str) -> ChatModelConfig:
    values = {"provider": "openai", "model": MODEL, "base_url": server.base_url, **fields}
    return ChatModelConfig(**values)


def registry(server: ChatServer, **options: Any) -> ModelRegistry:
    defaults: dict[str, Any] = {"timeout_s": 5.0, "backoff_s": 0.01, "max_backoff_s": 0.05}
    return ModelRegistry(policy=lambda: allowing(server), **{**defaults, **options})


def chat(server: ChatServer, **options: Any) -> ChatModel:
    model = registry(server, **options).chat(config_of(server, api_key="sk-chat"))
    assert model is not None
    return model


def test_a_completion_sends_the_messages_and_returns_the_assistants_text(
    server: ChatServer,
) -> None:
    messages = [ChatMessage("system", "Be brief."), ChatMessage("user", "Summarise: the cat sat.")]

    text = chat(server).complete(messages, max_tokens=50)

    assert text == "echo: Summarise: the cat sat."
    [request] = server.log()
    assert request.body["model"] == MODEL
    assert request.body["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Summarise: the cat sat."},
    ]
    assert request.body["max_tokens"] == 50
    assert "response_format" not in request.body
    assert request.authorization == "Bearer sk-chat"


def test_json_output_asks_for_the_schema_and_returns_json(server: ChatServer) -> None:
    schema = {
        "type": "object",
        "properties": {"tags": {"type": "array", "items": {"type": "string"}}},
        "required": ["tags"],
    }

    text = chat(server).complete([ChatMessage("user", "Tag this.")], json_schema=schema)

    assert json.loads(text) == {"tags": ["example text"]}
    [request] = server.log()
    assert request.body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "answer", "schema": schema},
    }


def test_an_answer_that_is_not_the_json_asked_for_is_retryable(server: ChatServer) -> None:
    server.answer = lambda request: "Sure! Here are your tags: a, b"
    with pytest.raises(ModelUnavailable, match="not the JSON asked for") as caught:
        chat(server).complete([ChatMessage("user", "Tag.")], json_schema={"type": "object"})
    assert caught.value.retryable and "your tags" not in str(caught.value)


def test_an_image_goes_as_a_data_url_part_beside_the_prompt(server: ChatServer) -> None:
    vision = registry(server).vision(VlmConfig(model=config_of(server)))
    assert vision is not None

    caption = vision.describe(PNG, "image/png", "Describe this image in German.")

    assert caption == f"echo: Describe this image in German. [image/png, {len(PNG)} bytes]"
    [request] = server.log()
    assert request.texts == ["Describe this image in German."]
    assert request.images == [("image/png", PNG)]
    assert request.body["messages"][0]["role"] == "user"


def test_busy_answers_are_retried_with_each_retry_reported(server: ChatServer) -> None:
    server.fail = lambda n: {1: 503, 2: 429}.get(n)
    notices: list[RetryNotice] = []

    with observe_retries(notices.append):
        text = chat(server).complete([ChatMessage("user", "hello")])

    assert text == "echo: hello"
    assert len(server.log()) == 3
    assert [(n.failed_try, n.max_tries, n.error) for n in notices] == [
        (1, 4, "HTTP 503 Service Unavailable"),
        (2, 4, "HTTP 429 Too Many Requests"),
    ]
    assert all(n.operation == f"POST {server.base_url}/chat/completions" for n in notices)


def test_retries_are_bounded_and_the_failure_stays_retryable(server: ChatServer) -> None:
    server.fail = lambda n: 500
    with pytest.raises(ModelUnavailable, match="HTTP 500 Internal Server Error") as caught:
        chat(server, max_retries=2).complete([ChatMessage("user", "hello")])
    assert caught.value.retryable and caught.value.status == 500
    assert caught.value.code == errors.UNAVAILABLE
    assert "secret-detail" not in str(caught.value)
    assert len(server.log()) == 3


@pytest.mark.parametrize(
    ("status", "code", "hint"),
    [
        (401, errors.UNAUTHORIZED, "HTTP 401 Unauthorized"),
        (403, errors.UNAUTHORIZED, "HTTP 403 Forbidden"),
        (404, errors.NOT_FOUND, "HTTP 404 Not Found"),
        (400, errors.REQUEST_REJECTED, "HTTP 400 Bad Request"),
    ],
)
def test_a_refusal_of_the_request_is_final_at_once(
    server: ChatServer, status: int, code: str, hint: str
) -> None:
    server.fail = lambda n: status
    notices: list[RetryNotice] = []

    with observe_retries(notices.append), pytest.raises(ModelUnusable) as caught:
        chat(server, max_retries=5).complete([ChatMessage("user", "hello")])

    assert not caught.value.retryable and caught.value.code == code
    assert hint in str(caught.value) and f"for model {MODEL}" in str(caught.value)
    assert "secret-detail" not in str(caught.value)
    assert len(server.log()) == 1 and notices == []


def test_a_model_the_endpoint_no_longer_serves_is_named(server: ChatServer) -> None:
    base = server.url()  # no /v1: every path is unknown to the server
    model = registry(server).chat(ChatModelConfig(model="gone-model", base_url=base))
    assert model is not None
    with pytest.raises(ModelUnusable, match=r"/chat/completions answered HTTP 404") as caught:
        model.complete([ChatMessage("user", "hello")])
    assert caught.value.code == errors.NOT_FOUND and "gone-model" in caught.value.subject


def test_a_refused_endpoint_is_final_before_anything_is_sent(server: ChatServer) -> None:
    strict = ModelRegistry(policy=UrlPolicy)
    for build in (
        lambda: strict.chat(config_of(server)),
        lambda: strict.vision(VlmConfig(model=config_of(server))),
    ):
        with pytest.raises(ModelUnusable, match=r"127\.0\.0\.1 is a loopback address") as caught:
            build()
        assert caught.value.code == errors.ENDPOINT_REFUSED and not caught.value.retryable
    # A client built under another policy is checked again at the call.
    client = OpenAIChatModel(config_of(server), policy=UrlPolicy(), max_retries=3)
    with pytest.raises(ModelUnusable, match="refused by the SSRF policy") as refused:
        client.describe(PNG, "image/png", "secret prompt")
    assert refused.value.code == errors.ENDPOINT_REFUSED
    assert server.log() == []


def test_concurrent_callers_are_held_to_the_models_limit(server: ChatServer) -> None:
    server.delay_s = 0.25
    models = registry(server, concurrency=2)
    # Two knowledge bases with their own keys, one model at one endpoint: one limit.
    clients = [models.chat(config_of(server, api_key=key)) for key in ("kb-1", "kb-2")]
    answers: list[str] = []
    lock = threading.Lock()

    def call(index: int) -> None:
        client = clients[index % 2]
        assert client is not None
        text = client.complete([ChatMessage("user", f"question {index}")])
        with lock:
            answers.append(text)

    threads = [threading.Thread(target=call, args=(i,)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)

    assert sorted(answers) == sorted(f"echo: question {i}" for i in range(6))
    assert server.max_in_flight == 2
    assert clients[0] is not clients[1]


def test_a_slow_model_times_out_without_a_second_try(server: ChatServer) -> None:
    server.delay_s = 1.5
    started = time.monotonic()
    with pytest.raises(ModelUnavailable, match=r"timed out after 0.3 s") as caught:
        chat(server, timeout_s=0.3, max_retries=3).complete([ChatMessage("user", "hello")])
    assert time.monotonic() - started < 1.2
    assert caught.value.retryable and caught.value.status is None
    assert len(server.log()) == 1


def test_an_unreachable_endpoint_is_retried_then_retryable() -> None:
    base = f"http://127.0.0.1:{free_port()}/v1"
    policy = UrlPolicy(allow_hosts=frozenset({base.split("/")[2]}))
    models = ModelRegistry(policy=lambda: policy, max_retries=1, backoff_s=0.01)
    model = models.chat(ChatModelConfig(model=MODEL, base_url=base))
    assert model is not None
    with pytest.raises(ModelUnavailable, match=r"cannot reach .* after 2 attempts"):
        model.complete([ChatMessage("user", "hello")])


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        (RawReply(200, "<html>gateway</html>"), "invalid JSON"),
        (RawReply(200, '{"choices": []}'), "without a choice message"),
        (RawReply(200, '{"choices": [{"message": {"content": ""}}]}'), "an empty message"),
        (
            RawReply(200, '{"choices": [{"message": {"content": null, "refusal": "no"}}]}'),
            "a refusal",
        ),
    ],
)
def test_malformed_answers_are_retryable_errors_without_their_bytes(
    server: ChatServer, reply: RawReply, message: str
) -> None:
    server.fail = lambda n: reply
    with pytest.raises(ModelUnavailable, match=message) as caught:
        chat(server).complete([ChatMessage("user", "hello")])
    assert "gateway" not in str(caught.value)
    assert len(server.log()) == 1


def test_clients_are_cached_by_the_whole_model_configuration(server: ChatServer) -> None:
    models = registry(server)
    # One client per model configuration, whichever protocol it is asked for.
    first = models.chat(config_of(server))
    assert models.chat(config_of(server)) is first
    vision = models.vision(VlmConfig(model=config_of(server), description_language="de"))
    assert first is not None and id(vision) == id(first)
    assert models.chat(config_of(server, api_key="other")) is not first
    assert models.chat(ChatModelConfig()) is None
    assert models.vision(VlmConfig()) is None


def test_unusable_configurations_are_final_at_once() -> None:
    models = ModelRegistry(policy=UrlPolicy)
    for config, message in [
        (
            ChatModelConfig(provider="anthropic", model="m", base_url="https://x.example/v1"),
            "unknown model provider 'anthropic'",
        ),
        (ChatModelConfig(provider="ollama", model="llava"), "has no base_url"),
    ]:
        with pytest.raises(ModelUnusable, match=message) as caught:
            models.chat(config)
        assert caught.value.code == errors.MISCONFIGURED


def test_the_effective_config_names_the_uploads_vlm_over_the_knowledge_bases(
    server: ChatServer,
) -> None:
    kb = {
        "vlm": {
            "model": {"provider": "openai", "model": "kb-vlm", "base_url": server.base_url},
            "description_language": "English",
        },
        "summary": {"enabled": True, "model": {"model": "summ", "base_url": server.base_url}},
    }
    over = {"vlm": {"model": {"provider": "ollama", "model": "llava", "base_url": server.base_url}}}
    config = resolve(kb, over)
    models = registry(server)

    vision: VisionModel | None = models.vision(config.vlm)
    summary = models.chat(config.summary_model)
    assert vision is not None and summary is not None
    vision.describe(PNG, "image/png", "what is it?")
    summary.complete([ChatMessage("user", "sum up")])

    assert [r.body["model"] for r in server.log()] == ["llava", "summ"]
    assert config.vlm.description_language == "English"


def test_a_stage_fails_for_good_on_a_final_verdict_and_may_retry_an_outage(
    server: ChatServer,
) -> None:
    server.fail = lambda n: 401 if n == 1 else 503
    model = chat(server, max_retries=0)
    verdicts = []
    for _ in range(2):
        try:
            model.complete([ChatMessage("user", "hello")])
        except errors.ModelError as exc:
            verdicts.append(ModelFailed(Stage.MULTIMODAL, exc))
    assert [(v.code, v.permanent) for v in verdicts] == [
        (errors.UNAUTHORIZED, True),
        (errors.UNAVAILABLE, False),
    ]
    assert "HTTP 401 Unauthorized" in str(verdicts[0])

"""A model endpoint a configuration names (embedding, ASR, VLM, the chat models of summary,
questions, extraction and wiki) is an outbound request like a URL import: its ``base_url``
passes the same SSRF policy when it is configured — a knowledge base's config, an upload's
process_config — and again on every call (workers.net.provider_http). A chat or vision
model must also name a provider that speaks the chat-completions protocol and an endpoint:
no request goes to an endpoint nobody named."""

from __future__ import annotations

from collections.abc import Iterator

from google.protobuf.message import Message
from sluice.v1 import config_pb2

from core.errors import InvalidArgument
from core.model_configs import CHAT_MODEL_FIELDS, CHAT_PROVIDERS
from core.ssrf.guard import Resolver, validate_url
from core.ssrf.hosts import SsrfBlocked
from core.ssrf.url_policy import UrlPolicy
from server.services.url_import import url_refused

REFUSED_REASON = "MODEL_ENDPOINT_REFUSED"


def check_model_endpoints(
    config: Message, field: str, policy: UrlPolicy, *, resolver: Resolver | None = None
) -> None:
    """INVALID_ARGUMENT naming the first ``<field>....base_url`` the policy refuses, and the
    rule (ErrorInfo MODEL_ENDPOINT_REFUSED); or the first chat or vision model without a
    known provider or a base_url."""
    for path, model in _model_configs(config, field):
        if path.removeprefix(f"{field}.") in CHAT_MODEL_FIELDS and model.model:
            _check_chat_model(path, model)
        base_url = model.base_url.strip()
        if not base_url:
            continue
        try:
            validate_url(base_url, policy, resolver=resolver)
        except SsrfBlocked as exc:
            raise url_refused(f"{path}.base_url", exc.reason, kind=REFUSED_REASON) from exc


def _check_chat_model(path: str, model: config_pb2.ModelConfig) -> None:
    if model.provider.strip().lower() not in ("", *CHAT_PROVIDERS):
        raise InvalidArgument.field(
            f"{path}.provider",
            f"must be one of {', '.join(CHAT_PROVIDERS)} (OpenAI-compatible chat endpoints)",
        )
    if not model.base_url.strip():
        raise InvalidArgument.field(f"{path}.base_url", f"is required for the model {model.model}")


def _model_configs(message: Message, path: str) -> Iterator[tuple[str, config_pb2.ModelConfig]]:
    """Every ModelConfig set anywhere in ``message``, with its field path."""
    for descriptor, value in message.ListFields():
        if descriptor.message_type is None or descriptor.is_repeated:
            continue
        child = f"{path}.{descriptor.name}"
        if isinstance(value, config_pb2.ModelConfig):
            yield child, value
        else:
            yield from _model_configs(value, child)

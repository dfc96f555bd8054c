"""Config messages (sluice.v1 config_pb2, the typed form of a knowledge base's config and of
a document's processing overrides) ↔ the JSON they are stored as."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from google.protobuf import json_format
from google.protobuf.message import Message

M = TypeVar("M", bound=Message)


def to_json(message: Message) -> dict[str, Any]:
    return json_format.MessageToDict(message, preserving_proto_field_name=True)


def from_json(raw: Mapping[str, Any] | None, message: M) -> M:
    json_format.ParseDict(dict(raw or {}), message, ignore_unknown_fields=True)
    return message

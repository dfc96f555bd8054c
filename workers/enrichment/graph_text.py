"""A chunk's entities and relations: what the extraction model is asked, the JSON schema its
answer is held to (structured output), and the answer read back.

The model reads the document's title, the chunk's heading breadcrumbs and its text (up to
``SOURCE_BUDGET_CHARS``) and answers ``{"entities": [{name, type, description}],
"relations": [{source, target, relation, description}]}``. With ``entity_types`` /
``relation_types`` configured, the schema makes ``type`` and ``relation`` enums of them, and
the reading drops whatever is off the list anyway (a provider that does not enforce the
schema); without, they are free strings. A relation joins two entities of the same answer
by name: one whose end is not among the kept entities is dropped. Every drop is counted
(``Reading.dropped``), so the step's outputs can say so.

An answer that is not the JSON object the schema describes (``MalformedAnswer``, or one
the client could not read as JSON) is asked again, a bounded number of times
(``ask_extraction``).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from storage.graph.store import ExtractedEntity, ExtractedRelation
from workers.models.errors import ModelUnavailable
from workers.models.protocols import ChatMessage, ChatModel

# A chunk is at most a few thousand characters; a larger one is read as its start.
SOURCE_BUDGET_CHARS = 6_000
# What one chunk may add to the graph; an answer beyond it is cut (and says so).
MAX_ENTITIES = 40
MAX_RELATIONS = 80
# Longer than any name of a thing: such an entity is a sentence, not a name.
MAX_NAME_CHARS = 200
MAX_DESCRIPTION_CHARS = 500
# The answer's token budget: the entities and relations above, with short descriptions.
MAX_ANSWER_TOKENS = 4_096


class MalformedAnswer(ValueError):
    """The answer is not the JSON object the schema describes."""


class _Entity(BaseModel):
    model_config = ConfigDict(extra="ignore")
    name: str
    type: str
    description: str = ""


class _Relation(BaseModel):
    model_config = ConfigDict(extra="ignore")
    source: str
    target: str
    relation: str
    description: str = ""


class _Answer(BaseModel):
    model_config = ConfigDict(extra="ignore")
    entities: list[_Entity]
    relations: list[_Relation] = []


@dataclass
class Reading:
    """What a well-formed answer gave, and how many of its items were dropped, by why."""

    entities: list[ExtractedEntity] = field(default_factory=list)
    relations: list[ExtractedRelation] = field(default_factory=list)
    dropped: dict[str, int] = field(default_factory=dict)

    def drop(self, why: str) -> None:
        self.dropped[why] = self.dropped.get(why, 0) + 1


def extraction_schema(entity_types: Sequence[str], relation_types: Sequence[str]) -> dict[str, Any]:
    """The answer's JSON schema; the types, when configured, as enums."""

    def text(enum: Sequence[str] = ()) -> dict[str, Any]:
        return {"type": "string", "enum": list(enum)} if enum else {"type": "string"}

    def items(properties: Mapping[str, Any]) -> dict[str, Any]:
        return {
            "type": "array",
            "items": {
                "type": "object",
                "properties": dict(properties),
                "required": list(properties),
                "additionalProperties": False,
            },
        }

    return {
        "type": "object",
        "properties": {
            "entities": items({"name": text(), "type": text(entity_types), "description": text()}),
            "relations": items(
                {
                    "source": text(),
                    "target": text(),
                    "relation": text(relation_types),
                    "description": text(),
                }
            ),
        },
        "required": ["entities", "relations"],
        "additionalProperties": False,
    }


def extraction_messages(
    title: str,
    header: str,
    content: str,
    entity_types: Sequence[str],
    relation_types: Sequence[str],
) -> list[ChatMessage]:
    kinds = (
        f"Each entity's type is one of: {', '.join(entity_types)}; leave out entities of "
        "other kinds."
        if entity_types
        else "Give each entity a short lower-case type (person, organization, place, ...)."
    )
    links = (
        f"Each relation is one of: {', '.join(relation_types)}; leave out other relations."
        if relation_types
        else "Name each relation with a short lower-case verb phrase."
    )
    instructions = (
        "You build a knowledge graph from a passage of a document. List the named entities "
        "the passage mentions (people, organizations, places, products, concepts it is "
        f"about), each once, by the name the passage uses. {kinds} Then list the relations "
        "the passage states between those entities, each from a source entity to a target "
        f"entity, both named exactly as in your entity list. {links} Descriptions are one "
        "short sentence from the passage, in its language. Answer JSON: "
        '{"entities": [{"name", "type", "description"}], '
        '"relations": [{"source", "target", "relation", "description"}]}.'
    )
    lines = [f"Document: {title}" if title else "", f"Section: {header}" if header else ""]
    source = "\n".join(line for line in lines if line)
    passage = content.strip()[:SOURCE_BUDGET_CHARS]
    return [
        ChatMessage("system", instructions),
        ChatMessage("user", f"{source}\n\n{passage}" if source else passage),
    ]


def read_extraction(
    answer: str, entity_types: Sequence[str], relation_types: Sequence[str]
) -> Reading:
    """The entities and relations of an answer; MalformedAnswer when it is not the JSON
    object the schema describes."""
    try:
        parsed = _Answer.model_validate(json.loads(answer))
    except (ValueError, ValidationError) as exc:
        raise MalformedAnswer(_why(exc)) from exc
    reading = Reading()
    allowed_types = _spellings(entity_types)
    allowed_relations = _spellings(relation_types)
    # Normalised name → the kept entity's name (relations name their ends by it).
    names: dict[str, str] = {}
    seen: set[tuple[str, str]] = set()
    for item in parsed.entities:
        name, kind = _clean(item.name), _clean(item.type)
        if not name or len(name) > MAX_NAME_CHARS or not kind:
            reading.drop("entities_unnamed")
            continue
        kind = allowed_types.get(kind.casefold(), "") if allowed_types else kind
        if not kind:
            reading.drop("entities_off_type")
            continue
        if (name.casefold(), kind) in seen:
            continue
        if len(reading.entities) >= MAX_ENTITIES:
            reading.drop("entities_over_limit")
            continue
        seen.add((name.casefold(), kind))
        names.setdefault(name.casefold(), name)
        reading.entities.append(
            ExtractedEntity(name, kind, _clean(item.description)[:MAX_DESCRIPTION_CHARS])
        )
    joined: set[tuple[str, str, str]] = set()
    for link in parsed.relations:
        relation = _clean(link.relation)
        relation = allowed_relations.get(relation.casefold(), "") if allowed_relations else relation
        if not relation:
            reading.drop("relations_off_type")
            continue
        source, target = (
            names.get(_clean(link.source).casefold()),
            names.get(_clean(link.target).casefold()),
        )
        if source is None or target is None:
            reading.drop("relations_without_entities")
            continue
        if (source, target, relation) in joined:
            continue
        if len(reading.relations) >= MAX_RELATIONS:
            reading.drop("relations_over_limit")
            continue
        joined.add((source, target, relation))
        reading.relations.append(
            ExtractedRelation(
                source, target, relation, _clean(link.description)[:MAX_DESCRIPTION_CHARS]
            )
        )
    return reading


def _spellings(configured: Sequence[str]) -> dict[str, str]:
    """Case-folded → configured spelling: a model's "Person" is the configured "person"."""
    return {value.casefold(): value for value in configured}


def _clean(text: str) -> str:
    return " ".join(text.split())


def _why(exc: Exception) -> str:
    if isinstance(exc, ValidationError):
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "the answer"
        return f"the answer does not match the schema: {where}: {first['msg']}"
    return f"the answer is not JSON: {exc}"


@dataclass(frozen=True)
class Asked:
    """What asking gave: the reading of the first well-formed answer (None when none was),
    how many times the model was asked, and why each answer before it was not read."""

    reading: Reading | None
    asks: int
    malformed: Sequence[str] = ()


def ask_extraction(
    model: ChatModel,
    title: str,
    header: str,
    content: str,
    entity_types: Sequence[str],
    relation_types: Sequence[str],
    *,
    asks: int,
) -> Asked:
    """Ask until an answer is well formed, at most ``asks`` times (a model that answered
    badly once often answers well when asked again). Raises ModelError for a failed call
    other than an unreadable answer."""
    messages = extraction_messages(title, header, content, entity_types, relation_types)
    schema = extraction_schema(entity_types, relation_types)
    malformed: list[str] = []
    for n in range(1, asks + 1):
        try:
            answer = model.complete(messages, json_schema=schema, max_tokens=MAX_ANSWER_TOKENS)
            return Asked(read_extraction(answer, entity_types, relation_types), n, malformed)
        except ModelUnavailable as exc:
            # An answer came (HTTP 200) but was not JSON; any other outage is the queue's.
            if exc.status != HTTPStatus.OK:
                raise
            malformed.append(str(exc))
        except MalformedAnswer as exc:
            malformed.append(str(exc))
    return Asked(None, asks, malformed)

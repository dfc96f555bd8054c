"""What graph extraction asks and keeps: the JSON schema holds the types to the configured
lists, an answer is read into distinct entities and the relations between them (off-list
types and relations whose ends are not entities dropped and counted), a malformed answer is
refused, and the extraction types come from the effective configuration."""

from __future__ import annotations

import json

import pytest

from core.effective_config import resolve
from storage.graph.store import ExtractedEntity, ExtractedRelation
from workers.enrichment.graph_text import (
    MAX_ENTITIES,
    MalformedAnswer,
    extraction_messages,
    extraction_schema,
    read_extraction,
)

TYPES = ("person", "organization", "place")
RELATIONS = ("works_for", "located_in")


def test_the_schema_makes_the_configured_types_enums() -> None:
    schema = extraction_schema(TYPES, RELATIONS)
    entity = schema["properties"]["entities"]["items"]
    relation = schema["properties"]["relations"]["items"]
    assert entity["properties"]["type"] == {"type": "string", "enum": list(TYPES)}
    assert relation["properties"]["relation"] == {"type": "string", "enum": list(RELATIONS)}
    assert entity["required"] == ["name", "type", "description"]
    assert schema["required"] == ["entities", "relations"]
    free = extraction_schema((), ())
    assert free["properties"]["entities"]["items"]["properties"]["type"] == {"type": "string"}
    prompt = extraction_messages("Log", "Crew", "Ada works for Varnholt.", TYPES, RELATIONS)
    assert "person, organization, place" in prompt[0].content
    assert prompt[1].content == "Document: Log\nSection: Crew\n\nAda works for Varnholt."


def test_an_answer_is_read_into_distinct_entities_and_their_relations() -> None:
    answer = {
        "entities": [
            {"name": " Ada  Lovelace ", "type": "Person", "description": "A crane operator."},
            {"name": "ada lovelace", "type": "person", "description": "again"},
            {"name": "Varnholt Harbour", "type": "organization", "description": ""},
            {"name": "Salt", "type": "commodity", "description": "off the list"},
            {"name": "  ", "type": "place", "description": "no name"},
        ],
        "relations": [
            {
                "source": "ADA LOVELACE",
                "target": "Varnholt Harbour",
                "relation": "works_for",
                "description": "She runs its crane.",
            },
            {
                "source": "Ada Lovelace",
                "target": "Varnholt Harbour",
                "relation": "Works_For",
                "description": "the same relation again",
            },
            {
                "source": "Ada Lovelace",
                "target": "Salt",
                "relation": "works_for",
                "description": "its target was dropped",
            },
            {
                "source": "Ada Lovelace",
                "target": "Varnholt Harbour",
                "relation": "owns",
                "description": "off the list",
            },
        ],
    }
    reading = read_extraction(json.dumps(answer), TYPES, RELATIONS)
    assert reading.entities == [
        ExtractedEntity("Ada Lovelace", "person", "A crane operator."),
        ExtractedEntity("Varnholt Harbour", "organization", ""),
    ]
    assert reading.relations == [
        ExtractedRelation("Ada Lovelace", "Varnholt Harbour", "works_for", "She runs its crane.")
    ]
    assert reading.dropped == {
        "entities_off_type": 1,
        "entities_unnamed": 1,
        "relations_without_entities": 1,
        "relations_off_type": 1,
    }


def test_free_types_are_kept_as_the_model_wrote_them_and_the_answer_is_bounded() -> None:
    entities = [{"name": f"Crate {i}", "type": "cargo", "description": ""} for i in range(60)]
    reading = read_extraction(json.dumps({"entities": entities, "relations": []}), (), ())
    assert len(reading.entities) == MAX_ENTITIES
    assert reading.entities[0] == ExtractedEntity("Crate 0", "cargo", "")
    assert reading.dropped == {"entities_over_limit": 60 - MAX_ENTITIES}


@pytest.mark.parametrize(
    "answer",
    [
        "not json",
        '["a list"]',
        '{"relations": []}',
        '{"entities": [{"name": "Ada"}], "relations": []}',
        '{"entities": [{"name": 7, "type": "person"}], "relations": []}',
        '{"entities": "none", "relations": []}',
    ],
)
def test_an_answer_that_is_not_the_schemas_object_is_malformed(answer: str) -> None:
    with pytest.raises(MalformedAnswer):
        read_extraction(answer, TYPES, RELATIONS)


def test_the_extraction_types_come_from_the_upload_or_the_knowledge_base() -> None:
    kb = {"extract": {"enabled": True, "entity_types": ["person", " place ", "person", ""]}}
    config = resolve(kb, None)
    assert config.extract_entity_types == ("person", "place")
    assert config.extract_relation_types == ()
    over = {"extract": {"enabled": True, "entity_types": ["ship"], "relation_types": ["docks"]}}
    config = resolve(kb, over)
    assert (config.extract_entity_types, config.extract_relation_types) == (("ship",), ("docks",))

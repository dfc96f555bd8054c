"""Which index sides and collection a knowledge base's configuration means (core.index_sides),
and the IndexingStrategy switches as EffectiveConfig reads them from the stored JSON."""

from __future__ import annotations

from typing import Any

from core.effective_config import resolve
from core.index_sides import KEYWORD_ONLY_KEY, NO_INDEX_KEY, IndexSides, index_key_of, index_sides

MODEL = {"provider": "local", "model": "all-MiniLM-L6-v2", "dimensions": 384}
MODEL_KEY = "local/all-MiniLM-L6-v2/384"


def _config(indexing: dict[str, Any] | None) -> dict[str, Any]:
    config: dict[str, Any] = {"embedding": MODEL}
    if indexing is not None:
        config["indexing"] = indexing
    return config


def test_the_stored_switches_are_taken_as_written_and_a_missing_block_means_both() -> None:
    # MessageToDict leaves false switches out: both off is stored as an empty block.
    assert not resolve(_config({}), None).needs_embedding
    both = resolve(_config(None), None)
    assert (both.vector_enabled, both.keyword_enabled) == (True, True)
    flags = resolve(_config({"wiki_enabled": True, "graph_enabled": True}), None)
    assert flags.wiki_enabled and not flags.graph_enabled  # graph needs extraction on
    assert not resolve(_config(None), None).wiki_enabled


def test_each_combination_has_its_collection_and_sides() -> None:
    cases = {
        (True, True): (MODEL_KEY, IndexSides(dense=True, keyword=True)),
        (True, False): (MODEL_KEY, IndexSides(dense=True, keyword=False)),
        (False, True): (KEYWORD_ONLY_KEY, IndexSides(dense=False, keyword=True)),
        (False, False): (NO_INDEX_KEY, IndexSides(dense=False, keyword=False)),
    }
    for (vector, keyword), (key, sides) in cases.items():
        config = _config({"vector_enabled": vector, "keyword_enabled": keyword})
        assert index_key_of(config) == key
        assert index_sides(key, resolve(config, None)) == sides


def test_a_knowledge_base_created_before_the_switches_keeps_its_vectors() -> None:
    # Created with the model's key while its configuration said keyword only.
    keyword_only = resolve(_config({"keyword_enabled": True}), None)
    assert index_sides(MODEL_KEY, keyword_only) == IndexSides(dense=True, keyword=True)
    assert not index_sides(MODEL_KEY, resolve(_config({}), None)).any

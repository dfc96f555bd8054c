"""Knowledge-base defaults merged with per-upload overrides (the spec's ResolveProcessConfig)."""

from __future__ import annotations

from workers.pipeline.effective_config import DEFAULT_EMBEDDING, resolve

KB = {
    "chunking": {
        "chunk_size": 800,
        "chunk_overlap": 100,
        "parser_engine_rules": [{"file_type": "pdf", "engine": "simple"}],
    },
    "indexing": {"vector_enabled": True, "keyword_enabled": False},
    "embedding": {"provider": "local", "model": "all-MiniLM-L6-v2", "dimensions": 384},
    "extract": {"enabled": False},
}


def test_kb_defaults_apply_without_overrides() -> None:
    config = resolve(KB, None)
    assert (config.chunk_size, config.chunk_overlap) == (800, 100)
    assert config.parser_engine("pdf") == "simple"
    assert config.parser_engine("docx") == "builtin"
    assert config.needs_embedding and config.embedding == DEFAULT_EMBEDDING


def test_overrides_win_and_overlap_zero_is_kept() -> None:
    config = resolve(
        KB,
        {
            "chunking": {"chunk_size": 300, "chunk_overlap": 0},
            "parser_engine_rules": [{"file_type": "pdf", "engine": "markitdown"}],
            "enable_multimodel": True,
        },
    )
    assert (config.chunk_size, config.chunk_overlap) == (300, 0)
    assert config.parser_engine("pdf") == "markitdown"
    assert config.enable_multimodel


def test_unset_override_sizes_keep_the_kb_values() -> None:
    config = resolve(KB, {"chunking": {"chunk_size": 0}})
    assert config.chunk_size == 800


def test_graph_needs_an_enabled_extraction() -> None:
    assert not resolve(KB, {"graph_enabled": True}).graph_enabled
    assert resolve(KB, {"graph_enabled": True, "extract": {"enabled": True}}).graph_enabled


def test_openai_embedding_identity_includes_model_and_dimension() -> None:
    kb = {
        **KB,
        "embedding": {
            "provider": "openai",
            "model": "text-embedding-3-small",
            "base_url": "http://127.0.0.1:9/v1",
            "dimensions": 1536,
        },
    }
    assert resolve(kb, None).embedding.key == "openai/text-embedding-3-small/1536"

"""Knowledge-base defaults merged with per-upload overrides (the spec's ResolveProcessConfig)."""

from __future__ import annotations

import pytest

from core.effective_config import DEFAULT_EMBEDDING, EmbeddingModel, embedding_model_of, resolve
from core.model_configs import NO_MODEL, ChatModelConfig, VlmConfig

MINILM = EmbeddingModel("local", "all-MiniLM-L6-v2", "", "", 384)
USE = EmbeddingModel("local", "universal-sentence-encoder-multilingual-3", "", "", 512)

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
    assert config.parser_choice("pdf").engine == "simple"
    assert config.parser_choice("docx").engine == "builtin"
    assert config.needs_embedding and config.embedding == MINILM


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
    assert config.parser_choice("pdf").engine == "markitdown"
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


def test_engine_options_merge_per_file_type() -> None:
    kb = {
        "chunking": {
            "parser_engine_rules": [
                {"file_type": "csv", "engine": "builtin", "options": {"delimiter": ";"}},
                {
                    "file_type": "xlsx",
                    "engine": "builtin",
                    "options": {"first_row_header": "false"},
                },
            ]
        }
    }
    config = resolve(
        kb,
        {
            "parser_engine_rules": [
                {"file_type": "csv", "options": {"quote": "'"}},
                {"file_type": "xlsx", "engine": "markitdown", "options": {"x": "1"}},
            ]
        },
    )
    csv = config.parser_choice("csv")
    assert (csv.engine, dict(csv.options)) == ("builtin", {"delimiter": ";", "quote": "'"})
    # Switching engines drops the other engine's options.
    xlsx = config.parser_choice("xlsx")
    assert (xlsx.engine, dict(xlsx.options)) == ("markitdown", {"x": "1"})
    assert xlsx.switch("first_row_header")


def test_read_switches_come_out_of_the_engine_options() -> None:
    config = resolve(
        {
            "chunking": {
                "parser_engine_rules": [
                    {
                        "file_type": "pdf",
                        "engine": "builtin",
                        "options": {"enable_ocr": "false", "dpi": "300"},
                    },
                ]
            }
        },
        None,
    )
    pdf = config.parser_choice("pdf")
    assert not pdf.switch("enable_ocr")
    assert pdf.switch("first_row_header")
    assert pdf.engine_options == {"dpi": "300"}


def test_the_asr_and_vlm_models_are_the_uploads_when_it_names_them_else_the_kbs() -> None:
    """As the upload pre-check decides, so the worker's re-check agrees with it."""
    kb = {
        **KB,
        "asr": {"model": {"provider": "openai", "model": "whisper-1"}},
        "vlm": {"model": {"provider": "openai", "model": "gpt-4o"}},
    }
    assert (resolve(kb, None).asr_model, resolve(kb, None).vlm_model) == ("whisper-1", "gpt-4o")
    over = {"asr": {"model": {"model": "large-v3"}}, "vlm": {"model": {"model": "qwen-vl"}}}
    assert (resolve(kb, over).asr_model, resolve(kb, over).vlm_model) == ("large-v3", "qwen-vl")
    unnamed = {"asr": {"language": "ru"}, "vlm": {"model": {"model": ""}}}
    assert (resolve(kb, unnamed).asr_model, resolve(kb, unnamed).vlm_model) == (
        "whisper-1",
        "gpt-4o",
    )
    assert (resolve(KB, None).asr_model, resolve(KB, None).vlm_model) == ("", "")


def test_the_uploads_ocr_languages_replace_the_knowledge_bases() -> None:
    kb = {**KB, "ocr": {"languages": ["eng", "rus"]}}

    assert resolve(KB, None).ocr_languages == ()
    assert resolve(kb, None).ocr_languages == ("eng", "rus")
    assert resolve(kb, {"ocr": {"languages": ["chi_sim"]}}).ocr_languages == ("chi_sim",)
    # An upload that sets none keeps the knowledge base's.
    assert resolve(kb, {"ocr": {}}).ocr_languages == ("eng", "rus")


def test_new_knowledge_bases_get_the_multilingual_model() -> None:
    assert DEFAULT_EMBEDDING == USE
    assert embedding_model_of({"embedding": {"provider": "local", "model": USE.model}}) == USE


@pytest.mark.parametrize(
    "stored",
    [
        {},
        {"embedding": {"provider": "local"}},
        {"embedding": {"provider": "", "model": ""}},
        # The API took any local name while MiniLM was the only local model.
        {"embedding": {"provider": "local", "model": "bge-m3", "dimensions": 1024}},
        {"embedding": {"provider": "local", "model": "Sentence-Transformers/all-MiniLM-L6-v2"}},
    ],
)
def test_local_configs_without_a_known_model_keep_minilm(stored: dict[str, object]) -> None:
    """Their knowledge bases hold MiniLM vectors, whatever the default for new ones is."""
    assert embedding_model_of(stored) == MINILM


def test_the_chat_models_of_the_enrichments_and_the_vlms_options() -> None:
    kb = {
        **KB,
        "vlm": {
            "model": {"provider": "OpenAI", "model": "gpt-4o", "base_url": "https://a/v1"},
            "description_language": "Russian",
            "custom_instructions": "Name the product.",
        },
        "summary": {"enabled": True, "model": {"model": "sum", "base_url": "https://s/v1"}},
        "question_generation": {"enabled": True, "model": {"model": "q-kb"}},
        "extract": {"enabled": True, "model": {"model": "x-kb", "api_key": "k"}},
        "wiki": {"synthesis_model": {"model": "wiki", "base_url": "https://w/v1"}},
    }
    config = resolve(kb, None)
    assert config.vlm == VlmConfig(
        ChatModelConfig("openai", "gpt-4o", "https://a/v1", ""), "Russian", "Name the product."
    )
    assert config.summary_model == ChatModelConfig("", "sum", "https://s/v1", "")
    assert (config.question_model.model, config.extract_model.api_key) == ("q-kb", "k")
    assert config.wiki_model.model == "wiki"
    over = {
        "vlm": {"model": {"model": "llava", "base_url": "http://o:11434/v1"}},
        "question_generation": {"model": {"model": "q-upload"}},
        "extract": {"enabled": True},
    }
    config = resolve(kb, over)
    # The upload's VLM, with the knowledge base's language and instructions.
    assert config.vlm == VlmConfig(
        ChatModelConfig("", "llava", "http://o:11434/v1", ""), "Russian", "Name the product."
    )
    assert (config.question_model.model, config.extract_model.model) == ("q-upload", "x-kb")
    assert resolve(KB, None).summary_model == NO_MODEL
    assert not resolve(KB, None).vlm.model.configured


def test_auto_tags_default_to_three_at_most_ten_and_the_profile_is_off() -> None:
    off = resolve(KB, None)
    assert (off.auto_tag_enabled, off.auto_tag_max_tags, off.auto_tag_retag_tagged) == (
        False,
        3,
        False,
    )
    assert not off.profile_enabled
    on = resolve(
        {**KB, "auto_tag": {"enabled": True, "retag_tagged": True}, "profile": {"enabled": True}},
        None,
    )
    assert (on.auto_tag_enabled, on.auto_tag_max_tags, on.auto_tag_retag_tagged) == (True, 3, True)
    assert on.profile_enabled
    assert [
        resolve({**KB, "auto_tag": {"max_tags": n}}, None).auto_tag_max_tags for n in (1, 7, 50, -2)
    ] == [1, 7, 10, 1]

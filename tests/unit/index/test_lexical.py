"""The BM25 term extraction that makes keyword search language-aware on any Milvus."""

from __future__ import annotations

from storage.index.expressions import all_of, field_eq, field_in, quote
from storage.index.lexical import bm25_text


def terms(text: str) -> list[str]:
    return bm25_text(text, max_bytes=65_535).split(" ")


def test_english_words_are_stemmed_and_lowercased() -> None:
    assert terms("Indexed DOCUMENTS, running!") == ["index", "document", "run"]


def test_russian_word_forms_share_one_stem() -> None:
    forms = ["документ", "документы", "документов", "Документами"]
    assert {bm25_text(form, max_bytes=100) for form in forms} == {"документ"}
    assert bm25_text("ёлки", max_bytes=100) == bm25_text("елка", max_bytes=100)


def test_cjk_runs_become_overlapping_bigrams() -> None:
    assert terms("机器学习") == ["机器", "器学", "学习"]
    assert terms("猫") == ["猫"]
    assert terms("AI和机器") == ["ai", "和机", "机器"]


def test_punctuation_and_underscores_separate_terms() -> None:
    assert terms("snake_case 3.14 e-mail") == ["snake", "case", "3", "14", "e", "mail"]
    assert bm25_text("?! ... ---", max_bytes=100) == ""


def test_output_is_cut_at_a_term_boundary_within_the_byte_budget() -> None:
    text = bm25_text("альфа бета гамма", max_bytes=20)
    assert text == "альф бет"  # 8 + 1 + 6 bytes; "гамм" would need 9 more
    assert len(text.encode("utf-8")) <= 20


def test_filter_literals_are_escaped() -> None:
    assert quote('a"b\\c\nd') == '"a\\"b\\\\c\\nd"'
    assert field_in("kb", ["x", 'y"', "x"]) == 'kb in ["x", "y\\""]'
    assert field_eq("k", "v") == 'k == "v"'
    assert all_of("a == 1", "b == 2") == "(a == 1) and (b == 2)"

"""The BM25 term extraction that makes keyword search language-aware on any Milvus."""

from __future__ import annotations

from storage.index.expressions import all_of, field_eq, field_in, quote
from storage.index.lexical import iter_terms


def terms(text: str) -> list[str]:
    return list(iter_terms(text))


def test_english_words_are_stemmed_and_lowercased() -> None:
    assert terms("Indexed DOCUMENTS, running!") == ["index", "document", "run"]


def test_russian_word_forms_share_one_stem() -> None:
    forms = ["документ", "документы", "документов", "Документами"]
    assert {tuple(terms(form)) for form in forms} == {("документ",)}
    assert terms("ёлки") == terms("елка")


def test_chinese_is_segmented_into_words_and_the_words_inside_them() -> None:
    assert terms("我们喜欢机器学习") == ["我们", "喜欢", "机器", "学习"]
    assert terms("今天天气很好") == ["今天", "天天", "天气", "今天天气", "很", "好"]
    assert terms("AI和机器") == ["ai", "和", "机器"]
    assert terms("猫") == ["猫"]


def test_kana_and_hangul_runs_become_overlapping_bigrams() -> None:
    assert terms("カタカナ") == ["カタ", "タカ", "カナ"]
    assert terms("한국어") == ["한국", "국어"]


def test_punctuation_and_underscores_separate_terms() -> None:
    assert terms("snake_case 3.14 e-mail") == ["snake", "case", "3", "14", "e", "mail"]
    assert terms("?! ... ---") == []


def test_filter_literals_are_escaped() -> None:
    assert quote('a"b\\c\nd') == '"a\\"b\\\\c\\nd"'
    assert field_in("kb", ["x", 'y"', "x"]) == 'kb in ["x", "y\\""]'
    assert field_eq("k", "v") == 'k == "v"'
    assert all_of("a == 1", "b == 2") == "(a == 1) and (b == 2)"

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


def test_russian_nouns_that_drop_a_vowel_share_their_lemmas_stem() -> None:
    assert terms("буханок") == terms("буханки") == terms("буханка")
    assert terms("лодок") == terms("лодкой")
    # Names no dictionary holds keep the stem, which joins their case endings.
    assert terms("Графоовой") == terms("Графоова")


def test_chinese_is_segmented_into_words_and_the_words_inside_them() -> None:
    assert terms("我们喜欢机器学习") == ["我们", "喜欢", "机器", "学习"]
    assert terms("今天天气很好") == ["今天", "天天", "天气", "今天天气", "很", "好", "很好"]
    assert terms("AI和机器") == ["ai", "和", "机器"]
    assert terms("猫") == ["猫"]


def test_chinese_names_match_in_any_context_by_their_character_bigrams() -> None:
    """A name jieba's dictionary does not hold stays single characters plus their bigrams, the
    same whatever follows it (jieba's HMM guessed "岑桐岚开" here and "岑桐岚" there)."""
    question, statement = terms("岑桐岚开在沅澜镇的烘焙坊"), terms("岑桐岚在沅澜镇经营的面包店")

    assert {"岑桐", "桐岚", "沅澜", "澜镇"} <= set(question) & set(statement)
    assert "学生" not in terms("北京大学生活")  # no bigrams across dictionary words


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

"""Whether an OCR read fits the languages it was read in: confident, and in their scripts."""

from __future__ import annotations

from server.docreader.ocr_languages import fits, in_scripts


def test_a_confident_read_in_the_languages_script_fits() -> None:
    assert fits(("eng",), "Skos Osgarro keeps 3936 compasses", 95.0)
    assert fits(("chi_sim",), "郦翎翊管理的矿井每年产出8418吨铜矿石。", 71.0)


def test_an_unconfident_read_does_not_fit() -> None:
    assert not fits(("eng",), "RUE ERM Aa) (ENF 39 79FRAR", 15.0)


def test_chinese_languages_reading_latin_letters_do_not_fit_however_confident() -> None:
    # chi_sim reads English pictures at confidences of 79-91: eng should read them.
    assert not fits(("chi_sim",), "The inspector measures the footbridge", 91.0)


def test_russian_with_english_fits_latin_and_cyrillic_letters() -> None:
    assert in_scripts(("rus", "eng"), "Нибоела Кутруова прошла 7899 километров")
    assert in_scripts(("rus", "eng"), "The pump station report")
    assert not in_scripts(("eng",), "Нибоела Кутруова прошла 7899 километров")


def test_japanese_fits_its_kanji_as_well_as_its_kana() -> None:
    assert in_scripts(("jpn",), "水力発電所の点検")
    assert in_scripts(("jpn",), "すいりょくはつでんしょ")


def test_a_read_without_letters_is_judged_by_its_confidence_alone() -> None:
    assert fits(("chi_sim",), "3936 4817", 90.0)
    assert not fits(("chi_sim",), "3936 4817", 40.0)

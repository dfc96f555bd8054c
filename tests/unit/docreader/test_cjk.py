"""Joining lines of Chinese and Japanese text without the space other scripts need."""

# Chinese punctuation in strings is the point of these tests.
# ruff: noqa: RUF001

from __future__ import annotations

from server.docreader.text.cjk import (
    line_separator,
    one_line,
    without_inner_line_breaks,
    without_inner_spaces,
)


def test_lines_join_without_a_space_only_between_chinese_or_japanese_characters() -> None:
    assert line_separator("水库是拦洪", "蓄水") == ""
    assert line_separator("建筑物，", "可以") == ""
    assert line_separator("ひらがな", "カタカナ") == ""
    assert line_separator("pump", "station") == " "
    assert line_separator("水库", "pump") == " "
    # Korean separates its words with spaces.
    assert line_separator("한국어", "문장") == " "


def test_ocr_spaces_between_ideographs_go_and_the_others_stay() -> None:
    read = without_inner_spaces("水 库 是 拦洪, ok 蓄水 and 한 국")
    assert read == "水库是拦洪, ok 蓄水 and 한 국"


def test_source_line_breaks_between_ideographs_go() -> None:
    assert without_inner_line_breaks("水库是\n  调节水流的 \n 水利 and\nmore") == (
        "水库是调节水流的水利 and\nmore"
    )


def test_one_line_joins_manual_line_breaks_as_a_paragraph() -> None:
    assert one_line("水库的调度\n与防洪") == "水库的调度与防洪"
    assert one_line("Flood  control\n\tof the reservoir\n") == "Flood control of the reservoir"

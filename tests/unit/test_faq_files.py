"""Reading FAQ import files: headers (English and the reference template's Chinese ones),
multi-valued cells, spreadsheet row numbers, JSON decoded an item at a time (items cut by
the read buffer included), and unreadable files refused naming the row."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import openpyxl
import pytest

from core.errors import InvalidArgument
from server.services.faq_files.readers import read_rows


def write(tmp_path: Path, name: str, data: bytes) -> Path:
    path = tmp_path / name
    path.write_bytes(data)
    return path


def test_csv_rows_by_header_with_cells_split_and_spreadsheet_numbers(tmp_path: Path) -> None:
    data = (
        "\ufeffQuestion,Similar_Questions,answers,notes\n"
        'Gate?,"a##b\nc","one\ntwo",kept\n'
        ",,,\n"
        "Tide?,,noon,\n"
    ).encode()
    rows = list(read_rows(write(tmp_path, "f.csv", data), "csv"))
    assert [r.row_number for r in rows] == [2, 4]
    assert rows[0].similar_questions == ["a", "b", "c"]
    assert rows[0].answers == ["one", "two"]
    assert rows[0].columns["notes"] == "kept"


def test_the_chinese_template_headers(tmp_path: Path) -> None:
    # The full-width parenthesis (U+FF08) opens a note as the ASCII one does.
    headers = (
        "分类(必填),问题(必填),相似问题(选填-多个用##分隔),反例问题\uff08选填\uff09,"
        "机器人回答(必填-多个用##分隔),是否全部回复(选填-默认FALSE)"
    )
    data = f"{headers}\n常见,几点开门?,开门##营业时间,关门,六点,FALSE\n".encode()
    (row,) = read_rows(write(tmp_path, "t.csv", data), "csv")
    assert (row.tag_name, row.standard_question) == ("常见", "几点开门?")
    assert (row.similar_questions, row.negative_questions) == (["开门", "营业时间"], ["关门"])
    assert (row.answers, row.answer_strategy) == (["六点"], "random")


def test_xlsx_rows_from_the_first_sheet(tmp_path: Path) -> None:
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    assert sheet is not None
    sheet.append(["standard_question", "answers", "answer_strategy"])
    sheet.append(["Gate?", "one\ntwo", "all"])
    sheet.append([None, None, None])
    sheet.append(["Count?", 3, "sometimes"])
    workbook.save(tmp_path / "f.xlsx")
    rows = list(read_rows(tmp_path / "f.xlsx", "xlsx"))
    assert [(r.row_number, r.answers, r.error) for r in rows] == [
        (2, ["one", "two"], ""),
        (4, ["3"], "answer_strategy must be all or random, not 'sometimes'"),
    ]


def test_json_items_are_decoded_across_read_buffers(tmp_path: Path) -> None:
    # Answers of ~10,000 characters: the reader's 64 Ki-character blocks end inside items.
    items = [
        {"standard_question": f"Q{n} 问题", "answers": [f"A{n} " + "答" * 9_997], "tag_id": "t"}
        for n in range(20)
    ]
    path = write(tmp_path, "f.json", json.dumps(items, ensure_ascii=False, indent=1).encode())
    rows = list(read_rows(path, "json"))
    assert [r.standard_question for r in rows] == [f"Q{n} 问题" for n in range(20)]
    assert rows[5].row_number == 6 and rows[5].tag_id == "t"


@pytest.mark.parametrize(
    ("name", "data", "message"),
    [
        ("f.json", b'{"standard_question": "a"}', "row 1: the JSON must be an array"),
        ("f.json", b'[{"standard_question": "a", "answers": []}, 7]', "row 2: each item"),
        ("f.json", b'[{"standard_question": "a", "answers": []} {"b": 1}]', "row 2: expected ','"),
        ("f.json", b'[{"standard_question": "a",', "row 1: not valid JSON"),
        ("f.json", b"[] trailing", "text after the JSON array"),
        ("f.csv", b"", "row 1: the file is empty"),
        ("f.csv", b"question,notes\n", "row 1: the header has no answers column"),
        ("f.csv", b"question,answers,answer\n", "row 1: two columns hold answers"),
        ("f.csv", b"question,answers\nq,a\nq,\xff\n", "row 3: the file is not UTF-8"),
        ("f.csv", b'question,answers\n"ok",a\n"broken,b\n', "row 3: not valid CSV"),
        ("f.csv", b'question,answers\n"a"b,c\n', "row 2: not valid CSV"),
        ("f.xlsx", b"PK\x03\x04junk", "row 1: not a readable XLSX workbook"),
    ],
)
def test_unreadable_files_are_invalid_argument_naming_the_row(
    tmp_path: Path, name: str, data: bytes, message: str
) -> None:
    path = write(tmp_path, name, data)
    with pytest.raises(InvalidArgument) as refused:
        list(read_rows(path, name.rsplit(".", 1)[1]))
    ((field, description),) = refused.value.violations
    assert field == "data" and message in description


def test_a_workbook_that_inflates_like_a_zip_bomb_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "bomb.xlsx"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("[Content_Types].xml", "<Types/>")
        archive.writestr("xl/worksheets/sheet1.xml", b"0" * (4 << 20))
    with pytest.raises(InvalidArgument) as refused:
        list(read_rows(path, "xlsx"))
    assert "inflates past" in refused.value.violations[0][1]

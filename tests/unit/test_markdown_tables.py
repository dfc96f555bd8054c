"""Reading GFM tables back out of the Markdown the docreader writes."""

from __future__ import annotations

from server.docreader.markdown.tables import markdown_table
from workers.pipeline.markdown.tables import MarkdownTable, tables_in


def test_a_csv_table_without_heading() -> None:
    markdown = markdown_table([["Region", "Revenue"], ["North", "3.5"], ["South", "990"]])
    assert tables_in(markdown) == [
        MarkdownTable("", ("Region", "Revenue"), (("North", "3.5"), ("South", "990")))
    ]


def test_each_sheet_is_named_by_its_heading() -> None:
    q1 = markdown_table([["a", "b"], ["1", "2"]])
    q2 = markdown_table([["c"], ["x"], ["y"]])
    markdown = f"## Sheet: Q1\n\n{q1}\n\n## Sheet: Q2 (final)\n\n{q2}\n"
    tables = tables_in(markdown)
    assert [(t.title, t.header, t.rows) for t in tables] == [
        ("Q1", ("a", "b"), (("1", "2"),)),
        ("Q2 (final)", ("c",), (("x",), ("y",))),
    ]


def test_a_heading_without_the_sheet_prefix_names_the_table_too() -> None:
    markdown = "## Sheet1\n| A | B |\n| --- | --- |\n| 1 | NaN |\n"
    (table,) = tables_in(markdown)
    assert (table.title, table.rows) == ("Sheet1", (("1", "NaN"),))


def test_escaped_pipes_backslashes_and_line_breaks_come_back_as_cell_text() -> None:
    rows = [["path", "formula"], ["C:\\data\\x", "a|b"], ["two\nlines", "*not bold*"]]
    (table,) = tables_in(markdown_table(rows))
    assert table.header == ("path", "formula")
    assert table.rows == (("C:\\data\\x", "a|b"), ("two lines", "*not bold*"))


def test_backslash_escaped_punctuation_is_unescaped() -> None:
    (table,) = tables_in("| a |\n|---|\n| 1\\_000 \\*x\\* |\n")
    assert table.rows == (("1_000 *x*",),)


def test_rows_are_fitted_to_the_header_and_blank_rows_dropped() -> None:
    markdown = "| a | b | c |\n|---|:-:|--:|\n| 1 |\n| 1 | 2 | 3 | 4 |\n|  |  |  |\n| x | y | z |"
    (table,) = tables_in(markdown)
    assert table.rows == (("1", "", ""), ("1", "2", "3"), ("x", "y", "z"))


def test_a_header_repeated_with_its_delimiter_continues_the_table() -> None:
    header = "| id | name |\n| --- | --- |"
    markdown = f"{header}\n| 1 | a |\n{header}\n| 2 | b |\n| id | name |\n| 3 | c |"
    (table,) = tables_in(markdown)
    # The last "| id | name |" has no delimiter after it: it is data.
    assert table.rows == (("1", "a"), ("2", "b"), ("id", "name"), ("3", "c"))


def test_the_table_ends_at_a_blank_or_pipe_less_line() -> None:
    markdown = "| a |\n|---|\n| 1 |\n\n| 2 |\n\n| b |\n|---|\n| 3 |\nText after.\n| 4 |"
    tables = tables_in(markdown)
    assert [(t.header, t.rows) for t in tables] == [(("a",), (("1",),)), (("b",), (("3",),))]


def test_outer_pipes_are_optional() -> None:
    (table,) = tables_in("a | b\n--- | ---\n1 | 2\n")
    assert (table.header, table.rows) == (("a", "b"), (("1", "2"),))


def test_no_table_without_a_matching_delimiter_row_or_inside_code() -> None:
    assert tables_in("| a | b |\n| --- |\n| 1 | 2 |") == []
    assert tables_in("| a | b |\n| 1 | 2 |") == []
    assert tables_in("```\n| a |\n|---|\n| 1 |\n```\n") == []
    assert tables_in("Prices went up | down.\n\nNo tables here.") == []


def test_the_heading_in_force_is_the_last_one_above() -> None:
    markdown = "# Report\n\n| a |\n|---|\n| 1 |\n\n## Costs ##\n\n| b |\n|---|\n| 2 |"
    assert [t.title for t in tables_in(markdown)] == ["Report", "Costs"]


def test_title_lines_and_merged_cells_above_a_sheet_table_caption_it() -> None:
    table = markdown_table([["Region", "Units"], ["North", "3"]])
    markdown = (
        f"## Sheet: Q1\n\n\\# Sales 2024\n\nAll regions\n\nMerged cells: A1:F4, A6:A8\n\n{table}"
        f"\n\n## Sheet: Q2\n\n{table}"
    )
    q1, q2 = tables_in(markdown)
    assert (q1.caption, q1.merged_cells) == ("# Sales 2024 / All regions", "A1:F4, A6:A8")
    assert (q2.caption, q2.merged_cells) == ("", "")

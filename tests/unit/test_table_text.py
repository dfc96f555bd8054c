"""The sentences of the table_summary and table_column chunks."""

from __future__ import annotations

from workers.pipeline.markdown.tables import MarkdownTable
from workers.pipeline.tables.profile import profile_column, profile_table
from workers.pipeline.tables.text import (
    ProfileSummarizer,
    column_text,
    summary_text,
    table_label,
)


def _table(title: str = "", rows: int = 2, width: int = 1) -> MarkdownTable:
    header = tuple(f"c{i}" for i in range(width))
    return MarkdownTable(title, header, tuple(tuple(["1"] * width) for _ in range(rows)))


def test_labels_name_the_sheet_or_the_file() -> None:
    sheet = profile_table(_table("Q1"))
    plain = profile_table(_table())
    assert table_label(sheet, "b.xlsx", position=1, count=2, workbook=True) == (
        "sheet 'Q1' of 'b.xlsx'"
    )
    assert table_label(sheet, "r.md", position=1, count=2, workbook=False) == (
        "table 'Q1' of 'r.md'"
    )
    assert table_label(plain, "s.csv", position=1, count=1, workbook=False) == "table 's.csv'"
    assert table_label(plain, "r.md", position=2, count=3, workbook=False) == ("table 2 of 'r.md'")


def test_a_numeric_column_states_its_range_mean_and_sum() -> None:
    column = profile_column("Revenue", ["3.5", "990", "", "111.6"])
    assert column_text(column, "sheet 'Q1' of 'b.xlsx'") == (
        "Column 'Revenue' (number) in sheet 'Q1' of 'b.xlsx': 3 values, 1 empty, 3 distinct; "
        "min 3.5, max 990, mean 368.366667, sum 1105.1. Examples: '3.5', '990', '111.6'."
    )


def test_a_text_column_of_unique_values_shows_examples_not_frequencies() -> None:
    column = profile_column("Name", ["Ann", "Bob", "Cy"])
    assert column_text(column, "table 'p.csv'") == (
        "Column 'Name' (text) in table 'p.csv': 3 values, 0 empty, 3 distinct, none repeated. "
        "Examples: 'Ann', 'Bob', 'Cy'."
    )
    assert (
        ProfileSummarizer().summarize(
            profile_table(MarkdownTable("", ("Name",), (("Ann",), ("Bob",)))), "t"
        )
        == "'Name' holds 2 distinct values, none repeated."
    )


def test_the_summary_paragraph_has_a_sentence_per_column() -> None:
    table = MarkdownTable(
        "",
        ("Paid", "When", "Tag"),
        (("yes", "2024-01-02", "a"), ("no", "2024-01-01", "a"), ("yes", "", "b")),
    )
    assert ProfileSummarizer().summarize(profile_table(table), "t") == (
        "'Paid' is true in 2 rows and false in 1 row. 'When' spans 2024-01-01 to 2024-01-02. "
        "'Tag' has 2 distinct values, most often 'a' (2), 'b' (1)."
    )


def test_a_table_without_rows_says_so() -> None:
    profile = profile_table(_table(rows=0, width=2))
    paragraph = ProfileSummarizer().summarize(profile, "table 'e.csv'")
    assert summary_text(profile, "table 'e.csv'", paragraph) == (
        "Table 'e.csv': 0 rows and 2 columns.\nColumns: c0 (empty), c1 (empty).\n"
        "The table has a header but no rows."
    )


def test_a_very_wide_table_lists_its_first_hundred_columns() -> None:
    profile = profile_table(_table(rows=1, width=150))
    text = summary_text(profile, "table 'w.csv'", ProfileSummarizer().summarize(profile, ""))
    head, columns, paragraph = text.split("\n")
    assert head == "Table 'w.csv': 1 row and 150 columns."
    assert columns.endswith("c99 (integer), and 50 more.")
    assert paragraph.count("ranges from") == 100


def test_long_text_columns_are_described_by_length_not_quoted_at_length() -> None:
    notes = [f"Ticket {n}: the customer reports that the invoice total is wrong" for n in range(5)]
    column = profile_column("Notes", notes)
    text = column_text(column, "table 't.csv'")
    assert text == (
        "Column 'Notes' (text) in table 't.csv': 5 values, 0 empty, 5 distinct; long text of "
        f"{len(notes[0])} to {len(notes[0])} characters. Example: "
        "'Ticket 0: the customer reports that the…'."
    )
    table = MarkdownTable("", ("Notes",), tuple((n,) for n in notes))
    paragraph = ProfileSummarizer().summarize(profile_table(table), "t")
    size = len(notes[0])
    assert paragraph == f"'Notes' holds long text (5 values of {size} to {size} characters)."
    assert not any(note[:20] in paragraph for note in notes)


def test_the_summary_names_the_title_and_the_merged_cells_above_the_table() -> None:
    table = MarkdownTable(
        "Q1", ("Region",), (("North",),), caption="Sales 2024", merged_cells="A1:F4, A6:A8"
    )
    profile = profile_table(table)
    assert summary_text(profile, "sheet 'Q1' of 'q.xlsx'", "P.") == (
        "Sheet 'Q1' of 'q.xlsx': 1 row and 1 column.\nTitle: Sales 2024.\n"
        "Merged cells: A1:F4, A6:A8.\nColumns: Region (text).\nP."
    )

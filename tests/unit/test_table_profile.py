"""Type inference and column statistics of the data-table profile."""

from __future__ import annotations

from decimal import Decimal

import pytest

from workers.pipeline.markdown.tables import MarkdownTable
from workers.pipeline.tables.cell_values import parse_number
from workers.pipeline.tables.profile import (
    ColumnType,
    column_names,
    profile_column,
    profile_table,
    render_number,
)


@pytest.mark.parametrize(
    ("text", "value", "integral"),
    [
        ("1234", "1234", True),
        ("-3.5", "-3.5", False),
        ("\u22125", "-5", True),
        ("+7", "7", True),
        ("1,234", "1234", True),
        ("1,234,567.25", "1234567.25", False),
        ("1 234", "1234", True),
        ("1\u00a0234,5", "1234.5", False),
        ("1.234,5", "1234.5", False),
        ("1.234.567", "1234567", True),
        ("3,5", "3.5", False),
        ("1,23", "1.23", False),
        ("0,123", "0.123", False),
        ("0.5", "0.5", False),
        (".5", "0.5", False),
        ("1e3", "1000", False),
        ("0", "0", True),
    ],
)
def test_numbers_in_the_ways_tables_write_them(text: str, value: str, integral: bool) -> None:
    assert parse_number(text) == (Decimal(value), integral)


@pytest.mark.parametrize(
    "text", ["007", "00", "12,34,567", "1 2", "555 1234", "1e9999", "abc", "1-2", ""]
)
def test_what_is_not_a_number(text: str) -> None:
    assert parse_number(text) is None


def test_integers_with_thousands_separators_and_empty_cells() -> None:
    column = profile_column("Units", ["1,200", "3 400", "  ", "5", "N/A", "null"])
    assert column.type is ColumnType.INTEGER
    assert (column.cells, column.non_empty, column.empty, column.distinct) == (6, 3, 3, 3)
    assert (column.minimum, column.maximum) == ("5", "3400")
    assert (column.mean, column.total) == ("1535", "4605")
    assert column.samples == ("1,200", "3 400", "5")
    assert column.top_values == ()


def test_decimals_make_a_number_column_and_the_mean_is_exact() -> None:
    column = profile_column("Revenue", ["3,5", "10", "2.25", "0.1", "0.2"])
    assert column.type is ColumnType.NUMBER
    assert (column.minimum, column.maximum) == ("0.1", "10")
    # Binary floats would make this 3.2100000000000004.
    assert (column.mean, column.total) == ("3.21", "16.05")


def test_the_same_number_written_twice_is_one_distinct_value() -> None:
    column = profile_column("n", ["1000", "1,000", "1 000", "2"])
    assert (column.type, column.distinct) == (ColumnType.INTEGER, 2)


def test_a_mean_with_endless_decimals_is_rounded() -> None:
    column = profile_column("n", ["1", "1", "2"])
    assert (column.type, column.mean) == (ColumnType.INTEGER, "1.333333")


def test_one_cell_that_is_not_a_number_makes_the_column_text() -> None:
    column = profile_column("Code", ["12", "abc", "12", "7"])
    assert column.type is ColumnType.TEXT
    assert column.minimum is None and column.mean is None
    assert column.distinct == 3
    assert column.top_values == (("12", 2), ("abc", 1), ("7", 1))


def test_codes_with_leading_zeros_stay_text() -> None:
    assert profile_column("Zip", ["007", "01234", "12345"]).type is ColumnType.TEXT


def test_eight_digit_integers_are_not_read_as_dates() -> None:
    assert profile_column("Id", ["20240131", "20240201"]).type is ColumnType.INTEGER


def test_top_values_are_the_five_most_frequent_first_seen_first_on_ties() -> None:
    cells = ["b", "a", "c", "a", "d", "e", "f", "b", "g"]
    column = profile_column("Letter", cells)
    assert column.top_values == (("b", 2), ("a", 2), ("c", 1), ("d", 1), ("e", 1))
    assert column.samples == ("b", "a", "c", "d", "e")
    assert (column.distinct, column.non_empty) == (7, 9)


def test_long_text_is_shortened_where_shown() -> None:
    column = profile_column("Code", ["x" * 500, "a", "b"])
    assert not column.long_text
    assert [len(value) for value, _ in column.top_values] == [80, 1, 1]
    assert column.top_values[0][0].endswith("…")


def test_a_column_of_long_text_quotes_one_example_and_only_repeated_values() -> None:
    notes = [f"Customer {n} called about the delayed delivery of order {n} again" for n in range(9)]
    column = profile_column("Notes", [*notes, notes[2], notes[2], ""])
    assert column.long_text and column.type is ColumnType.TEXT
    assert (column.non_empty, column.distinct) == (11, 9)
    assert (column.min_length, column.max_length) == (len(notes[0]), len(notes[0]))
    assert column.samples == ("Customer 0 called about the delayed del…",)
    assert column.top_values == (("Customer 2 called about the delayed del…", 3),)


def test_booleans_are_counted_by_value() -> None:
    column = profile_column("Paid", ["TRUE", "false", "Yes", "", "no", "true"])
    assert column.type is ColumnType.BOOLEAN
    assert column.top_values == (("true", 3), ("false", 2))
    assert (column.non_empty, column.distinct) == (5, 2)


def test_zero_and_one_are_integers_not_booleans() -> None:
    assert profile_column("Flag", ["0", "1", "1"]).type is ColumnType.INTEGER


def test_a_column_without_values_is_empty() -> None:
    column = profile_column("Notes", ["", " ", "NaN", "#N/A"])
    assert column.type is ColumnType.EMPTY
    assert (column.cells, column.non_empty, column.empty) == (4, 0, 4)


@pytest.mark.parametrize(
    ("cells", "low", "high"),
    [
        (["2024-01-31", "2024-03-01", "2023-12-25"], "2023-12-25", "2024-03-01"),
        (["31.01.2024", "1.02.2024"], "2024-01-31", "2024-02-01"),
        (["2024/01/31", "2024/02/01"], "2024-01-31", "2024-02-01"),
        # Both orders read these; day first wins.
        (["01/02/2024", "13/02/2024"], "2024-02-01", "2024-02-13"),
        # Only month first reads 12/31.
        (["12/31/2024", "01/15/2024"], "2024-01-15", "2024-12-31"),
        # Spreadsheet dates come with a midnight time.
        (["2024-01-31 00:00:00", "2024-02-01 00:00:00"], "2024-01-31", "2024-02-01"),
        (["2024-01-31 12:30", "2024-01-31 08:00:00"], "2024-01-31 08:00:00", "2024-01-31 12:30:00"),
        # Offsets are compared in UTC.
        (
            ["2024-01-31T23:30:00+02:00", "2024-01-31T20:00:00Z"],
            "2024-01-31 20:00:00",
            "2024-01-31 21:30:00",
        ),
    ],
)
def test_dates(cells: list[str], low: str, high: str) -> None:
    column = profile_column("When", [*cells, ""])
    assert column.type is ColumnType.DATE
    assert (column.minimum, column.maximum) == (low, high)
    assert column.mean is None and column.total is None
    assert (column.non_empty, column.empty) == (len(cells), 1)


def test_dates_mixed_with_other_values_are_text() -> None:
    assert profile_column("When", ["2024-01-31", "soon"]).type is ColumnType.TEXT
    assert profile_column("When", ["2024-01-31", "31.01.2024"]).type is ColumnType.TEXT
    assert profile_column("When", ["2024-02-30"]).type is ColumnType.TEXT


def test_column_names_number_blanks_and_tell_repeats_apart() -> None:
    assert column_names(["Name", "", "Name", " x ", "Name"]) == [
        "Name",
        "Column 2",
        "Name (2)",
        "x",
        "Name (3)",
    ]


def test_a_table_profile_covers_every_column_and_row() -> None:
    table = MarkdownTable(
        "Q1",
        ("Region", "Revenue", "Date"),
        (
            ("North", "3.5", "2024-01-02"),
            ("South", "990", "2024-03-31"),
            ("North", "", "2024-02-15"),
        ),
    )
    profile = profile_table(table)
    assert (profile.title, profile.row_count, profile.column_count) == ("Q1", 3, 3)
    assert [(c.name, c.type) for c in profile.columns] == [
        ("Region", ColumnType.TEXT),
        ("Revenue", ColumnType.NUMBER),
        ("Date", ColumnType.DATE),
    ]
    revenue = profile.columns[1]
    assert (revenue.minimum, revenue.maximum, revenue.mean) == ("3.5", "990", "496.75")
    assert revenue.empty == 1


def test_a_table_without_rows_has_empty_columns() -> None:
    profile = profile_table(MarkdownTable("", ("a", "b"), ()))
    assert profile.row_count == 0
    assert [c.type for c in profile.columns] == [ColumnType.EMPTY, ColumnType.EMPTY]


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("1E+3", "1000"),
        ("1000.00", "1000"),
        ("-2.50", "-2.5"),
        ("-0", "0"),
        ("-1e-9", "0"),
        ("0.0000006", "0.000001"),
        ("12345678901234567890123456.123456789", "12345678901234567890123456.123457"),
    ],
)
def test_numbers_are_shown_plainly(value: str, shown: str) -> None:
    assert render_number(Decimal(value)) == shown

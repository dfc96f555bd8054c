"""normalize_html_tables: HTML tables in Markdown become Markdown tables."""

from __future__ import annotations

from workers.chunker import ChunkerConfig, split_markdown
from workers.chunker.html_tables import normalize_html_tables


def test_rowspan_and_colspan_are_filled_by_repetition() -> None:
    markdown = (
        "Intro line\n"
        '<table><thead><tr><th>Name</th><th colspan="2">Scores</th></tr></thead>'
        '<tbody><tr><td rowspan="2">Ann</td><td>1</td><td>2</td></tr>'
        "<tr><td>3</td><td>4</td></tr></tbody></table>\n"
        "Outro line"
    )
    assert normalize_html_tables(markdown) == (
        "Intro line\n\n"
        "| Name | Scores | Scores |\n"
        "| --- | --- | --- |\n"
        "| Ann | 1 | 2 |\n"
        "| Ann | 3 | 4 |\n\n"
        "Outro line"
    )


def test_pipes_are_escaped_and_whitespace_collapsed() -> None:
    markdown = "<TABLE><tr><td>a | b</td><td>multi\n  line <b>bold</b></td></tr></TABLE>"
    assert normalize_html_tables(markdown) == "| a \\| b | multi line bold |\n| --- | --- |"


def test_short_rows_are_padded_and_bad_spans_ignored() -> None:
    markdown = (
        "<table><tr><td>h1</td><td>h2</td><td>h3</td></tr>"
        '<tr><td colspan="x">only</td></tr><tr><td rowspan="9">tail</td></tr></table>'
    )
    assert normalize_html_tables(markdown) == (
        "| h1 | h2 | h3 |\n| --- | --- | --- |\n| only |  |  |\n| tail |  |  |"
    )


def test_nested_table_is_flattened_into_its_cell() -> None:
    markdown = (
        "<table><tr><th>outer</th></tr>"
        "<tr><td><table><tr><td>inner</td></tr></table></td></tr></table>"
    )
    assert normalize_html_tables(markdown) == "| outer |\n| --- |\n| inner |"


def test_tables_in_fenced_code_and_unclosed_tables_are_left_alone() -> None:
    fenced = "```html\n<table><tr><td>code</td></tr></table>\n```"
    assert normalize_html_tables(fenced) == fenced
    unclosed = "text <table><tr><td>never closed"
    assert normalize_html_tables(unclosed) == unclosed
    plain = "no tables at all"
    assert normalize_html_tables(plain) is plain


def test_several_tables_and_the_chunker_cuts_them_between_rows_under_their_header() -> None:
    rows = "".join(f"<tr><td>r{n}</td><td>{n}</td></tr>" for n in range(15))
    markdown = f"# T\n\n<table>{rows}</table>\n\nMiddle.\n\n<table>{rows}</table>"
    normalized = normalize_html_tables(markdown)
    assert "<table" not in normalized
    header = "| r0 | 0 |\n| --- | --- |\n"
    body = [f"| r{n} | {n} |" for n in range(1, 15)]
    table = header + "\n".join(body)
    assert normalized == f"# T\n\n{table}\n\nMiddle.\n\n{table}"
    # The delimiter row the normalizer writes is recognized: each part repeats the header.
    chunks = split_markdown(normalized, ChunkerConfig(chunk_size=50, chunk_overlap=10))
    assert all(len(c.content) <= 50 for c in chunks)
    with_rows = [c for c in chunks if set(c.content.split("\n")) & set(body)]
    assert len(with_rows) > 2 * 2, "both tables are cut"
    for chunk in with_rows:
        assert chunk.content[chunk.content.index("| r0 |") :].startswith(header)
    seen = [line for c in with_rows for line in c.content.split("\n") if line in body]
    assert seen == body * 2, "every row of both tables once, in order"

"""A wiki page's Markdown and the synthesis model's answers read back: slugs that put the
same topic of two documents on one page in any script, the sources section every page
ends with, and answers of the wrong shape that lose nothing."""

from __future__ import annotations

from core.wiki_markdown import compose_page, page_body, page_links, rebuilt_body, slugify
from workers.enrichment.wiki.text import MAX_TOPICS, read_topics


def test_slugs_fold_case_and_punctuation_in_every_script() -> None:
    assert slugify("Varnholt Harbour") == slugify("varnholt  harbour!") == "varnholt-harbour"
    assert slugify("Порт Варнхольт") == "порт-варнхольт"
    assert slugify("瓦恩霍尔特港") == "瓦恩霍尔特港"
    assert slugify("  ...  ") == ""


def test_a_page_is_title_body_and_linked_sources() -> None:
    content = compose_page(
        "Varnholt Harbour", "Cranes. See [North Pier](wiki://north-pier).", [("k1", "Crane log")]
    )
    assert content.startswith("# Varnholt Harbour\n\nCranes.")
    assert content.endswith("## Sources\n\n- [Crane log](knowledge://k1)\n")
    assert page_body(content) == "Cranes. See [North Pier](wiki://north-pier)."
    assert page_links(content) == ["north-pier"]
    assert rebuilt_body(["a ", "", " b"]) == "a\n\nb"


def test_topics_are_read_from_the_answer_and_reuse_only_existing_slugs() -> None:
    answer = (
        '{"topics": [{"title": "Varnholt  Harbour", "existing_slug": "the-port", '
        '"contribution": "Cranes."}, {"title": "Pier", "existing_slug": "made-up", '
        '"contribution": "Oak."}, {"title": "Empty", "existing_slug": "", "contribution": ""}]}'
    )
    topics = read_topics(answer, {"the-port"})
    assert [(t.slug, t.title, t.contribution) for t in topics] == [
        ("the-port", "Varnholt Harbour", "Cranes."),
        ("pier", "Pier", "Oak."),
    ]


def test_an_answer_of_another_shape_gives_no_topics() -> None:
    assert read_topics('{"pages": []}', set()) == []
    assert read_topics('["Varnholt"]', set()) == []
    many = ",".join(
        f'{{"title": "T{i}", "existing_slug": "", "contribution": "c"}}' for i in range(9)
    )
    assert len(read_topics(f'{{"topics": [{many}]}}', set())) == MAX_TOPICS

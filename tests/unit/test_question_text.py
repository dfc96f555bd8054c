"""What question generation reads and keeps: chunks that are only images get no questions,
the question count's default and bound, and a model's answer read back as distinct,
bounded questions."""

from __future__ import annotations

import base64

from core.effective_config import DEFAULT_QUESTION_COUNT, MAX_QUESTION_COUNT, resolve
from core.markdown_images import says_more_than_images
from workers.enrichment.question_text import MAX_QUESTION_CHARS, read_questions


def test_a_chunk_of_only_images_says_nothing_to_ask_about() -> None:
    data = base64.b64encode(b"\x89PNG" * 80).decode()
    assert not says_more_than_images("![](resource://r/page-1.png)\n\n![scan](page-2.png)")
    assert not says_more_than_images('<img src="a.png"> <img src=b.png>\n  ---  ')
    assert not says_more_than_images(f"data:image/png;base64,{data}")
    assert not says_more_than_images("")
    assert says_more_than_images("![](page.png) The harbour crane lifted crates.")
    assert says_more_than_images("Гавань ![](a.png)")
    assert says_more_than_images("```\n![example](x.png)\n```"), "code shows text, not images"


def test_question_count_defaults_to_three_and_is_bounded() -> None:
    def count(section: dict[str, object]) -> int:
        return resolve({"question_generation": section}, None).question_count

    assert DEFAULT_QUESTION_COUNT == 3
    assert count({}) == count({"question_count": 0}) == count({"question_count": -2}) == 3
    assert count({"question_count": 5}) == 5
    assert count({"question_count": 50}) == MAX_QUESTION_COUNT
    over = {"question_generation": {"enabled": True, "question_count": 7}}
    assert resolve({"question_generation": {"question_count": 2}}, over).question_count == 7


def test_an_answer_is_read_as_distinct_bounded_questions() -> None:
    answer = (
        '{"questions": ["  Who runs the  crane? ", "who runs the crane?", "", 7, '
        f'"{"x" * (MAX_QUESTION_CHARS + 1)}", "When was it built?", "Why?", "Where?"]}}'
    )
    assert read_questions(answer, 3) == ["Who runs the crane?", "When was it built?", "Why?"]
    assert read_questions('["A bare list?"]', 3) == ["A bare list?"]
    assert read_questions('{"questions": "not a list"}', 3) == []
    assert read_questions('"text"', 3) == []

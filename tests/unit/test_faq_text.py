"""core.faq_text: what normalising keeps and drops, and what the content hash tells apart."""

from __future__ import annotations

from core.faq_text import faq_content_hash, normalize_faq_text


def test_urls_case_full_width_and_whitespace_are_normalised() -> None:
    full_width_how = "\uff28\uff4f\uff57"
    url = "https://example.org/help?x=1"
    text = f"  {full_width_how}\u00a0do I\t\treset   it\uff1f See {url} \u200bNOW "
    assert normalize_faq_text(text) == "how do i reset it? see now"


def test_traditional_chinese_becomes_simplified() -> None:
    assert normalize_faq_text("這個測試怎麼設置\uff1f") == "这个测试怎么设置?"


def test_the_hash_ignores_order_and_repeats_of_similar_and_negative_questions() -> None:
    one = faq_content_hash("Q", ["a", "b", "b"], ["n1", "n2"], ["x"])
    two = faq_content_hash(" q ", ["B", "a"], ["N2", "n1"], ["X"])
    assert one == two
    assert len(one) == 64


def test_the_hash_tells_apart_what_differs() -> None:
    base = faq_content_hash("Q", ["a"], ["n"], ["x", "y"])
    assert faq_content_hash("Q2", ["a"], ["n"], ["x", "y"]) != base
    # A similar question is not a negative one, and answers keep their order.
    assert faq_content_hash("Q", [], ["a", "n"], ["x", "y"]) != base
    assert faq_content_hash("Q", ["a"], ["n"], ["y", "x"]) != base
    assert faq_content_hash("Q", ["a", "n"], [], ["x", "y"]) != faq_content_hash(
        "Q", ["a"], ["n"], ["x", "y"]
    )

"""(i) Chinese keyword terms: what Sluice indexes against jieba's HMM words and bigrams.

Dictionary words: for each of a set of sentences (common text and the classic segmentation
ambiguities), every dictionary word of 2-5 characters occurring in it (jieba's dictionary,
frequency > 50) is a query; a query counts as found when all its terms are among the
sentence's terms. A word that only spans a word boundary ("学生" in "大学/生活") is a false
match that bigrams make and word segmentation does not; the benchmark lists those it misses
so they can be judged.

Names: invented people and places (the recall corpus's, tests/support/recall_facts.py) in the
recall corpus's Chinese statements and the questions asking about them, worded otherwise. A
name counts as found when the question and the statement share a term of two or more of the
name's characters: the rare term a keyword search finds the statement by.

    .venv/bin/python -m bench.zh_segmentation
"""

from __future__ import annotations

from collections.abc import Sequence

import jieba

from bench.report import write_result
from storage.index.lexical import iter_terms
from tests.support.recall_facts import Names
from tests.support.recall_relations import RELATIONS

NAME = "zh_segmentation"
SENTENCES = (
    "我们喜欢机器学习和深度学习。",
    "数据库索引提高查询速度",
    "今天天气很好\uff0c适合散步。",
    "北京大学生活丰富多彩",
    "请在每年四月检查水泵的压力表",
    "这个闸门的校准记录保存在第四个抽屉里",
    "中华人民共和国成立于一九四九年",
    "自然语言处理是人工智能的一个重要分支",
    "研究生命起源的科学家发表了新论文",
    "他在上海市长江大桥附近工作",
    "南京市长江大桥横跨长江",
    "我们需要更新服务器的操作系统",
    "灯塔看守人每年四月粉刷栏杆",
    "结婚的和尚未结婚的人都来了",
    "该公司的季度财务报告显示收入增长",
    "用户可以通过搜索引擎找到相关文档",
    "乒乓球拍卖完了",
    "发展中国家的经济增长很快",
)


def _dictionary_words(text: str) -> set[str]:
    jieba.initialize()
    return {
        text[i:j]
        for i in range(len(text))
        for j in range(i + 2, min(len(text), i + 5) + 1)
        if jieba.dt.FREQ.get(text[i:j], 0) > 50
    }


def _bigrams(text: str) -> set[str]:
    return {text[i : i + 2] for i in range(len(text) - 1)}


def _hmm_terms(text: str) -> set[str]:
    """The previous scheme, the baseline: jieba's search mode with its HMM guessing words."""
    return {w for w in jieba.cut_for_search(text, HMM=True) if w.strip()}


def _shares_a_name_term(name: str, question: set[str], statement: set[str]) -> bool:
    return any(len(t) >= 2 and t in name for t in question & statement)


def _names_found(names_per_relation: int = 20) -> dict[str, object]:
    names = Names(seed=20261201)
    pairs = found = found_hmm = 0
    for relation in RELATIONS["zh"]:
        for _ in range(names_per_relation):
            slots = {"name": names.person("zh")["name"], "place": names.place("zh"), "value": "1"}
            statement = relation.statement.format(**slots)
            question = relation.question.format(**slots)
            ours = set(iter_terms(question)), set(iter_terms(statement))
            hmm = _hmm_terms(question), _hmm_terms(statement)
            for name in (slots["name"], slots["place"]):
                pairs += 1
                found += _shares_a_name_term(name, *ours)
                found_hmm += _shares_a_name_term(name, *hmm)
    return {"names": pairs, "names_found": found, "names_found_hmm": found_hmm}


def main(argv: Sequence[str] | None = None) -> dict[str, object]:
    queries = found_words = found_with_bigrams = 0
    missed: list[str] = []
    for sentence in SENTENCES:
        terms = set(iter_terms(sentence))
        for word in sorted(_dictionary_words(sentence)):
            queries += 1
            query = set(iter_terms(word))
            if query <= terms:
                found_words += 1
            else:
                missed.append(f"{word} in {sentence}")
            if query <= terms | _bigrams(sentence) or _bigrams(word) <= _bigrams(sentence):
                found_with_bigrams += 1
    figures: dict[str, object] = {
        "queries": queries,
        "found_jieba": found_words,
        "found_jieba_and_bigrams": found_with_bigrams,
        "missed_by_jieba": missed,
        **_names_found(),
    }
    for key, value in figures.items():
        print(f"{key}: {value}")
    write_result(NAME, figures)
    return figures


if __name__ == "__main__":
    main()

"""Deterministic mixed-language Markdown for the chunker benchmark: English, Russian and
Chinese prose, nested lists, tables (some bigger than a chunk, some with long cells), code
fences (some bigger than a chunk) and headings of four levels.

The same seed always gives the same text.
"""

from __future__ import annotations

import random

from bench.corpus import words

_EN = words(
    "river stone window garden quiet engine paper light number yellow market silver planet "
    "orange bridge valve sensor report crew budget schedule forecast harbour level pressure "
    "the a of and to in is that for with on as by"
)
_RU = words(
    "привет мир дорога книга солнце вода ветер город время ёлка щука объём отчёт насос "
    "уровень давление бригада смена график прогноз и в на по для что это как"
)
_ZH = "你好世界这是测试中文文本分块检查偏移量正确水泵阀门报告压力水位天气预报桥梁港口"
_CODE = (
    "def handle(request):",
    "    result = compute(request.payload, retries=3)",
    "    if result is None:",
    "        raise ValueError('no result for ' + request.id)",
    "    return {'status': 'ok', 'value': result}",
    "",
    "for item in items: total += item.weight * factor  # the running total",
    "| not | a table |",
    "# not a heading inside code",
    "SELECT id, name FROM pumps WHERE level > 3 ORDER BY name;",
)


def _words(rng: random.Random, vocabulary: tuple[str, ...], count: int) -> str:
    return " ".join(rng.choice(vocabulary) for _ in range(count))


def _sentence(rng: random.Random, language: str) -> str:
    if language == "zh":
        clauses = [
            "".join(rng.choice(_ZH) for _ in range(rng.randint(4, 16)))
            for _ in range(rng.randint(1, 3))
        ]
        return "\uff0c".join(clauses)  # a full-width comma + "。"
    text = _words(rng, _RU if language == "ru" else _EN, rng.randint(5, 18))
    return text[0].upper() + text[1:] + rng.choice((".", ".", ".", "!", "?"))


def _paragraph(rng: random.Random, language: str) -> str:
    # Mostly short paragraphs, some far longer than a chunk.
    count = rng.randint(1, 5) if rng.random() < 0.8 else rng.randint(10, 30)
    joiner = "" if language == "zh" else " "
    return joiner.join(_sentence(rng, language) for _ in range(count))


def _list(rng: random.Random, language: str) -> str:
    ordered = rng.random() < 0.4
    items = []
    for n in range(1, rng.randint(3, 12)):
        marker = f"{n}." if ordered else rng.choice("-*+")
        items.append(f"{marker} {_sentence(rng, language)}")
        if rng.random() < 0.25:
            items.append(f"   - {_sentence(rng, language)}")
    return "\n".join(items)


def _cell(rng: random.Random) -> str:
    roll = rng.random()
    if roll < 0.3:
        return str(rng.randint(0, 99999))
    if roll < 0.5:
        return "".join(rng.choice(_ZH) for _ in range(rng.randint(2, 6)))
    if roll < 0.98:
        return _words(rng, rng.choice((_EN, _RU)), rng.randint(1, 4))
    return _words(rng, _EN, rng.randint(30, 70))  # a cell with a whole paragraph


def _table(rng: random.Random) -> str:
    columns = rng.randint(2, 6)
    rows = rng.randint(2, 8) if rng.random() < 0.7 else rng.randint(15, 60)
    lines = ["| " + " | ".join(_cell(rng) for _ in range(columns)) + " |"]
    lines.append("|" + "---|" * columns)
    lines.extend("| " + " | ".join(_cell(rng) for _ in range(columns)) + " |" for _ in range(rows))
    return "\n".join(lines)


def _fence(rng: random.Random) -> str:
    marker = rng.choice(("```", "```", "~~~", "````"))
    lines = rng.randint(2, 10) if rng.random() < 0.8 else rng.randint(15, 40)
    body = [rng.choice(_CODE) for _ in range(lines)]
    return "\n".join([marker + rng.choice(("python", "sql", "")), *body, marker])


def _heading(rng: random.Random, language: str) -> str:
    level = rng.choice((1, 2, 2, 3, 3, 4))
    if language == "zh":
        title = "".join(rng.choice(_ZH) for _ in range(rng.randint(2, 8)))
    else:
        title = _words(rng, _RU if language == "ru" else _EN, rng.randint(1, 5)).capitalize()
    return "#" * level + " " + title


def mixed_document(seed: int, size_chars: int) -> str:
    """A document of at least ``size_chars`` code points."""
    rng = random.Random(seed)
    blocks = [_heading(rng, "en")]
    size = len(blocks[0])
    while size < size_chars:
        language = rng.choice(("en", "en", "ru", "zh"))
        roll = rng.random()
        if roll < 0.15:
            block = _heading(rng, language)
        elif roll < 0.55:
            block = _paragraph(rng, language)
        elif roll < 0.7:
            block = _list(rng, language)
        elif roll < 0.85:
            block = _table(rng)
        else:
            block = _fence(rng)
        blocks.append(block)
        size += len(block) + 2
    return "\n\n".join(blocks) + "\n"


def mixed_corpus(total_bytes: int, document_chars: int = 30_000, seed: int = 11) -> list[str]:
    """Documents of about ``document_chars`` until their UTF-8 size reaches ``total_bytes``."""
    documents: list[str] = []
    size = 0
    while size < total_bytes:
        document = mixed_document(seed * 100_003 + len(documents), document_chars)
        documents.append(document)
        size += len(document.encode("utf-8"))
    return documents

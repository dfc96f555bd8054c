"""Deterministic Markdown documents of varied prose: headings, paragraphs, lists and tables.

The same seed always gives the same bytes, so runs are comparable; no two seeds give the same
document, so uploads are never deduplicated.
"""

from __future__ import annotations

import random


def words(text: str) -> tuple[str, ...]:
    """The words of a literal, one list entry each."""
    return tuple(text.split())


_NOUNS = words(
    "pump valve gate channel reservoir turbine sensor filter pipe basin levee spillway weir "
    "culvert intake outlet screen motor bearing seal gasket flange coupling impeller shaft "
    "meter gauge panel relay switch cable battery generator inverter controller alarm log "
    "schedule inspection report crew operator engineer supervisor contractor permit budget "
    "invoice supplier warehouse spare inventory ledger audit policy procedure checklist "
    "manual drawing diagram survey sample reading threshold tolerance pressure flow level "
    "temperature vibration noise leak crack corrosion sediment debris algae rainfall season "
    "storm drought forecast catchment river lake canal harbour lock bridge road depot"
)
_VERBS = words(
    "inspects records replaces adjusts calibrates cleans measures reports checks tightens "
    "lubricates monitors logs opens closes isolates drains flushes tests verifies approves "
    "schedules orders stores labels photographs compares estimates reviews signs updates "
    "restarts balances aligns repairs replaces documents escalates"
)
_ADJECTIVES = words(
    "routine weekly monthly annual upstream downstream primary secondary spare worn new "
    "damaged clean noisy quiet stable unstable high low nominal critical minor major manual "
    "automatic remote local temporary permanent seasonal visible hidden rusty sealed"
)
_ADVERBS = words("carefully quickly slowly promptly twice daily safely always usually rarely")
_CONNECTORS = (
    "Before the shift ends,",
    "After heavy rain,",
    "During the dry season,",
    "If the alarm sounds,",
    "Once a quarter,",
    "When the level rises,",
    "In cold weather,",
    "At the start of each week,",
)


def _sentence(rng: random.Random) -> str:
    words = [
        rng.choice(_CONNECTORS) if rng.random() < 0.3 else "",
        "the",
        rng.choice(_ADJECTIVES),
        rng.choice(_NOUNS),
        rng.choice(_VERBS),
        "the",
        rng.choice(_ADJECTIVES),
        rng.choice(_NOUNS),
        rng.choice(_ADVERBS),
    ]
    words += [rng.choice(("and", "then", "so", "while")), "the", rng.choice(_NOUNS)]
    words += [rng.choice(_VERBS), rng.choice(("the", "a", "each")), rng.choice(_NOUNS)]
    text = " ".join(w for w in words if w)
    return text[0].upper() + text[1:] + "."


def _paragraph(rng: random.Random) -> str:
    return " ".join(_sentence(rng) for _ in range(rng.randint(3, 7)))


def _bullets(rng: random.Random) -> str:
    marker = "1." if rng.random() < 0.4 else "-"
    items = [
        f"{marker} {rng.choice(_VERBS).capitalize()} the {rng.choice(_ADJECTIVES)} "
        f"{rng.choice(_NOUNS)} {rng.choice(_ADVERBS)}."
        for _ in range(rng.randint(3, 7))
    ]
    return "\n".join(items)


def _table(rng: random.Random) -> str:
    header = "| item | state | reading | owner |\n|---|---|---|---|"
    rows = [
        f"| {rng.choice(_NOUNS)} {n} | {rng.choice(_ADJECTIVES)} | "
        f"{rng.randint(1, 999)}.{rng.randint(0, 9)} | {rng.choice(_NOUNS)} crew |"
        for n in range(rng.randint(3, 6))
    ]
    return "\n".join([header, *rows])


def _section(rng: random.Random, level: int) -> str:
    heading = f"{'#' * level} {rng.choice(_ADJECTIVES).capitalize()} {rng.choice(_NOUNS)} work"
    blocks = [heading, _paragraph(rng)]
    for _ in range(rng.randint(1, 3)):
        roll = rng.random()
        if roll < 0.2:
            blocks.append(_bullets(rng))
        elif roll < 0.35:
            blocks.append(_table(rng))
        blocks.append(_paragraph(rng))
    return "\n\n".join(blocks)


def markdown_document(seed: int, size_bytes: int, title: str) -> str:
    """A document of about `size_bytes` (never less) with nested sections."""
    rng = random.Random(seed)
    parts = [f"# {title}", _paragraph(rng)]
    size = sum(len(p) + 2 for p in parts)
    while size < size_bytes:
        section = _section(rng, rng.choice((2, 2, 3)))
        parts.append(section)
        size += len(section) + 2
    return "\n\n".join(parts) + "\n"

"""Invented facts for the recall benchmark, in English, Russian and Chinese, each with a
question asked in other words.

A fact says that an invented person did something with an invented number at an invented
place ("Brindle Oskavar keeps exactly 4817 brass compasses in the storehouse at Kelvora").
No model knows these names, so only retrieval can answer. The number is the answer and
unique in the corpus: a search hit holds the fact when its text contains it. Questions
paraphrase the statement (synonyms, another word order, Russian names in another case) but
keep the names, as a user asking about a person would; twelve relations per language repeat
across documents, so the same wording with other names is a distractor in many places.

Filler prose in each language surrounds the facts, so documents span several chunks.
"""

# ruff: noqa: RUF001 (Russian and Chinese text)
from __future__ import annotations

import random
from dataclasses import dataclass

from tests.support.recall_relations import RELATIONS

LANGUAGES = ("en", "ru", "zh")


@dataclass(frozen=True)
class Fact:
    fact_id: str
    language: str
    # Where it is placed: body, heading, list, table, note, json, picture (an image inside a
    # document) or image (the whole file is a picture: png, jpg, a scanned PDF).
    location: str
    statement: str
    question: str
    # The number: verbatim in the statement, in no other fact or filler.
    answer: str
    # The fact as a short heading and as a table row (under recall_relations.TABLE_HEADERS).
    heading: str
    row: tuple[str, str, str, str]


TEXT_LOCATIONS = ("body", "heading", "list", "table", "note", "json")
PICTURE_LOCATIONS = ("picture", "image")


_EN_SYLLABLES = (
    "bri",
    "dle",
    "os",
    "ka",
    "var",
    "quel",
    "li",
    "mar",
    "zo",
    "rv",
    "eth",
    "ul",
    "fen",
    "dra",
    "mo",
    "tis",
    "gar",
    "bel",
    "nu",
    "wyn",
    "thal",
    "ro",
    "sk",
    "ib",
)
_RU_SYLLABLES = (
    "ве",
    "ли",
    "мо",
    "зар",
    "ку",
    "то",
    "шка",
    "ре",
    "бо",
    "ни",
    "гра",
    "ду",
    "са",
    "ле",
    "фо",
    "ми",
    "ро",
    "ча",
    "пе",
    "тру",
)
_RU_FIRST_ENDINGS = ("ира", "ина", "ана", "ела", "ора", "ета")
_RU_SURNAME_ENDINGS = ("ова", "ева", "ина")
_RU_PLACE_ENDINGS = ("ино", "ово", "ево")
_ZH_SURNAMES = "岑邝晏濮檀蒯郦宓滕仇"
_ZH_GIVEN = "翎嵘璟澈珩漪桐岚骁淇芮砚翊筠栩琛"
_ZH_PLACE = "澜岫霁溪榆苇樟渚柘蔺沅崟湄峪"
_ZH_PLACE_ENDINGS = "镇堡湾"


class Names:
    """Invented names, never the same twice in one corpus."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)
        self._used: set[str] = set()
        # Every answer in a pool drawn without replacement: no number repeats anywhere. Only
        # numbers a Russian noun follows in the genitive plural ("5 компасов", never "1 ...").
        pool = [
            n
            for n in range(1000, 10000)
            if n % 10 in (0, 5, 6, 7, 8, 9) or n % 100 in (11, 12, 13, 14)
        ]
        self._numbers = iter(self._rng.sample(pool, len(pool)))

    def number(self) -> str:
        return str(next(self._numbers))

    def _unique(self, make: object) -> str:
        assert callable(make)
        for _ in range(1000):
            value = str(make())
            if value not in self._used:
                self._used.add(value)
                return value
        raise RuntimeError("ran out of invented names")

    def _latin(self, parts: int) -> str:
        return "".join(self._rng.choice(_EN_SYLLABLES) for _ in range(parts)).capitalize()

    def _cyrillic(self, parts: int) -> str:
        return "".join(self._rng.choice(_RU_SYLLABLES) for _ in range(parts)).capitalize()

    def person(self, language: str) -> dict[str, str]:
        """The slots a relation names a person by: ``name`` (en, zh) or ``nom``/``gen``/``dat``
        (ru: a feminine first name and surname in three cases)."""
        rng = self._rng
        if language == "en":
            return {"name": self._unique(lambda: f"{self._latin(2)} {self._latin(3)}")}
        if language == "zh":
            return {
                "name": self._unique(
                    lambda: rng.choice(_ZH_SURNAMES) + "".join(rng.sample(_ZH_GIVEN, 2))
                )
            }
        first = self._unique(lambda: self._cyrillic(2) + rng.choice(_RU_FIRST_ENDINGS))
        surname = self._cyrillic(2) + rng.choice(_RU_SURNAME_ENDINGS)
        stem, stem_surname = first[:-1], surname[:-1]
        return {
            "nom": f"{first} {surname}",
            "gen": f"{stem}ы {stem_surname}ой",
            "dat": f"{stem}е {stem_surname}ой",
        }

    def place(self, language: str) -> str:
        rng = self._rng
        if language == "en":
            return self._unique(lambda: self._latin(3))
        if language == "zh":
            return self._unique(
                lambda: "".join(rng.sample(_ZH_PLACE, 2)) + rng.choice(_ZH_PLACE_ENDINGS)
            )
        return self._unique(lambda: self._cyrillic(2) + rng.choice(_RU_PLACE_ENDINGS))

    def fact(self, fact_id: str, language: str, location: str) -> Fact:
        relations = RELATIONS[language]
        relation = relations[self._rng.randrange(len(relations))]
        slots = {**self.person(language), "place": self.place(language), "value": self.number()}
        person = slots.get("name") or slots["nom"]
        return Fact(
            fact_id=fact_id,
            language=language,
            location=location,
            statement=relation.statement.format(**slots),
            question=relation.question.format(**slots),
            answer=slots["value"],
            heading=relation.heading.format(**slots),
            row=(person, slots["place"], relation.subject, slots["value"]),
        )

    def filler_row(self, language: str) -> tuple[str, str, str, str]:
        """A table row like a fact's, with a number no fact has (never asked about)."""
        relation = self._rng.choice(RELATIONS[language])
        person = self.person(language)
        return (
            person.get("name") or person["nom"],
            self.place(language),
            relation.subject,
            self.number(),
        )


_FILLER = {
    "en": (
        ("The inspector", "The night crew", "Our surveyor", "The harbour office", "A volunteer"),
        ("checks", "records", "cleans", "repairs", "measures", "paints"),
        (
            "the eastern sluice gate",
            "every drainage pipe",
            "the pump bearings",
            "the reservoir gauges",
            "the wooden footbridge",
            "the flood barrier",
        ),
        (
            "before the spring tide.",
            "after each heavy storm.",
            "twice a month.",
            "when the river runs low.",
            "at the start of the season.",
            "with great care.",
        ),
    ),
    "ru": (
        ("Инспектор", "Ночная смена", "Наш геодезист", "Портовая служба", "Доброволец"),
        ("проверяет", "записывает", "очищает", "ремонтирует", "измеряет", "красит"),
        (
            "восточный шлюз",
            "каждую дренажную трубу",
            "подшипники насоса",
            "датчики водохранилища",
            "деревянный мостик",
            "защитную дамбу",
        ),
        (
            "перед весенним приливом.",
            "после каждого сильного шторма.",
            "дважды в месяц.",
            "когда река мелеет.",
            "в начале сезона.",
            "очень внимательно.",
        ),
    ),
    "zh": (
        ("检查员", "夜班工人", "我们的测量员", "港务办公室", "一位志愿者"),
        ("检查了", "记录了", "清理了", "修理了", "测量了", "粉刷了"),
        ("东边的水闸", "每一根排水管", "水泵的轴承", "水库的水位计", "木制的小桥", "防洪堤"),
        (
            "在春潮之前。",
            "在每次暴风雨之后。",
            "每月两次。",
            "在河水变浅的时候。",
            "在季节开始时。",
            "非常仔细。",
        ),
    ),
}
_FILLER_HEADINGS = {
    "en": (
        "Maintenance log",
        "Field observations",
        "Weekly summary",
        "Site conditions",
        "Equipment status",
        "Crew schedule",
    ),
    "ru": (
        "Журнал обслуживания",
        "Полевые наблюдения",
        "Недельная сводка",
        "Состояние объекта",
        "Состояние оборудования",
        "График смены",
    ),
    "zh": ("维护日志", "现场观察", "每周总结", "场地状况", "设备状态", "班组安排"),
}


class Filler:
    """Ordinary prose about waterworks maintenance, seeded."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)

    def sentence(self, language: str) -> str:
        who, verb, what, when = (self._rng.choice(words) for words in _FILLER[language])
        if language == "zh":
            return f"{who}{when[:-1]}{verb}{what}。"
        return f"{who} {verb} {what} {when}"

    def paragraph(self, language: str, sentences: int = 5) -> str:
        joiner = "" if language == "zh" else " "
        return joiner.join(self.sentence(language) for _ in range(sentences))

    def heading(self, language: str) -> str:
        return self._rng.choice(_FILLER_HEADINGS[language])

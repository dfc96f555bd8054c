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
    # The fact as a short heading and as a table row (under TABLE_HEADERS of its language).
    heading: str
    row: tuple[str, str, str, str]


TEXT_LOCATIONS = ("body", "heading", "list", "table", "note", "json")
PICTURE_LOCATIONS = ("picture", "image")


@dataclass(frozen=True)
class _Relation:
    statement: str
    question: str
    heading: str
    subject: str


_EN = (
    _Relation(
        "{name} keeps exactly {value} brass compasses in the storehouse at {place}.",
        "How many navigation instruments made of brass does {name} hold in the {place} depot?",
        "{name}: {value} brass compasses at {place}",
        "brass compasses in store",
    ),
    _Relation(
        "The orchard of {name} near {place} produced {value} crates of blue quinces last autumn.",
        "What was last year's autumn harvest of blue quinces, in crates, picked by {name} close "
        "to {place}?",
        "{name}'s {value} crates of blue quinces from {place}",
        "crates of blue quinces",
    ),
    _Relation(
        "{name} walked {value} kilometres along the old canal from {place} to the sea.",
        "What distance in km did {name} cover on foot beside the ancient waterway starting in "
        "{place}?",
        "{value} kilometres on foot: {name} from {place}",
        "kilometres walked by the canal",
    ),
    _Relation(
        "In {place}, the choir led by {name} has {value} registered singers.",
        "How many vocalists are enrolled in the chorus that {name} conducts in {place}?",
        "The {place} choir of {name}: {value} singers",
        "registered choir singers",
    ),
    _Relation(
        "{name} paid {value} silver coins for the clock tower of {place}.",
        "What price in silver money did {name} give to buy the clocktower in {place}?",
        "{value} silver coins from {name} for the {place} clock tower",
        "silver coins paid for the clock tower",
    ),
    _Relation(
        "The ferry captained by {name} carries {value} passengers a day out of {place}.",
        "Daily, how many travellers board the boat that {name} commands when leaving {place}?",
        "{name}'s ferry out of {place}: {value} passengers a day",
        "ferry passengers per day",
    ),
    _Relation(
        "{name} repaired {value} wooden rowing boats at the boatyard in {place}.",
        "At the {place} shipyard, how many timber rowboats were fixed by {name}?",
        "{name} repaired {value} rowing boats in {place}",
        "rowing boats repaired",
    ),
    _Relation(
        "The library that {name} founded in {place} lends out {value} atlases every year.",
        "Each year, how many books of maps are borrowed from the library {name} set up in {place}?",
        "{name}'s library in {place}: {value} atlases a year",
        "atlases lent per year",
    ),
    _Relation(
        "{name} planted {value} olive trees on the terraces above {place}.",
        "What number of olive saplings did {name} put in on the hillside terraces over {place}?",
        "{value} olive trees planted by {name} above {place}",
        "olive trees planted",
    ),
    _Relation(
        "The bakery run by {name} in {place} sells {value} rye loaves each week.",
        "How many loaves of rye bread does the bakehouse of {name} in {place} sell weekly?",
        "{name}'s bakery in {place}: {value} rye loaves a week",
        "rye loaves sold weekly",
    ),
    _Relation(
        "{name} counted {value} storks nesting on the rooftops of {place}.",
        "During the bird survey, what was the tally of stork nests on {place} roofs by {name}?",
        "{value} storks on the roofs of {place}, counted by {name}",
        "nesting storks counted",
    ),
    _Relation(
        "The mine managed by {name} near {place} yields {value} tonnes of copper ore a year.",
        "What annual tonnage of copper ore comes out of the pit that {name} runs close to {place}?",
        "{name}'s mine near {place}: {value} tonnes of copper ore",
        "copper ore, tonnes per year",
    ),
)

_RU = (
    _Relation(
        "{nom} хранит ровно {value} латунных компасов на складе в посёлке {place}.",
        "Сколько компасов из латуни лежит у {gen} на складе посёлка {place}?",
        "{nom}: {value} латунных компасов, посёлок {place}",
        "латунные компасы на складе",
    ),
    _Relation(
        "Сад {gen} возле деревни {place} дал {value} ящиков синей айвы прошлой осенью.",
        "Какой урожай синей айвы в ящиках собрала {nom} у деревни {place} осенью прошлого года?",
        "{value} ящиков синей айвы из сада {gen} ({place})",
        "ящики синей айвы",
    ),
    _Relation(
        "{nom} прошла {value} километров вдоль старого канала от посёлка {place} до моря.",
        "Какой путь пешком по берегу древнего канала от {place} до моря проделала {nom}?",
        "{value} километров пешком: {nom} из посёлка {place}",
        "километры вдоль канала",
    ),
    _Relation(
        "В посёлке {place} хор под руководством {gen} насчитывает {value} певцов.",
        "Сколько исполнителей записано в хоре, которым руководит {nom} в посёлке {place}?",
        "Хор {gen} в посёлке {place}: {value} певцов",
        "певцы хора",
    ),
    _Relation(
        "{nom} заплатила {value} серебряных монет за часовую башню посёлка {place}.",
        "Во сколько серебряных монет обошлась {dat} башня с часами в посёлке {place}?",
        "{value} серебряных монет: {nom} и башня посёлка {place}",
        "серебряные монеты за башню",
    ),
    _Relation(
        "Паром, которым командует {nom}, ежедневно перевозит {value} пассажиров из посёлка "
        "{place}.",
        "Сколько путешественников в день везёт судно капитана {gen} из посёлка {place}?",
        "Паром {gen} из посёлка {place}: {value} пассажиров в день",
        "пассажиры парома в день",
    ),
    _Relation(
        "{nom} починила {value} деревянных вёсельных лодок на верфи в посёлке {place}.",
        "Сколько деревянных лодок с вёслами отремонтировала {nom} на судоверфи посёлка {place}?",
        "{nom}: {value} вёсельных лодок починено, посёлок {place}",
        "починенные вёсельные лодки",
    ),
    _Relation(
        "Библиотека, которую основала {nom} в посёлке {place}, ежегодно выдаёт {value} атласов.",
        "Сколько книг с картами в год берут читатели в библиотеке {gen} в посёлке {place}?",
        "Библиотека {gen} в посёлке {place}: {value} атласов в год",
        "атласы, выданные за год",
    ),
    _Relation(
        "{nom} посадила {value} оливковых деревьев на террасах над посёлком {place}.",
        "Сколько саженцев оливы высадила {nom} на горных террасах у посёлка {place}?",
        "{value} оливковых деревьев: {nom}, посёлок {place}",
        "посаженные оливковые деревья",
    ),
    _Relation(
        "Пекарня {gen} в посёлке {place} продаёт {value} ржаных буханок каждую неделю.",
        "Сколько буханок ржаного хлеба в неделю продаёт пекарня, которую держит {nom} в посёлке "
        "{place}?",
        "Пекарня {gen} ({place}): {value} ржаных буханок в неделю",
        "ржаные буханки за неделю",
    ),
    _Relation(
        "{nom} насчитала {value} аистов, гнездящихся на крышах посёлка {place}.",
        "Какое число гнёзд аистов на кровлях посёлка {place} учла {nom}?",
        "{value} аистов на крышах посёлка {place} по подсчёту {gen}",
        "гнездящиеся аисты",
    ),
    _Relation(
        "Рудник под управлением {gen} возле посёлка {place} даёт {value} тонн медной руды в год.",
        "Сколько тонн медной руды ежегодно добывает шахта, которой управляет {nom} у посёлка "
        "{place}?",
        "Рудник {gen} у посёлка {place}: {value} тонн медной руды",
        "медная руда, тонн в год",
    ),
)

_ZH = (
    _Relation(
        "{name}在{place}的仓库里存放了整整{value}个黄铜罗盘。",
        "{place}库房中{name}保管着多少只铜制指南针？",
        "{name}：{place}仓库的{value}个黄铜罗盘",
        "仓库里的黄铜罗盘",
    ),
    _Relation(
        "去年秋天，{name}在{place}附近的果园收获了{value}箱蓝色榅桲。",
        "{name}靠近{place}的果园上一年秋季摘了几箱蓝榅桲？",
        "{name}在{place}的果园：{value}箱蓝色榅桲",
        "蓝色榅桲（箱）",
    ),
    _Relation(
        "{name}沿着旧运河从{place}步行了{value}公里到达海边。",
        "{name}从{place}出发沿古老水道走到海边，一共走了多少千米？",
        "{name}从{place}步行{value}公里",
        "沿运河步行的公里数",
    ),
    _Relation(
        "在{place}，由{name}领导的合唱团有{value}名注册歌手。",
        "{name}在{place}带领的合唱队登记了多少位歌唱者？",
        "{place}合唱团（{name}）：{value}名歌手",
        "合唱团注册歌手",
    ),
    _Relation(
        "{name}为{place}的钟楼支付了{value}枚银币。",
        "{name}买下{place}那座钟塔花了多少银币？",
        "{name}为{place}钟楼付了{value}枚银币",
        "钟楼的银币价格",
    ),
    _Relation(
        "{name}担任船长的渡轮每天从{place}运送{value}名乘客。",
        "{name}指挥的渡船每日从{place}载多少旅客出发？",
        "{name}的渡轮：每天从{place}运送{value}名乘客",
        "每日渡轮乘客",
    ),
    _Relation(
        "{name}在{place}的船厂修好了{value}条木制划艇。",
        "{place}造船厂里，{name}一共修理了多少艘木头小船？",
        "{name}在{place}修好{value}条划艇",
        "修好的木制划艇",
    ),
    _Relation(
        "{name}在{place}创办的图书馆每年借出{value}本地图集。",
        "{name}于{place}建立的图书馆一年出借多少册地图册？",
        "{name}的{place}图书馆：每年{value}本地图集",
        "每年借出的地图集",
    ),
    _Relation(
        "{name}在{place}上方的梯田里种下了{value}棵橄榄树。",
        "{name}在{place}山坡梯田上栽了多少株橄榄树苗？",
        "{name}在{place}种了{value}棵橄榄树",
        "种下的橄榄树",
    ),
    _Relation(
        "{name}在{place}经营的面包店每周卖出{value}个黑麦面包。",
        "{name}开在{place}的烘焙坊一星期售出几个黑麦面包？",
        "{name}的{place}面包店：每周{value}个黑麦面包",
        "每周卖出的黑麦面包",
    ),
    _Relation(
        "{name}在{place}的屋顶上数到了{value}只筑巢的白鹳。",
        "{name}统计{place}房顶上有多少只白鹳在做窝？",
        "{place}屋顶上的{value}只白鹳（{name}统计）",
        "筑巢的白鹳",
    ),
    _Relation(
        "{name}管理的{place}附近的矿井每年产出{value}吨铜矿石。",
        "{name}负责的靠近{place}的矿山一年开采多少吨铜矿？",
        "{name}的矿井（{place}附近）：每年{value}吨铜矿石",
        "每年铜矿石吨数",
    ),
)

RELATIONS = {"en": _EN, "ru": _RU, "zh": _ZH}
TABLE_HEADERS = {
    "en": ("Person", "Place", "Subject", "Figure"),
    "ru": ("Лицо", "Место", "Предмет", "Число"),
    "zh": ("人物", "地点", "事项", "数量"),
}
NOTE_LABEL = {"en": "Note", "ru": "Примечание", "zh": "注"}

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
        # Every answer in a pool drawn without replacement: no number repeats anywhere.
        self._numbers = iter(self._rng.sample(range(1000, 10000), 9000))

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

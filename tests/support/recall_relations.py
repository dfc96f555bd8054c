# ruff: noqa: RUF001 (Russian and Chinese text)
"""What the recall corpus's facts say, per language: twelve relations, each a statement, a
question in other words, a short heading form and the subject a table row names it by; the
slots are ``{name}`` (``{nom}``/``{gen}``/``{dat}``: a Russian name in three cases),
``{place}`` and ``{value}`` (the answer)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Relation:
    statement: str
    question: str
    heading: str
    subject: str


_EN = (
    Relation(
        "{name} keeps exactly {value} brass compasses in the storehouse at {place}.",
        "How many navigation instruments made of brass does {name} hold in the {place} depot?",
        "{name}: {value} brass compasses at {place}",
        "brass compasses in store",
    ),
    Relation(
        "The orchard of {name} near {place} produced {value} crates of blue quinces last autumn.",
        "What was last year's autumn harvest of blue quinces, in crates, picked by {name} close "
        "to {place}?",
        "{name}'s {value} crates of blue quinces from {place}",
        "crates of blue quinces",
    ),
    Relation(
        "{name} walked {value} kilometres along the old canal from {place} to the sea.",
        "What distance in km did {name} cover on foot beside the ancient waterway starting in "
        "{place}?",
        "{value} kilometres on foot: {name} from {place}",
        "kilometres walked by the canal",
    ),
    Relation(
        "In {place}, the choir led by {name} has {value} registered singers.",
        "How many vocalists are enrolled in the chorus that {name} conducts in {place}?",
        "The {place} choir of {name}: {value} singers",
        "registered choir singers",
    ),
    Relation(
        "{name} paid {value} silver coins for the clock tower of {place}.",
        "What price in silver money did {name} give to buy the clocktower in {place}?",
        "{value} silver coins from {name} for the {place} clock tower",
        "silver coins paid for the clock tower",
    ),
    Relation(
        "The ferry captained by {name} carries {value} passengers a day out of {place}.",
        "Daily, how many travellers board the boat that {name} commands when leaving {place}?",
        "{name}'s ferry out of {place}: {value} passengers a day",
        "ferry passengers per day",
    ),
    Relation(
        "{name} repaired {value} wooden rowing boats at the boatyard in {place}.",
        "At the {place} shipyard, how many timber rowboats were fixed by {name}?",
        "{name} repaired {value} rowing boats in {place}",
        "rowing boats repaired",
    ),
    Relation(
        "The library that {name} founded in {place} lends out {value} atlases every year.",
        "Each year, how many books of maps are borrowed from the library {name} set up in {place}?",
        "{name}'s library in {place}: {value} atlases a year",
        "atlases lent per year",
    ),
    Relation(
        "{name} planted {value} olive trees on the terraces above {place}.",
        "What number of olive saplings did {name} put in on the hillside terraces over {place}?",
        "{value} olive trees planted by {name} above {place}",
        "olive trees planted",
    ),
    Relation(
        "The bakery run by {name} in {place} sells {value} rye loaves each week.",
        "How many loaves of rye bread does the bakehouse of {name} in {place} sell weekly?",
        "{name}'s bakery in {place}: {value} rye loaves a week",
        "rye loaves sold weekly",
    ),
    Relation(
        "{name} counted {value} storks nesting on the rooftops of {place}.",
        "During the bird survey, what was the tally of stork nests on {place} roofs by {name}?",
        "{value} storks on the roofs of {place}, counted by {name}",
        "nesting storks counted",
    ),
    Relation(
        "The mine managed by {name} near {place} yields {value} tonnes of copper ore a year.",
        "What annual tonnage of copper ore comes out of the pit that {name} runs close to {place}?",
        "{name}'s mine near {place}: {value} tonnes of copper ore",
        "copper ore, tonnes per year",
    ),
)

_RU = (
    Relation(
        "{nom} хранит ровно {value} латунных компасов на складе в посёлке {place}.",
        "Сколько компасов из латуни лежит у {gen} на складе посёлка {place}?",
        "{nom}: {value} латунных компасов, посёлок {place}",
        "латунные компасы на складе",
    ),
    Relation(
        "Сад {gen} возле деревни {place} дал {value} ящиков синей айвы прошлой осенью.",
        "Какой урожай синей айвы в ящиках собрала {nom} у деревни {place} осенью прошлого года?",
        "{value} ящиков синей айвы из сада {gen} ({place})",
        "ящики синей айвы",
    ),
    Relation(
        "{nom} прошла {value} километров вдоль старого канала от посёлка {place} до моря.",
        "Какой путь пешком по берегу древнего канала от {place} до моря проделала {nom}?",
        "{value} километров пешком: {nom} из посёлка {place}",
        "километры вдоль канала",
    ),
    Relation(
        "В посёлке {place} хор под руководством {gen} насчитывает {value} певцов.",
        "Сколько исполнителей записано в хоре, которым руководит {nom} в посёлке {place}?",
        "Хор {gen} в посёлке {place}: {value} певцов",
        "певцы хора",
    ),
    Relation(
        "{nom} заплатила {value} серебряных монет за часовую башню посёлка {place}.",
        "Во сколько серебряных монет обошлась {dat} башня с часами в посёлке {place}?",
        "{value} серебряных монет: {nom} и башня посёлка {place}",
        "серебряные монеты за башню",
    ),
    Relation(
        "Паром, которым командует {nom}, ежедневно перевозит {value} пассажиров из посёлка "
        "{place}.",
        "Сколько путешественников в день везёт судно капитана {gen} из посёлка {place}?",
        "Паром {gen} из посёлка {place}: {value} пассажиров в день",
        "пассажиры парома в день",
    ),
    Relation(
        "{nom} починила {value} деревянных вёсельных лодок на верфи в посёлке {place}.",
        "Сколько деревянных лодок с вёслами отремонтировала {nom} на судоверфи посёлка {place}?",
        "{nom}: {value} вёсельных лодок починено, посёлок {place}",
        "починенные вёсельные лодки",
    ),
    Relation(
        "Библиотека, которую основала {nom} в посёлке {place}, ежегодно выдаёт {value} атласов.",
        "Сколько книг с картами в год берут читатели в библиотеке {gen} в посёлке {place}?",
        "Библиотека {gen} в посёлке {place}: {value} атласов в год",
        "атласы, выданные за год",
    ),
    Relation(
        "{nom} посадила {value} оливковых деревьев на террасах над посёлком {place}.",
        "Сколько саженцев оливы высадила {nom} на горных террасах у посёлка {place}?",
        "{value} оливковых деревьев: {nom}, посёлок {place}",
        "посаженные оливковые деревья",
    ),
    Relation(
        "Пекарня {gen} в посёлке {place} продаёт {value} ржаных буханок каждую неделю.",
        "Сколько буханок ржаного хлеба в неделю продаёт пекарня, которую держит {nom} в посёлке "
        "{place}?",
        "Пекарня {gen} ({place}): {value} ржаных буханок в неделю",
        "ржаные буханки за неделю",
    ),
    Relation(
        "{nom} насчитала {value} аистов, гнездящихся на крышах посёлка {place}.",
        "Какое число гнёзд аистов на кровлях посёлка {place} учла {nom}?",
        "{value} аистов на крышах посёлка {place} по подсчёту {gen}",
        "гнездящиеся аисты",
    ),
    Relation(
        "Рудник под управлением {gen} возле посёлка {place} даёт {value} тонн медной руды в год.",
        "Сколько тонн медной руды ежегодно добывает шахта, которой управляет {nom} у посёлка "
        "{place}?",
        "Рудник {gen} у посёлка {place}: {value} тонн медной руды",
        "медная руда, тонн в год",
    ),
)

_ZH = (
    Relation(
        "{name}在{place}的仓库里存放了整整{value}个黄铜罗盘。",
        "{place}库房中{name}保管着多少只铜制指南针？",
        "{name}：{place}仓库的{value}个黄铜罗盘",
        "仓库里的黄铜罗盘",
    ),
    Relation(
        "去年秋天，{name}在{place}附近的果园收获了{value}箱蓝色榅桲。",
        "{name}靠近{place}的果园上一年秋季摘了几箱蓝榅桲？",
        "{name}在{place}的果园：{value}箱蓝色榅桲",
        "蓝色榅桲（箱）",
    ),
    Relation(
        "{name}沿着旧运河从{place}步行了{value}公里到达海边。",
        "{name}从{place}出发沿古老水道走到海边，一共走了多少千米？",
        "{name}从{place}步行{value}公里",
        "沿运河步行的公里数",
    ),
    Relation(
        "在{place}，由{name}领导的合唱团有{value}名注册歌手。",
        "{name}在{place}带领的合唱队登记了多少位歌唱者？",
        "{place}合唱团（{name}）：{value}名歌手",
        "合唱团注册歌手",
    ),
    Relation(
        "{name}为{place}的钟楼支付了{value}枚银币。",
        "{name}买下{place}那座钟塔花了多少银币？",
        "{name}为{place}钟楼付了{value}枚银币",
        "钟楼的银币价格",
    ),
    Relation(
        "{name}担任船长的渡轮每天从{place}运送{value}名乘客。",
        "{name}指挥的渡船每日从{place}载多少旅客出发？",
        "{name}的渡轮：每天从{place}运送{value}名乘客",
        "每日渡轮乘客",
    ),
    Relation(
        "{name}在{place}的船厂修好了{value}条木制划艇。",
        "{place}造船厂里，{name}一共修理了多少艘木头小船？",
        "{name}在{place}修好{value}条划艇",
        "修好的木制划艇",
    ),
    Relation(
        "{name}在{place}创办的图书馆每年借出{value}本地图集。",
        "{name}于{place}建立的图书馆一年出借多少册地图册？",
        "{name}的{place}图书馆：每年{value}本地图集",
        "每年借出的地图集",
    ),
    Relation(
        "{name}在{place}上方的梯田里种下了{value}棵橄榄树。",
        "{name}在{place}山坡梯田上栽了多少株橄榄树苗？",
        "{name}在{place}种了{value}棵橄榄树",
        "种下的橄榄树",
    ),
    Relation(
        "{name}在{place}经营的面包店每周卖出{value}个黑麦面包。",
        "{name}开在{place}的烘焙坊一星期售出几个黑麦面包？",
        "{name}的{place}面包店：每周{value}个黑麦面包",
        "每周卖出的黑麦面包",
    ),
    Relation(
        "{name}在{place}的屋顶上数到了{value}只筑巢的白鹳。",
        "{name}统计{place}房顶上有多少只白鹳在做窝？",
        "{place}屋顶上的{value}只白鹳（{name}统计）",
        "筑巢的白鹳",
    ),
    Relation(
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

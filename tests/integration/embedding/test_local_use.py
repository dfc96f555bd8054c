# Russian and Chinese text on purpose: its letters and punctuation only look like Latin ones.
# ruff: noqa: RUF001
"""The bundled multilingual model (Universal Sentence Encoder multilingual v3, int8 ONNX)
running for real on onnxruntime."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import psutil
import pytest

from core import local_models
from core.ssrf.url_policy import UrlPolicy
from workers.embedding.base import EmbeddingError
from workers.embedding.factory import build_embedder, shared_local_embedder
from workers.embedding.local_onnx import LocalOnnxEmbedder
from workers.embedding.local_use import RUN_CHARS, LocalUseEmbedder

# One handbook in three languages: each question's passage must beat the other seven (and
# the two other languages' versions of them).
PASSAGES = {
    "en": [
        "Leave. Every employee is entitled to 28 calendar days of paid annual leave, requested "
        "from the manager at least two weeks in advance through the HR portal.",
        "Business travel. Travel and accommodation costs are reimbursed against an expense "
        "report with receipts and boarding passes attached.",
        "Remote work. An employee may work from home up to three days a week with the "
        "manager's approval, on a laptop connected to the corporate VPN.",
        "Sick leave. An employee who falls ill tells the manager on the first day and brings "
        "a medical certificate after recovering.",
        "Office badge. Security issues the electronic badge on the first working day; a lost "
        "badge must be blocked at once by calling the guards.",
        "Training. The company pays for professional courses and conferences up to 1,000 "
        "euros a year once the programme is agreed.",
        "Bonuses. The annual bonus is paid in March after the performance review.",
        "Parking. Underground parking spaces are allocated on request; electric car owners "
        "have priority.",
    ],
    "ru": [
        "Отпуск. Каждый сотрудник имеет право на ежегодный оплачиваемый отпуск 28 календарных "
        "дней; заявление подаётся руководителю не позднее чем за две недели.",
        "Командировки. Расходы на проезд и проживание возмещаются по авансовому отчёту, к "
        "которому прикладываются чеки и посадочные талоны.",
        "Удалённая работа. Сотрудник может работать из дома до трёх дней в неделю по "
        "согласованию с руководителем, подключив ноутбук к корпоративной VPN.",
        "Больничный. При болезни сотрудник сообщает руководителю в первый же день и "
        "предоставляет листок нетрудоспособности после выздоровления.",
        "Пропуск в офис. Электронный пропуск выдаёт служба безопасности в первый рабочий "
        "день; утерянный пропуск нужно сразу заблокировать по телефону охраны.",
        "Обучение. Компания оплачивает профессиональные курсы и конференции до 50 000 "
        "рублей в год после согласования программы.",
        "Премии. Годовая премия выплачивается в марте по итогам оценки результатов работы.",
        "Парковка. Места на подземной парковке распределяются по заявкам, приоритет у "
        "владельцев электромобилей.",
    ],
    "zh": [
        "休假：每位员工每年享有二十八天带薪年假，须至少提前两周通过人事系统向经理申请。",
        "出差：出差期间的交通和住宿费用凭报销单报销，须附上发票和登机牌。",
        "远程办公：经经理同意，员工每周最多可在家工作三天，笔记本电脑须连接公司VPN。",
        "病假：员工生病时须在第一天通知经理，并在康复后提交病假证明。",
        "门禁卡：电子门禁卡在入职第一天由安保部门发放，丢失时须立即致电保安将其冻结。",
        "培训：经批准后，公司每年为每位员工报销最多五千元的专业课程和会议费用。",
        "奖金：年度奖金在每年三月根据绩效评估结果发放。",
        "停车：地下停车位按申请分配，电动汽车车主优先。",
    ],
}
QUESTIONS = {
    "ru": [
        "Сколько дней отпуска положено в год?",
        "Как вернуть деньги за гостиницу в поездке?",
        "Можно ли работать из дома?",
        "Что делать, если я заболел?",
        "Я потерял пропуск, что делать?",
        "Оплатит ли компания мне курсы?",
        "Когда платят годовой бонус?",
        "Как получить место для машины?",
    ],
    "zh": [
        "每年有多少天年假？",
        "出差住酒店的钱怎么报销？",
        "可以在家办公吗？",
        "我生病了该怎么办？",
        "门禁卡丢了怎么办？",
        "公司会给我报销课程费用吗？",
        "年终奖什么时候发？",
        "怎样申请停车位？",
    ],
}


@pytest.fixture(scope="module")
def embedder() -> LocalUseEmbedder:
    # A small batch size so a handful of texts already spans several runs.
    return LocalUseEmbedder(batch_size=3, intra_op_num_threads=2)


def best_passage(embedder: LocalUseEmbedder, question: str, passages: list[str]) -> int:
    vectors = np.asarray(embedder.embed_documents(passages))
    return int(np.argmax(vectors @ np.asarray(embedder.embed_query(question))))


def test_identity(embedder: LocalUseEmbedder) -> None:
    assert embedder.model_key == "local/universal-sentence-encoder-multilingual-3/512"
    assert embedder.dimension == 512
    assert len(embedder.embed_query("hello")) == 512


@pytest.mark.parametrize("language", ["ru", "zh"])
def test_a_question_ranks_its_passage_first(embedder: LocalUseEmbedder, language: str) -> None:
    """Among its own language's passages, and among all 24 (where the same section in
    another language may come first), for all but one question of eight: "Я потерял
    пропуск" (badge) comes nearest to "Отпуск" (leave). all-MiniLM-L6-v2 finds at most five
    (test_english_minilm_does_not)."""
    everything = [text for texts in PASSAGES.values() for text in texts]
    own = [
        best_passage(embedder, question, PASSAGES[language]) == number
        for number, question in enumerate(QUESTIONS[language])
    ]
    anywhere = [
        best_passage(embedder, question, everything) % 8 == number
        for number, question in enumerate(QUESTIONS[language])
    ]
    assert sum(own) >= 7 and sum(anywhere) >= 7, (own, anywhere)


@pytest.mark.parametrize("language", ["ru", "zh"])
def test_a_question_finds_the_english_passage(embedder: LocalUseEmbedder, language: str) -> None:
    found = [
        best_passage(embedder, question, PASSAGES["en"]) == number
        for number, question in enumerate(QUESTIONS[language])
    ]
    assert sum(found) >= 7, found


def test_english_minilm_does_not(embedder: LocalUseEmbedder) -> None:
    """What the multilingual default is for: the English-only model misses these."""
    minilm = LocalOnnxEmbedder(intra_op_num_threads=2)
    passages = np.asarray(minilm.embed_documents(PASSAGES["ru"]))
    hits = [
        int(np.argmax(passages @ np.asarray(minilm.embed_query(question)))) == number
        for number, question in enumerate(QUESTIONS["ru"])
    ]
    assert sum(hits) <= 5, hits


def test_vectors_are_normalised(embedder: LocalUseEmbedder) -> None:
    for vector in embedder.embed_documents(["", "x", *PASSAGES["zh"], "word " * 3000]):
        assert np.linalg.norm(vector) == pytest.approx(1.0, abs=1e-5)


def test_batched_vectors_are_single_ones_in_input_order(embedder: LocalUseEmbedder) -> None:
    texts = [PASSAGES["en"][0], "x", PASSAGES["ru"][3], "короткий", PASSAGES["zh"][5]]
    batched = embedder.embed_documents(texts)
    assert len(batched) == len(texts)
    for text, vector in zip(texts, batched, strict=True):
        # Within a run the graph pads to the longest text, which moves a vector a little.
        assert float(np.dot(vector, embedder.embed_query(text))) > 0.99


def test_a_batch_of_long_texts_runs_in_bounded_memory(embedder: LocalUseEmbedder) -> None:
    """32 texts of 8,000 characters go through the model RUN_CHARS at a time and hand the
    memory back: in one run they peaked at about 1.6 GB."""
    fresh = LocalUseEmbedder()
    fresh.embed_documents(["a short text loads the model"])
    process = psutil.Process()
    loaded = process.memory_info().rss
    long_texts = [f"paragraph {n} " + "words of a long section heading " * 250 for n in range(32)]
    assert 32 * len(long_texts[0]) > 8 * RUN_CHARS, "a batch this long must be cut into runs"
    vectors = fresh.embed_documents(long_texts)
    assert process.memory_info().rss - loaded < 96 << 20
    for text, vector in zip(long_texts[::8], vectors[::8], strict=True):
        assert float(np.dot(vector, embedder.embed_query(text))) > 0.99


def test_empty_input_gives_no_vectors(embedder: LocalUseEmbedder) -> None:
    assert embedder.embed_documents([]) == []


def test_shared_between_threads(embedder: LocalUseEmbedder) -> None:
    texts = PASSAGES["ru"]
    expected = embedder.embed_documents(texts)
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda _: embedder.embed_documents(texts), range(4)))
    for result in results:
        np.testing.assert_allclose(result, expected, atol=1e-6)


def test_factory_shares_one_instance_of_each_local_model() -> None:
    use = build_embedder(
        "local", "Universal-Sentence-Encoder-Multilingual-3", "", "", 512, policy=UrlPolicy()
    )
    assert use is build_embedder("local", "use-multilingual-3", "", "", 0, policy=UrlPolicy())
    assert use is shared_local_embedder(local_models.USE_MULTILINGUAL)
    assert use.model_key == "local/universal-sentence-encoder-multilingual-3/512"
    minilm = build_embedder("local", "all-MiniLM-L6-v2", "", "", 0, policy=UrlPolicy())
    assert minilm is not use and minilm.dimension == 384


def test_factory_refuses_another_dimension() -> None:
    with pytest.raises(EmbeddingError, match="512-dimensional"):
        build_embedder(
            "local", "universal-sentence-encoder-multilingual-3", "", "", 384, policy=UrlPolicy()
        )

"""Language-aware term extraction for our BM25 (keyword_scoring), the same for rows and queries.

milvus-lite 3.2.2 knows only the `standard` (regex `\\w+`, lowercase) and `jieba` tokenizers and
silently ignores every filter except `stop`, so neither Russian stemming nor Chinese word
splitting can be configured server-side in a way that also works on a real Milvus server.
Instead every text (documents and queries alike) is reduced here to terms, which behaves the
same on milvus-lite and on Milvus:

- Latin words: Snowball English stemmer ("documents" -> "document");
- Cyrillic words: the Snowball Russian stem of the word's lemma when pymorphy3's dictionary
  knows the word, else of the word itself ("документов", "документы" -> "документ",
  ё-insensitive). Stems alone split a noun whose genitive plural drops a vowel from its other
  forms ("буханок" -> "буханок", "буханки" -> "буханк"); the lemma ("буханка") joins them.
  Unknown words (names, places) keep the stem, which already joins their case endings;
- Chinese (Han) runs: jieba's dictionary words in its search mode, which adds the dictionary
  words inside a longer word ("今天天气" -> "今天 天天 天气 今天天气"), so a query for a part of
  a compound finds it. Characters jieba's dictionary does not join (names, places: "岑桐岚")
  stay single characters and each run of them also yields its character bigrams ("岑桐 桐岚").
  jieba's HMM would guess such words instead, but its guess depends on the neighbouring text
  ("岑桐岚" in one sentence, "岑桐岚开" in another), so query and document disagreed; bigrams
  over every character were measured to add false matches across dictionary words, bigrams
  over the unjoined runs only find the names (bench (i));
- Kana/Hangul runs: overlapping character bigrams, a lone character stays a unigram (the
  dictionary-free CJK scheme of Lucene's CJKBigramFilter);
- anything else alphanumeric (digits, Greek, ...): lowercased as is.
"""

from __future__ import annotations

import logging
import re
import threading
from collections.abc import Iterator
from functools import lru_cache
from typing import Protocol

import jieba  # ships no type information
import pymorphy3  # ships no type information
import snowballstemmer  # ships no type information

# Unicode ranges treated as CJK: Hiragana/Katakana, CJK ext. A, unified ideographs, compatibility
# ideographs, Hangul syllables, and the supplementary ideograph planes.
_CJK = (
    "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
    "\U00020000-\U0002ebef\U00030000-\U0003134f"
)
_HAN = "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0002ebef\U00030000-\U0003134f"
_TERM = re.compile(rf"(?P<han>[{_HAN}]+)|(?P<cjk>[{_CJK}]+)|(?P<word>(?:(?![{_CJK}])[^\W_])+)")
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_LATIN = re.compile(r"[a-z\u00c0-\u024f]")


class _Stemmer(Protocol):
    def stemWord(self, word: str) -> str: ...


# Snowball stemmer objects keep per-call state, so each thread gets its own.
_stemmers = threading.local()


def _stemmer(language: str) -> _Stemmer:
    stemmer: _Stemmer | None = getattr(_stemmers, language, None)
    if stemmer is None:
        stemmer = snowballstemmer.stemmer(language)
        setattr(_stemmers, language, stemmer)
    return stemmer


@lru_cache(maxsize=1)
def _russian_morphology() -> pymorphy3.MorphAnalyzer:
    """Loaded on the first Russian word (0.1 s, its dictionaries are read-only, so threads
    share it)."""
    return pymorphy3.MorphAnalyzer(lang="ru")


@lru_cache(maxsize=200_000)
def _normalise_word(word: str) -> str:
    lowered = word.casefold()
    if _CYRILLIC.search(lowered):
        parse = _russian_morphology().parse(lowered)[0]
        base = parse.normal_form if parse.is_known else lowered
        return _stemmer("russian").stemWord(base)
    if _LATIN.search(lowered):
        return _stemmer("english").stemWord(lowered)
    return lowered


# jieba's loading message is noise in our logs; its dictionary loads on the first Chinese text.
jieba.setLogLevel(logging.WARNING)


def _han_terms(run: str) -> Iterator[str]:
    unjoined: list[str] = []  # the current run of characters no dictionary word holds
    for word in jieba.cut_for_search(run, HMM=False):
        if len(word) == 1:
            unjoined.append(word)
        else:
            yield from _unjoined_terms(unjoined)
            unjoined = []
        yield word
    yield from _unjoined_terms(unjoined)


def _unjoined_terms(characters: list[str]) -> Iterator[str]:
    for i in range(len(characters) - 1):
        yield characters[i] + characters[i + 1]


def _cjk_terms(run: str) -> Iterator[str]:
    if len(run) == 1:
        yield run
        return
    for i in range(len(run) - 1):
        yield run[i : i + 2]


def iter_terms(text: str) -> Iterator[str]:
    """The BM25 terms of `text`, in order."""
    for match in _TERM.finditer(text):
        han = match.group("han")
        cjk = match.group("cjk")
        if han is not None:
            yield from _han_terms(han)
        elif cjk is not None:
            yield from _cjk_terms(cjk)
        else:
            yield _normalise_word(match.group("word"))

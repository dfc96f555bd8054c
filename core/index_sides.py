"""Which sides of the index a knowledge base writes and searches (IndexingStrategy's
vector_enabled and keyword_enabled), and the index collection its rows live in.

The collection is named by the knowledge base's stored ``embedding_model_key``, set from its
configuration at creation (``index_key_of``) and fixed once it holds documents:

* vector on (keyword on or off): the embedding model's key, one collection per vector space
  with a dense field and our BM25 sparse field. A dense-only knowledge base's rows carry no
  BM25 terms; its keyword side is never searched.
* keyword only: ``KEYWORD_ONLY_KEY``, one collection without a dense field shared by every
  keyword-only knowledge base (rows are scoped by knowledge base like everywhere). A
  separate collection, not the model's with placeholder vectors, because a FLOAT_VECTOR
  field needs a value on every row (a dimension's worth of floats stored for nothing, and
  a placeholder a dense search could return), and its dimension would need the model.
* neither: ``NO_INDEX_KEY``; chunks are stored and listed but nothing is indexed.

Every caller that writes, deletes or searches rows already goes by that key, so the three
kinds need no branch outside the index and the indexer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core.effective_config import EffectiveConfig, embedding_model_of, resolve

# No model key has this shape (theirs are provider/model/dimension).
KEYWORD_ONLY_KEY = "keyword-only"
NO_INDEX_KEY = ""


@dataclass(frozen=True)
class IndexSides:
    dense: bool
    keyword: bool

    @property
    def any(self) -> bool:
        return self.dense or self.keyword


def index_key_of(kb_config: Mapping[str, Any]) -> str:
    """The collection key a knowledge base with this stored configuration indexes into."""
    config = resolve(kb_config, None)
    if config.vector_enabled:
        return embedding_model_of(kb_config).key
    return KEYWORD_ONLY_KEY if config.keyword_enabled else NO_INDEX_KEY


def index_sides(index_key: str, config: EffectiveConfig) -> IndexSides:
    """What a knowledge base with ``index_key`` and this configuration indexes (the
    switches are the knowledge base's: an upload cannot override them).

    A knowledge base created before the switches were honoured may hold a model key while
    its configuration has vector off: its collection needs vectors, so it keeps embedding
    (as it did) unless both switches are off."""
    if index_key == NO_INDEX_KEY:
        return IndexSides(dense=False, keyword=False)
    if index_key == KEYWORD_ONLY_KEY:
        return IndexSides(dense=False, keyword=True)
    return IndexSides(dense=config.needs_embedding, keyword=config.keyword_enabled)


def is_keyword_only(index_key: str) -> bool:
    return index_key == KEYWORD_ONLY_KEY

"""The models the local provider ships: the names a configuration may give them and the
size of their vectors. Kept apart from the models' code so configuration checks need not
load onnxruntime."""

from __future__ import annotations

from dataclasses import dataclass


class UnknownLocalModel(ValueError):
    """A configuration names a local model the provider does not ship; ``str(exc)`` says
    which ones it ships."""


@dataclass(frozen=True)
class LocalModel:
    name: str
    dimension: int
    # Lower-case spellings a configuration may use, besides the name itself.
    aliases: frozenset[str] = frozenset()

    @property
    def key(self) -> str:
        return f"local/{self.name}/{self.dimension}"


MINILM = LocalModel("all-MiniLM-L6-v2", 384, frozenset({"sentence-transformers/all-minilm-l6-v2"}))
USE_MULTILINGUAL = LocalModel(
    "universal-sentence-encoder-multilingual-3", 512, frozenset({"use-multilingual-3"})
)
# What a new knowledge base gets: Russian and Chinese questions find their passages with it,
# English-only MiniLM ranked them 2nd-8th among 8 (bench/RESULTS.md, section (m)).
DEFAULT = USE_MULTILINGUAL
# What a stored local configuration without a model name means: before the multilingual
# model, MiniLM was the only local model and such knowledge bases hold its vectors.
UNNAMED = MINILM

_BY_NAME = {
    spelling: model
    for model in (MINILM, USE_MULTILINGUAL)
    for spelling in (model.name.lower(), *model.aliases)
}


def local_model(name: str) -> LocalModel:
    """The shipped model ``name`` names ("" = UNNAMED); UnknownLocalModel for any other name."""
    spelling = name.strip().lower()
    if not spelling:
        return UNNAMED
    model = _BY_NAME.get(spelling)
    if model is None:
        raise UnknownLocalModel(
            f"the local provider ships {MINILM.name} and {USE_MULTILINGUAL.name}, not {name!r}"
        )
    return model

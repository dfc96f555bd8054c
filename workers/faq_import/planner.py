"""What each row of an import does to the knowledge base's entries, decided before any is
written (so a batch's counts and writes are recorded together, and a retry repeats the
writes, not the decisions).

The catalogue is the entries as the import sees them, by normalised text (core.faq_text):
their content hashes, standard questions, similar questions. Rows are planned in file
order against it and each planned row updates it, so a duplicate inside the import is
judged exactly as one already in the knowledge base.

Append mode, the spec's four checks, after the content hash (same hash: skipped):
1. a standard question that is another entry's similar question: the row fails;
2. a similar question that is another entry's standard or similar question: dropped, the
   row partially fails;
3. a negative question that is a standard or similar question (of another entry, or of the
   row's own entry): dropped, the row partially fails;
4. a standard question that is already an entry's: the row merges into that entry (the
   union of similar questions, negative questions and answers; its strategy and tag, when
   it gives them).

Replace mode: the knowledge base's entries before the import are ``old``; only the
imported entries are checked against each other. An old entry with the same content hash
is kept as it is, one with the same standard question is rewritten in place with the row's
content (search never misses that question meanwhile); the runner deletes the other old
entries once every row is written."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from functools import cached_property

from core.faq_text import faq_content_hash, normalize_faq_text

SUCCEEDED, FAILED, PARTIAL, SKIPPED = "succeeded", "failed", "partial", "skipped"


@dataclass(frozen=True)
class EntryText:
    standard_question: str
    similar_questions: tuple[str, ...] = ()
    negative_questions: tuple[str, ...] = ()
    answers: tuple[str, ...] = ()
    # "all" or "random".
    answer_strategy: str = "all"
    tag_id: str = ""

    @cached_property  # frozen: computed once, asked by the dedup and the catalogue
    def content_hash(self) -> str:
        return faq_content_hash(
            self.standard_question, self.similar_questions, self.negative_questions, self.answers
        )


@dataclass(frozen=True)
class Decision:
    outcome: str
    reason: str = ""
    # The entry the row wrote, merged into or matched (an entry id, or the key of an entry
    # this import creates: "new:{row number}").
    key: str | None = None


@dataclass
class Catalogue:
    """The entries the import sees, by key; ``old`` (replace mode): keys of the entries
    the import has not claimed, which the runner deletes at the end."""

    entries: dict[str, EntryText] = field(default_factory=dict)
    old: set[str] = field(default_factory=set)
    by_hash: dict[str, str] = field(default_factory=dict)
    by_standard: dict[str, str] = field(default_factory=dict)
    by_similar: dict[str, str] = field(default_factory=dict)
    old_by_hash: dict[str, str] = field(default_factory=dict)
    old_by_standard: dict[str, str] = field(default_factory=dict)
    # Every standard and similar question of the old entries.
    old_by_question: dict[str, str] = field(default_factory=dict)

    def add(self, key: str, entry: EntryText, *, old: bool = False) -> None:
        if old:
            self.old.add(key)
            self.entries[key] = entry
            self.old_by_hash.setdefault(entry.content_hash, key)
            self.old_by_standard.setdefault(normalize_faq_text(entry.standard_question), key)
            for question in questions_of(entry):
                self.old_by_question.setdefault(question, key)
            return
        previous = self.entries.get(key)
        if previous is not None and key not in self.old:
            self._forget(key, previous)
        self.old.discard(key)
        self.entries[key] = entry
        self.by_hash[entry.content_hash] = key
        self.by_standard[normalize_faq_text(entry.standard_question)] = key
        for question in entry.similar_questions:
            self.by_similar.setdefault(normalize_faq_text(question), key)

    def old_holders(self, entries: list[EntryText]) -> set[str]:
        """The old entries (not yet claimed) that hold a standard or similar question of
        ``entries``."""
        keys = {self.old_by_question.get(q) for entry in entries for q in questions_of(entry)}
        return {key for key in keys if key is not None and key in self.old}

    def forget_old(self, keys: set[str]) -> None:
        """Old entries deleted before the end."""
        for key in keys:
            self.old.discard(key)
            self.entries.pop(key, None)

    def rename(self, key: str, entry_id: str) -> None:
        """A planned entry was created as ``entry_id``."""
        entry = self.entries[key]
        self._forget(key, entry)
        del self.entries[key]
        self.add(entry_id, entry)

    def _forget(self, key: str, entry: EntryText) -> None:
        """Drop what ``entry`` (as ``key`` holds it) put in the indexes."""
        _drop(self.by_hash, entry.content_hash, key)
        _drop(self.by_standard, normalize_faq_text(entry.standard_question), key)
        for question in entry.similar_questions:
            _drop(self.by_similar, normalize_faq_text(question), key)


def questions_of(entry: EntryText) -> set[str]:
    """Its standard and similar questions, normalised: what no two entries may share."""
    return {normalize_faq_text(q) for q in (entry.standard_question, *entry.similar_questions)}


def _drop(index: dict[str, str], text: str, key: str) -> None:
    if index.get(text) == key:
        del index[text]


def _no_objection(entry: EntryText) -> str:
    return ""


def plan_row(
    catalogue: Catalogue,
    row_number: int,
    entry: EntryText,
    check: Callable[[EntryText], str] = _no_objection,
) -> tuple[Decision, EntryText | None]:
    """The row's decision and the content its entry gets (None: nothing to write).
    ``check`` gives why the content to write is not a valid entry ("" if it is): a merge
    can take an entry past its limits, which fails the row and changes nothing."""
    digest = entry.content_hash
    if digest in catalogue.by_hash:
        return Decision(
            SKIPPED, "the same entry is already present", catalogue.by_hash[digest]
        ), None
    if digest in catalogue.old_by_hash and catalogue.old_by_hash[digest] in catalogue.old:
        key = catalogue.old_by_hash[digest]
        catalogue.add(key, catalogue.entries[key])
        return Decision(SKIPPED, "the same entry is already present", key), None
    standard = normalize_faq_text(entry.standard_question)
    owner = catalogue.by_similar.get(standard)
    target = catalogue.by_standard.get(standard)
    if owner is not None and owner != target:
        return Decision(
            FAILED,
            f"the standard question is a similar question of entry {_name(catalogue, owner)}",
        ), None
    if target is not None:
        merged = _merged(catalogue.entries[target], entry)
    else:
        target = _claimed_old(catalogue, standard) or f"new:{row_number}"
        merged = entry
    kept, dropped = _drop_conflicts(catalogue, target, merged)
    current = catalogue.entries.get(target) if target not in catalogue.old else None
    if current is not None and kept.content_hash == current.content_hash:
        # Merged, it adds nothing to the entry.
        return Decision(PARTIAL if dropped else SKIPPED, _reason(dropped), target), None
    objection = check(kept)
    if objection:
        return Decision(FAILED, objection), None
    catalogue.add(target, kept)
    outcome = PARTIAL if dropped else SUCCEEDED
    return Decision(outcome, _reason(dropped), target), kept


def without_own_negatives(entry: EntryText) -> EntryText:
    """The entry without the negative questions that are its own standard or similar
    questions (check 3 drops them; what is left is what must be valid)."""
    own = {normalize_faq_text(q) for q in (entry.standard_question, *entry.similar_questions)}
    negative = tuple(q for q in entry.negative_questions if normalize_faq_text(q) not in own)
    return replace(entry, negative_questions=negative)


def _claimed_old(catalogue: Catalogue, standard: str) -> str | None:
    key = catalogue.old_by_standard.get(standard)
    return key if key is not None and key in catalogue.old else None


def _merged(existing: EntryText, row: EntryText) -> EntryText:
    return EntryText(
        standard_question=existing.standard_question,
        similar_questions=_union(existing.similar_questions, row.similar_questions),
        negative_questions=_union(existing.negative_questions, row.negative_questions),
        answers=_union(existing.answers, row.answers),
        answer_strategy=row.answer_strategy or existing.answer_strategy,
        tag_id=row.tag_id or existing.tag_id,
    )


def _union(first: tuple[str, ...], second: tuple[str, ...]) -> tuple[str, ...]:
    seen = {normalize_faq_text(text) for text in first}
    added = []
    for text in second:
        norm = normalize_faq_text(text)
        if norm not in seen:
            seen.add(norm)
            added.append(text)
    return (*first, *added)


def _drop_conflicts(
    catalogue: Catalogue, key: str, entry: EntryText
) -> tuple[EntryText, list[str]]:
    """The entry without the similar and negative questions that conflict (checks 2, 3),
    and what was dropped, described."""
    own = {normalize_faq_text(entry.standard_question)}
    similar, dropped = [], []
    for question in entry.similar_questions:
        norm = normalize_faq_text(question)
        other = _other_owner(catalogue, key, norm)
        if other is not None:
            dropped.append(f"similar question {question!r} (entry {_name(catalogue, other)})")
        elif norm not in own:
            own.add(norm)
            similar.append(question)
    negative = []
    for question in entry.negative_questions:
        norm = normalize_faq_text(question)
        other = _other_owner(catalogue, key, norm)
        if norm in own:
            dropped.append(f"negative question {question!r} (a question of this entry)")
        elif other is not None:
            dropped.append(f"negative question {question!r} (entry {_name(catalogue, other)})")
        else:
            negative.append(question)
    return replace(
        entry, similar_questions=tuple(similar), negative_questions=tuple(negative)
    ), dropped


def _other_owner(catalogue: Catalogue, key: str, norm: str) -> str | None:
    for index in (catalogue.by_standard, catalogue.by_similar):
        owner = index.get(norm)
        if owner is not None and owner != key:
            return owner
    return None


def _name(catalogue: Catalogue, key: str) -> str:
    if key.startswith("new:"):
        return f"of row {key.removeprefix('new:')}"
    return key


def _reason(dropped: list[str]) -> str:
    if not dropped:
        return ""
    return "conflicting items dropped: " + "; ".join(dropped)

"""`SluiceClient`'s methods for FAQ entries (FAQService): create, get, list, update, delete,
enable and disable."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from sluice_client._calls import call, pages, required
from sluice_client._proto.sluice import v1


def faq_content(
    standard_question: str,
    answers: Sequence[str],
    *,
    similar_questions: Sequence[str] = (),
    negative_questions: Sequence[str] = (),
    random_answer: bool = False,
    tag_id: str = "",
) -> v1.FaqEntryContent:
    return v1.FaqEntryContent(
        standard_question=standard_question,
        similar_questions=list(similar_questions),
        negative_questions=list(negative_questions),
        answers=list(answers),
        answer_strategy=v1.AnswerStrategy.RANDOM if random_answer else v1.AnswerStrategy.ALL,
        tag_id=tag_id,
    )


class FaqEntryMethods:
    """Mixed into SluiceClient, which sets the stub."""

    _faq_entries: v1.FaqServiceStub

    def create_faq_entry(
        self, knowledge_base_id: str, content: v1.FaqEntryContent, *, disabled: bool = False
    ) -> v1.FaqEntry:
        request = v1.CreateFaqEntryRequest(
            knowledge_base_id=knowledge_base_id, content=content, disabled=disabled
        )
        return required(call(self._faq_entries.create_faq_entry, request).entry, "entry")

    def get_faq_entry(self, knowledge_base_id: str, entry_id: str) -> v1.FaqEntry:
        request = v1.GetFaqEntryRequest(knowledge_base_id=knowledge_base_id, id=entry_id)
        return required(call(self._faq_entries.get_faq_entry, request).entry, "entry")

    def list_faq_entries(
        self,
        knowledge_base_id: str,
        *,
        tag_id: str = "",
        enabled: bool | None = None,
        page_size: int = 100,
    ) -> Iterator[v1.FaqEntry]:
        """The entries in creation order, a page at a time; `enabled` None lists both."""
        flag = {True: v1.EnabledFilter.ENABLED, False: v1.EnabledFilter.DISABLED}
        chosen = flag[enabled] if enabled is not None else v1.EnabledFilter.UNSPECIFIED

        def fetch(token: str) -> tuple[list[v1.FaqEntry], str]:
            request = v1.ListFaqEntriesRequest(
                knowledge_base_id=knowledge_base_id,
                page_size=page_size,
                page_token=token,
                tag_id=tag_id,
                enabled=chosen,
            )
            response = self._faq_entries.list_faq_entries(request)
            return response.entries, response.next_page_token

        return pages(fetch)

    def update_faq_entry(
        self, knowledge_base_id: str, entry_id: str, content: v1.FaqEntryContent
    ) -> v1.FaqEntry:
        request = v1.UpdateFaqEntryRequest(
            knowledge_base_id=knowledge_base_id, id=entry_id, content=content
        )
        return required(call(self._faq_entries.update_faq_entry, request).entry, "entry")

    def delete_faq_entries(self, knowledge_base_id: str, entry_ids: Sequence[str]) -> int:
        request = v1.DeleteFaqEntriesRequest(
            knowledge_base_id=knowledge_base_id, ids=list(entry_ids)
        )
        return call(self._faq_entries.delete_faq_entries, request).deleted

    def set_faq_entries_enabled(
        self, knowledge_base_id: str, entry_ids: Sequence[str], enabled: bool
    ) -> int:
        request = v1.SetFaqEntriesEnabledRequest(
            knowledge_base_id=knowledge_base_id, ids=list(entry_ids), enabled=enabled
        )
        return call(self._faq_entries.set_faq_entries_enabled, request).updated

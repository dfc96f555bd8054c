"""`SluiceClient`'s methods for tags and for editing processed knowledge: a knowledge
base's tags (TagService), a knowledge's tags and metadata, a chunk's content and enabled
flag (KnowledgeService)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping

from sluice_client._calls import call, pages, required
from sluice_client._proto.sluice import v1


class EditingMethods:
    """Mixed into SluiceClient, which sets the two stubs."""

    _knowledges: v1.KnowledgeServiceStub
    _tags: v1.TagServiceStub

    # Tags of a knowledge base

    def create_tag(self, knowledge_base_id: str, name: str, *, color: str = "") -> v1.Tag:
        """A new tag; a name the knowledge base already has is `AlreadyExists`."""
        request = v1.CreateTagRequest(knowledge_base_id=knowledge_base_id, name=name, color=color)
        return required(call(self._tags.create_tag, request).tag, "tag")

    def list_tags(self, knowledge_base_id: str, *, page_size: int = 100) -> Iterator[v1.Tag]:
        """The knowledge base's tags by name, fetched a page at a time."""

        def fetch(token: str) -> tuple[list[v1.Tag], str]:
            request = v1.ListTagsRequest(
                knowledge_base_id=knowledge_base_id, page_size=page_size, page_token=token
            )
            response = self._tags.list_tags(request)
            return response.tags, response.next_page_token

        return pages(fetch)

    def rename_tag(self, tag_id: str, name: str) -> v1.Tag:
        request = v1.RenameTagRequest(tag_id=tag_id, name=name)
        return required(call(self._tags.rename_tag, request).tag, "tag")

    def delete_tag(self, tag_id: str) -> int:
        """Deletes the tag and its links; returns how many knowledges lost it."""
        return call(self._tags.delete_tag, v1.DeleteTagRequest(tag_id=tag_id)).unlinked

    # Editing a knowledge and its chunks

    def set_knowledge_tags(self, knowledge_id: str, tag_ids: Iterable[str]) -> v1.Knowledge:
        """Replaces the knowledge's tags (each a tag of its knowledge base)."""
        request = v1.SetKnowledgeTagsRequest(knowledge_id=knowledge_id, tag_ids=list(tag_ids))
        return required(call(self._knowledges.set_knowledge_tags, request).knowledge, "knowledge")

    def update_knowledge_metadata(
        self, knowledge_id: str, metadata: Mapping[str, str]
    ) -> v1.Knowledge:
        """Replaces the knowledge's metadata."""
        request = v1.UpdateKnowledgeMetadataRequest(
            knowledge_id=knowledge_id, metadata=dict(metadata)
        )
        response = call(self._knowledges.update_knowledge_metadata, request)
        return required(response.knowledge, "knowledge")

    def update_chunk(self, chunk_id: str, content: str) -> v1.Chunk:
        """A text chunk's new content, embedded and indexed before this returns."""
        request = v1.UpdateChunkRequest(chunk_id=chunk_id, content=content)
        return required(call(self._knowledges.update_chunk, request).chunk, "chunk")

    def set_chunk_enabled(self, chunk_id: str, enabled: bool) -> v1.Chunk:
        """Whether Search finds the chunk."""
        request = v1.SetChunkEnabledRequest(chunk_id=chunk_id, enabled=enabled)
        return required(call(self._knowledges.set_chunk_enabled, request).chunk, "chunk")

    def regenerate_summary(self, knowledge_id: str) -> v1.Knowledge:
        """Queues a refresh of a completed knowledge's summary; the knowledge with its
        summary pending (GetKnowledge shows it completed, or failed with summary_error)."""
        request = v1.RegenerateSummaryRequest(id=knowledge_id)
        response = call(self._knowledges.regenerate_summary, request)
        return required(response.knowledge, "knowledge")

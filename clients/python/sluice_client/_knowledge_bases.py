"""`SluiceClient`'s methods for knowledge bases (KnowledgeBaseService): create, read, list,
update, delete, and the profile task."""

from __future__ import annotations

from collections.abc import Iterator

from sluice_client._calls import call, pages, required
from sluice_client._proto.google.protobuf import FieldMask
from sluice_client._proto.sluice import v1


class KnowledgeBaseMethods:
    """Mixed into SluiceClient, which sets the stub."""

    _knowledge_bases: v1.KnowledgeBaseServiceStub

    def create_knowledge_base(
        self,
        name: str,
        *,
        description: str = "",
        config: v1.KnowledgeBaseConfig | None = None,
        kb_type: v1.KnowledgeBaseType = v1.KnowledgeBaseType.DOCUMENT,
    ) -> v1.KnowledgeBase:
        """Unset config blocks take the server's defaults; `kb_type` FAQ makes an FAQ
        knowledge base (entries, not documents)."""
        request = v1.CreateKnowledgeBaseRequest(
            name=name, description=description, config=config, type=kb_type
        )
        response = call(self._knowledge_bases.create_knowledge_base, request)
        return required(response.knowledge_base, "knowledge base")

    def get_knowledge_base(self, knowledge_base_id: str) -> v1.KnowledgeBase:
        request = v1.GetKnowledgeBaseRequest(id=knowledge_base_id)
        response = call(self._knowledge_bases.get_knowledge_base, request)
        return required(response.knowledge_base, "knowledge base")

    def list_knowledge_bases(self, page_size: int = 50) -> Iterator[v1.KnowledgeBase]:
        """Every knowledge base the caller can see, fetched a page at a time."""

        def fetch(token: str) -> tuple[list[v1.KnowledgeBase], str]:
            request = v1.ListKnowledgeBasesRequest(page_size=page_size, page_token=token)
            response = self._knowledge_bases.list_knowledge_bases(request)
            return response.knowledge_bases, response.next_page_token

        return pages(fetch)

    def update_knowledge_base(
        self,
        knowledge_base_id: str,
        *,
        name: str | None = None,
        description: str | None = None,
        config: v1.KnowledgeBaseConfig | None = None,
    ) -> v1.KnowledgeBase:
        """Changes only the fields given (a given `config` replaces the whole config)."""
        changes = {"name": name, "description": description, "config": config}
        paths = [path for path, value in changes.items() if value is not None]
        if not paths:
            raise ValueError("nothing to update: give name, description or config")
        request = v1.UpdateKnowledgeBaseRequest(
            id=knowledge_base_id,
            name=name or "",
            description=description or "",
            config=config,
            update_mask=FieldMask(paths=paths),
        )
        response = call(self._knowledge_bases.update_knowledge_base, request)
        return required(response.knowledge_base, "knowledge base")

    def delete_knowledge_base(self, knowledge_base_id: str) -> None:
        request = v1.DeleteKnowledgeBaseRequest(id=knowledge_base_id)
        call(self._knowledge_bases.delete_knowledge_base, request)

    def generate_knowledge_base_profile(self, knowledge_base_id: str) -> str:
        """Queues the knowledge base's profile (`KnowledgeBase.profile`), written by its
        summary model even if nothing changed; returns the task's job id."""
        request = v1.GenerateKnowledgeBaseProfileRequest(knowledge_base_id=knowledge_base_id)
        return call(self._knowledge_bases.generate_knowledge_base_profile, request).job_id

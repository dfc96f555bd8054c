"""What reading a document uses of its process's parts (the docreader stage and its helpers).

Each is a Protocol: the stage and the helpers reach only what they name (mypy holds them to
that), and the composition root's context, or any object holding those parts, is handed in.
"""

from __future__ import annotations

from typing import Protocol

from core.ssrf.url_policy import UrlPolicy
from storage.db.repositories.knowledges import KnowledgeRepository
from storage.files.backend_scoped import BackendScopedFileService
from storage.files.resource_catalog import ResourceCatalog
from workers.docreader_client import DocReaderClient
from workers.settings_groups import OutboundSettings


class OutboundRules(Protocol):
    """What an outbound request is held to: the SSRF policy (read when the request is made:
    the process's own ports are known only once bound) and the caps and timeouts."""

    @property
    def url_policy(self) -> UrlPolicy: ...
    @property
    def outbound(self) -> OutboundSettings: ...


class ImageParts(Protocol):
    """Storing a document's images (DocumentImages): where its knowledge base's files go,
    the catalog that records them, the rules remote images are fetched under."""

    @property
    def settings(self) -> OutboundRules: ...
    @property
    def catalog(self) -> ResourceCatalog: ...
    def files_for_knowledge_base(self, knowledge_base_id: str) -> BackendScopedFileService: ...


class ReadingParts(ImageParts, Protocol):
    """The docreader stage and a URL knowledge's fetch: the docreader client, the knowledge
    rows a download and a page title are recorded on, the files an earlier round's download
    is removed from."""

    @property
    def docreader(self) -> DocReaderClient: ...
    @property
    def knowledges(self) -> KnowledgeRepository: ...
    @property
    def files(self) -> BackendScopedFileService: ...

"""`SluiceClient`: a blocking, typed client for the sluice.v1 gRPC services.

Requests and results are the betterproto2 dataclasses of `sluice_client.v1`; every failed RPC
is raised as the `SluiceRpcError` subclass of its status code (see `sluice_client.errors`).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path
from types import TracebackType

import grpc

from sluice_client._calls import call as _call
from sluice_client._calls import pages as _pages
from sluice_client._calls import required as _required
from sluice_client._channel import TlsOptions, open_channel
from sluice_client._clone import CloneMethods
from sluice_client._edits import EditingMethods
from sluice_client._faq_entries import FaqEntryMethods
from sluice_client._faq_imports import FaqImportMethods
from sluice_client._grants import ResourceMethods
from sluice_client._graph import GraphMethods
from sluice_client._knowledge_bases import KnowledgeBaseMethods
from sluice_client._move import MoveMethods
from sluice_client._progress import ProgressMethods
from sluice_client._proto.sluice import v1
from sluice_client._upload import FileSource, file_frames, open_source, remaining_size
from sluice_client._wiki import WikiMethods

# Called directly rather than through the generated stub, whose generator hides the call:
# the client needs the call to give it a deadline and to cancel it when the caller stops.
_WATCH_SPANS_METHOD = "/sluice.v1.KnowledgeService/WatchSpans"
_READ_RESOURCE_METHOD = "/sluice.v1.ResourceService/ReadResource"


def _manual_status(publish: bool | None) -> v1.ManualStatus:
    if publish is None:
        return v1.ManualStatus.UNSPECIFIED
    return v1.ManualStatus.PUBLISH if publish else v1.ManualStatus.DRAFT


class SluiceClient(
    KnowledgeBaseMethods,
    ProgressMethods,
    MoveMethods,
    ResourceMethods,
    EditingMethods,
    GraphMethods,
    WikiMethods,
    FaqEntryMethods,
    FaqImportMethods,
    CloneMethods,
):
    """A connection to a Sluice API server; use it as a context manager to close it.

    `timeout` is the deadline in seconds of every call that returns one response (uploads
    included); `watch_spans` has none unless given one. `tls` (TlsOptions: a CA bundle,
    a client certificate and key for mutual TLS) connects with TLS; `ca_file`, `cert_file`
    and `key_file` are its shorthand. A `channel` passed in is used as is and left open by
    `close()`.
    """

    def __init__(
        self,
        target: str,
        *,
        api_key: str | None = None,
        timeout: float = 60.0,
        channel: grpc.Channel | None = None,
        tls: TlsOptions | None = None,
        ca_file: str | Path | None = None,
        cert_file: str | Path | None = None,
        key_file: str | Path | None = None,
    ) -> None:
        self.target = target
        self._owns_channel = channel is None
        if tls is None and (ca_file or cert_file or key_file):
            tls = TlsOptions(ca_file, cert_file, key_file)
        self._channel, self._base_channel = open_channel(
            target, api_key=api_key, timeout=timeout, channel=channel, tls=tls
        )
        self._knowledge_bases = v1.KnowledgeBaseServiceStub(self._channel)
        self._knowledges = v1.KnowledgeServiceStub(self._channel)
        self._search = v1.SearchServiceStub(self._channel)
        self._resources = v1.ResourceServiceStub(self._channel)
        self._tags = v1.TagServiceStub(self._channel)
        self._graph = v1.GraphServiceStub(self._channel)
        self._wiki = v1.WikiServiceStub(self._channel)
        self._faq_entries = v1.FaqServiceStub(self._channel)
        self._faq_imports = v1.FaqServiceStub(self._channel)
        self._watch_spans = self._channel.unary_stream(
            _WATCH_SPANS_METHOD,
            request_serializer=v1.WatchSpansRequest.SerializeToString,
            response_deserializer=v1.WatchSpansResponse.FromString,
        )
        self._read_resource = self._channel.unary_stream(
            _READ_RESOURCE_METHOD,
            request_serializer=v1.ReadResourceRequest.SerializeToString,
            response_deserializer=v1.ReadResourceResponse.FromString,
        )

    def close(self) -> None:
        if self._owns_channel:
            self._base_channel.close()

    def __enter__(self) -> SluiceClient:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    # Creating knowledge

    def upload_file(
        self,
        knowledge_base_id: str,
        path_or_file: FileSource,
        *,
        file_name: str | None = None,
        metadata: Mapping[str, str] | None = None,
        tag_ids: Iterable[str] = (),
        enable_multimodel: bool | None = None,
        process_config: v1.ProcessConfig | None = None,
        chunk_size: int = 1 << 20,
        md5: str | None = None,
    ) -> v1.Knowledge:
        """Streams a file (a path, or a binary stream the caller keeps ownership of) to the
        knowledge base: the header frame, then `chunk_size`-byte frames read as they are
        sent, so the file is never held in memory whole.

        `file_name` defaults to the path's or stream's base name. The header carries the
        size of a seekable source and `md5` (hex) if given: the server keeps nothing when
        the bytes it receives differ (`DataLoss`).
        """
        if chunk_size <= 0:
            raise ValueError("chunk_size must be positive")
        name, opened = open_source(path_or_file, file_name)
        header = v1.FileHeader(
            knowledge_base_id=knowledge_base_id,
            file_name=name,
            metadata=dict(metadata or {}),
            tag_ids=list(tag_ids),
            enable_multimodel=enable_multimodel,
            process_config=process_config,
        )
        with opened as stream:
            header.size = remaining_size(stream)
            header.md5 = md5 or ""
            frames = file_frames(header, stream, chunk_size)
            response = _call(self._knowledges.create_from_file, frames)
        return _required(response.knowledge, "knowledge")

    def create_from_url(
        self,
        knowledge_base_id: str,
        url: str,
        *,
        title: str = "",
        file_name: str = "",
        file_type: str = "",
        tag_ids: Iterable[str] = (),
        channel: str = "",
        enable_multimodel: bool | None = None,
        process_config: v1.ProcessConfig | None = None,
    ) -> v1.Knowledge:
        """A knowledge the server fetches from `url`: a file when the URL's extension (or the
        `file_name` / `file_type` given) is an importable type, else a web page whose main
        content is kept. The server refuses URLs its SSRF policy does not allow
        (`InvalidArgument`) and a URL the knowledge base already imports (`AlreadyExists`)."""
        request = v1.CreateFromUrlRequest(
            knowledge_base_id=knowledge_base_id,
            url=url,
            file_name=file_name,
            file_type=file_type,
            enable_multimodel=enable_multimodel,
            title=title,
            tag_ids=list(tag_ids),
            channel=channel,
            process_config=process_config,
        )
        response = _call(self._knowledges.create_from_url, request)
        return _required(response.knowledge, "knowledge")

    def create_manual(
        self,
        knowledge_base_id: str,
        title: str,
        content: str,
        *,
        publish: bool = True,
        tag_ids: Iterable[str] = (),
    ) -> v1.Knowledge:
        """A knowledge from Markdown text; `publish=False` saves it as an unprocessed draft."""
        request = v1.CreateManualRequest(
            knowledge_base_id=knowledge_base_id,
            title=title,
            content=content,
            status=_manual_status(publish),
            tag_ids=list(tag_ids),
        )
        response = _call(self._knowledges.create_manual, request)
        return _required(response.knowledge, "knowledge")

    def update_manual(
        self,
        knowledge_id: str,
        *,
        title: str | None = None,
        content: str | None = None,
        publish: bool | None = None,
    ) -> v1.Knowledge:
        """Fields left as None are sent empty (unspecified), which keeps their value."""
        request = v1.UpdateManualRequest(
            id=knowledge_id,
            title=title or "",
            content=content or "",
            status=_manual_status(publish),
        )
        response = _call(self._knowledges.update_manual, request)
        return _required(response.knowledge, "knowledge")

    # Reading and managing knowledge

    def get_knowledge(self, knowledge_id: str) -> v1.Knowledge:
        request = v1.GetKnowledgeRequest(id=knowledge_id)
        response = _call(self._knowledges.get_knowledge, request)
        return _required(response.knowledge, "knowledge")

    def list_knowledge(
        self,
        knowledge_base_id: str,
        *,
        statuses: Iterable[v1.ParseStatus] = (),
        keyword: str = "",
        page_size: int = 50,
    ) -> Iterator[v1.Knowledge]:
        """The knowledge base's knowledges (all but deleting ones unless `statuses` says)."""
        parse_statuses = list(statuses)

        def fetch(token: str) -> tuple[list[v1.Knowledge], str]:
            request = v1.ListKnowledgeRequest(
                knowledge_base_id=knowledge_base_id,
                page_size=page_size,
                page_token=token,
                parse_statuses=parse_statuses,
                keyword=keyword,
            )
            response = self._knowledges.list_knowledge(request)
            return response.knowledges, response.next_page_token

        return _pages(fetch)

    def list_chunks(self, knowledge_id: str, *, page_size: int = 100) -> Iterator[v1.Chunk]:
        def fetch(token: str) -> tuple[list[v1.Chunk], str]:
            request = v1.ListChunksRequest(
                knowledge_id=knowledge_id, page_size=page_size, page_token=token
            )
            response = self._knowledges.list_chunks(request)
            return response.chunks, response.next_page_token

        return _pages(fetch)

    def reparse(
        self, knowledge_id: str, *, process_config: v1.ProcessConfig | None = None
    ) -> v1.Knowledge:
        """Starts a new processing attempt; a `process_config` replaces the stored overrides."""
        request = v1.ReparseRequest(id=knowledge_id, process_config=process_config)
        response = _call(self._knowledges.reparse, request)
        return _required(response.knowledge, "knowledge")

    def cancel_parse(self, knowledge_id: str) -> v1.Knowledge:
        response = _call(self._knowledges.cancel_parse, v1.CancelParseRequest(id=knowledge_id))
        return _required(response.knowledge, "knowledge")

    def batch_reparse(
        self, knowledge_ids: Iterable[str] = (), *, knowledge_base_id: str = ""
    ) -> v1.BatchReparseResponse:
        """Reparses the given knowledges, or with no ids every knowledge of
        `knowledge_base_id`, in a background job; the answer names the job and how many
        knowledges it accepted."""
        request = v1.BatchReparseRequest(
            ids=list(knowledge_ids), knowledge_base_id=knowledge_base_id
        )
        return _call(self._knowledges.batch_reparse, request)

    def delete_knowledge(self, knowledge_id: str) -> None:
        _call(self._knowledges.delete_knowledge, v1.DeleteKnowledgeRequest(id=knowledge_id))

    def batch_delete_knowledge(
        self, knowledge_ids: Iterable[str]
    ) -> v1.BatchDeleteKnowledgeResponse:
        """Deletes the knowledges; they vanish from listings at once and the rest of the
        cleanup runs in the background. `failed_ids` are the ones not accepted (unknown,
        someone else's, or already being deleted)."""
        request = v1.BatchDeleteKnowledgeRequest(ids=list(knowledge_ids))
        return _call(self._knowledges.batch_delete_knowledge, request)

    # Search

    def search(
        self,
        query: str,
        knowledge_base_ids: Iterable[str],
        *,
        top_k: int = 10,
        mode: v1.SearchMode | None = None,
        graph_expansion: v1.GraphExpansion | None = None,
    ) -> list[v1.SearchResult]:
        """The best `top_k` chunks; `mode=None` lets the server choose (hybrid). With
        `graph_expansion`, chunks related to them through the knowledge graph follow (their
        `graph_match` set)."""
        ids = [knowledge_base_ids] if isinstance(knowledge_base_ids, str) else knowledge_base_ids
        request = v1.SearchRequest(
            query=query,
            knowledge_base_ids=list(ids),
            top_k=top_k,
            mode=mode if mode is not None else v1.SearchMode.UNSPECIFIED,
            graph_expansion=graph_expansion,
        )
        return _call(self._search.search, request).results

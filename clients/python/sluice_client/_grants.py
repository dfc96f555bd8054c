"""`SluiceClient`'s methods for stored files (ResourceService): list a knowledge's
resources, create and revoke access grants, read and download what a grant opens."""

from __future__ import annotations

from collections.abc import Iterator

import grpc

from sluice_client._calls import call
from sluice_client._proto.sluice import v1
from sluice_client._resources import write_resource
from sluice_client._upload import FileSource
from sluice_client.errors import translated_rpc_errors


class ResourceMethods:
    """Mixed into SluiceClient, which sets the stub and the ReadResource call."""

    _resources: v1.ResourceServiceStub
    _read_resource: grpc.UnaryStreamMultiCallable[v1.ReadResourceRequest, v1.ReadResourceResponse]

    def list_resources(self, knowledge_id: str) -> list[v1.Resource]:
        """The knowledge's stored files: its original first, then its extracted images."""
        request = v1.ListResourcesRequest(knowledge_id=knowledge_id)
        return call(self._resources.list_resources, request).resources

    def create_access_grant(
        self, *, knowledge_id: str = "", resource_ref: str = "", ttl_seconds: int = 0
    ) -> v1.CreateAccessGrantResponse:
        """A token that opens the knowledge's original file, or the resource `resource_ref`
        (an image from `list_resources`, say), for `ttl_seconds` (0: the server's default).
        Whoever holds the token may read the file with `read_resource`, without an API key."""
        if bool(knowledge_id) == bool(resource_ref):
            raise ValueError("give exactly one of knowledge_id and resource_ref")
        request = v1.CreateAccessGrantRequest(
            knowledge_id=knowledge_id or None,
            resource_ref=resource_ref or None,
            ttl_seconds=ttl_seconds,
        )
        return call(self._resources.create_access_grant, request)

    def revoke_access_grant(
        self, *, token: str = "", resource_ref: str = "", knowledge_id: str = ""
    ) -> int:
        """Take back grants before they expire: the one of `token`, or every grant to the
        resource `resource_ref`, or to the knowledge's files. Returns how many went."""
        if sum(map(bool, (token, resource_ref, knowledge_id))) != 1:
            raise ValueError("give exactly one of token, resource_ref and knowledge_id")
        request = v1.RevokeAccessGrantRequest(
            token=token or None,
            resource_ref=resource_ref or None,
            knowledge_id=knowledge_id or None,
        )
        return call(self._resources.revoke_access_grant, request).revoked

    def read_resource(
        self, token: str, *, timeout: float | None = None
    ) -> Iterator[v1.ReadResourceResponse]:
        """The frames of the file a grant opens: its meta (`v1.Resource`), then its bytes
        in pieces of at most 256 KiB. Leaving the loop early cancels the stream."""
        request = v1.ReadResourceRequest(token=token)
        with translated_rpc_errors():
            call = self._read_resource(request, timeout=timeout)
            try:
                yield from call
            finally:
                call.cancel()

    def download_resource(
        self, token: str, destination: FileSource, *, timeout: float | None = None
    ) -> v1.Resource:
        """Writes the file a grant opens to `destination` (a path, or a binary stream the
        caller keeps) as it arrives, never whole in memory; returns its meta. A path is
        replaced only once the whole file has arrived: a failure leaves it as it was."""
        return write_resource(self.read_resource(token, timeout=timeout), destination)

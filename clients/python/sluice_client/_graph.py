"""`SluiceClient`'s methods for the knowledge graph (GraphService): entities by name or
type, one entity, its neighbourhood, and the chunks behind a relation."""

from __future__ import annotations

from collections.abc import Iterator

from sluice_client._calls import call, pages, required
from sluice_client._proto.sluice import v1


class GraphMethods:
    """Mixed into SluiceClient, which sets the stub."""

    _graph: v1.GraphServiceStub

    def list_entities(
        self,
        knowledge_base_id: str,
        *,
        name_contains: str = "",
        type: str = "",
        page_size: int = 100,
    ) -> Iterator[v1.Entity]:
        """The knowledge base's entities, most mentioned first, fetched a page at a time;
        `name_contains` matches names as the server merges them (case and spacing folded)."""

        def fetch(token: str) -> tuple[list[v1.Entity], str]:
            request = v1.ListEntitiesRequest(
                knowledge_base_id=knowledge_base_id,
                name_contains=name_contains,
                type=type,
                page_size=page_size,
                page_token=token,
            )
            response = self._graph.list_entities(request)
            return response.entities, response.next_page_token

        return pages(fetch)

    def get_entity(self, entity_id: str) -> v1.Entity:
        request = v1.GetEntityRequest(entity_id=entity_id)
        return required(call(self._graph.get_entity, request).entity, "entity")

    def get_neighbourhood(
        self, entity_id: str, *, depth: int = 1, max_entities: int = 0
    ) -> v1.GetNeighbourhoodResponse:
        """The entity, the entities within `depth` (1 to 3) relations of it and the
        relations between them; `max_entities` 0 is the server's default."""
        request = v1.GetNeighbourhoodRequest(
            entity_id=entity_id, depth=depth, max_entities=max_entities
        )
        return call(self._graph.get_neighbourhood, request)

    def get_relation_sources(
        self, relation_id: str, *, page_size: int = 20
    ) -> Iterator[v1.RelationSource]:
        """The chunks a relation was found in (text, knowledge and its title), a page at a
        time."""

        def fetch(token: str) -> tuple[list[v1.RelationSource], str]:
            request = v1.GetRelationSourcesRequest(
                relation_id=relation_id, page_size=page_size, page_token=token
            )
            response = self._graph.get_relation_sources(request)
            return response.sources, response.next_page_token

        return pages(fetch)

"""sluice.v1.GraphService."""

from __future__ import annotations

import asyncio
from typing import Any

import grpc
from sluice.v1 import graph_pb2 as pb
from sluice.v1 import graph_pb2_grpc as pb_grpc

from server.api.budget import fitted, response_budget
from server.api.convert import graph_entity as entity
from server.api.deps import ApiDeps
from server.api.rpc import unary
from server.services.graph import SourceChunk
from storage.graph.store import Relation

Ctx = grpc.aio.ServicerContext[Any, Any]


class GraphServicer(pb_grpc.GraphServiceServicer):
    def __init__(self, deps: ApiDeps) -> None:
        self._deps = deps
        self._service = deps.graph
        self._budget = response_budget(deps.settings.api.max_message_bytes)

    @unary
    async def ListEntities(
        self, request: pb.ListEntitiesRequest, context: Ctx
    ) -> pb.ListEntitiesResponse:
        identity = await self._deps.auth.identify(context)
        listing = await asyncio.to_thread(
            self._service.list_entities,
            identity,
            request.knowledge_base_id,
            request.name_contains,
            request.type,
            request.page_size,
            request.page_token,
        )
        entities = fitted([entity(e) for e in listing.items], self._budget)
        return pb.ListEntitiesResponse(
            entities=entities,
            next_page_token=listing.next_page_token(len(entities)),
            total=listing.total,
        )

    @unary
    async def GetEntity(self, request: pb.GetEntityRequest, context: Ctx) -> pb.GetEntityResponse:
        identity = await self._deps.auth.identify(context)
        found = await asyncio.to_thread(self._service.get_entity, identity, request.entity_id)
        return pb.GetEntityResponse(entity=entity(found))

    @unary
    async def GetNeighbourhood(
        self, request: pb.GetNeighbourhoodRequest, context: Ctx
    ) -> pb.GetNeighbourhoodResponse:
        identity = await self._deps.auth.identify(context)
        found = await asyncio.to_thread(
            self._service.neighbourhood,
            identity,
            request.entity_id,
            request.depth,
            request.max_entities,
        )
        center = entity(found.center)
        # Half the budget each: the entities, and the relations between those kept.
        entities = fitted([entity(e) for e in found.entities], self._budget // 2)
        shown = {found.center.id} | {e.id for e in entities}
        relations = fitted(
            [relation(r) for r in found.relations if r.source_id in shown and r.target_id in shown],
            self._budget // 2 - center.ByteSize(),
        )
        cut = len(entities) < len(found.entities) or len(relations) < len(found.relations)
        return pb.GetNeighbourhoodResponse(
            center=center, entities=entities, relations=relations, truncated=found.truncated or cut
        )

    @unary
    async def GetRelationSources(
        self, request: pb.GetRelationSourcesRequest, context: Ctx
    ) -> pb.GetRelationSourcesResponse:
        identity = await self._deps.auth.identify(context)
        found = await asyncio.to_thread(
            self._service.relation_sources,
            identity,
            request.relation_id,
            request.page_size,
            request.page_token,
        )
        sources = fitted([source(s) for s in found.sources.items], self._budget)
        return pb.GetRelationSourcesResponse(
            relation=relation(found.relation),
            sources=sources,
            next_page_token=found.sources.next_page_token(len(sources)),
            total=found.sources.total,
        )


def relation(found: Relation) -> pb.Relation:
    return pb.Relation(
        id=found.id,
        knowledge_base_id=found.knowledge_base_id,
        source_entity_id=found.source_id,
        target_entity_id=found.target_id,
        relation=found.relation,
        description=found.description,
        weight=found.weight,
        source_count=found.source_count,
    )


def source(found: SourceChunk) -> pb.RelationSource:
    return pb.RelationSource(
        chunk_id=found.chunk_id,
        knowledge_id=found.knowledge_id,
        knowledge_title=found.knowledge_title,
        chunk_index=found.chunk_index,
        content=found.content,
        description=found.description,
    )

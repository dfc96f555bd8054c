"""The API's grpc.aio server: the sluice.v1 services, per-service health (storage
connectivity included, see storage_health) and reflection."""

from __future__ import annotations

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from sluice.v1 import (
    faq_pb2,
    faq_pb2_grpc,
    graph_pb2,
    graph_pb2_grpc,
    knowledge_base_pb2,
    knowledge_base_pb2_grpc,
    knowledge_pb2,
    knowledge_pb2_grpc,
    resource_pb2,
    resource_pb2_grpc,
    search_pb2,
    search_pb2_grpc,
    tag_pb2,
    tag_pb2_grpc,
    wiki_pb2,
    wiki_pb2_grpc,
)

from server import reflection
from server.api.auth_interceptor import AuthInterceptor
from server.api.deps import ApiDeps
from server.api.faq import FaqServicer
from server.api.graph import GraphServicer
from server.api.knowledge import KnowledgeServicer
from server.api.knowledge_bases import KnowledgeBaseServicer
from server.api.resources import ResourceServicer
from server.api.search import SearchServicer
from server.api.storage_health import start_storage_health
from server.api.tags import TagServicer
from server.api.watch_encoding import add_with_pre_encoded_stream
from server.api.wiki import WikiServicer
from server.binding import EXCLUSIVE_BIND, listen
from server.health import AsyncListingHealthServicer
from workers.observability.metrics_grpc import AsyncRpcMetricsInterceptor
from workers.observability.tracing_grpc import aio_server_interceptors

SERVICE_NAMES = (
    knowledge_base_pb2.DESCRIPTOR.services_by_name["KnowledgeBaseService"].full_name,
    knowledge_pb2.DESCRIPTOR.services_by_name["KnowledgeService"].full_name,
    search_pb2.DESCRIPTOR.services_by_name["SearchService"].full_name,
    resource_pb2.DESCRIPTOR.services_by_name["ResourceService"].full_name,
    tag_pb2.DESCRIPTOR.services_by_name["TagService"].full_name,
    graph_pb2.DESCRIPTOR.services_by_name["GraphService"].full_name,
    wiki_pb2.DESCRIPTOR.services_by_name["WikiService"].full_name,
    faq_pb2.DESCRIPTOR.services_by_name["FAQService"].full_name,
)

# The services the RPC metrics name (calls to any other are counted as "unknown").
OBSERVED_SERVICES = (
    *SERVICE_NAMES,
    health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
    reflection.SERVICE_NAME,
)

# A fixed HTTP/2 flow-control window per stream instead of one grown by BDP probing: with
# probing, grpc enlarges the window and, whenever disk writes stall an upload's consumer,
# holds that much of the upload in memory (RSS +15 to +115 MiB during a 512 MiB upload on
# loopback, varying from run to run); 4 MiB keeps it under +50 MiB at the same speed, and
# still carries 80 MiB/s over a 50 ms round trip.
STREAM_WINDOW_BYTES = 4 << 20


async def start_api_server(deps: ApiDeps, address: str) -> tuple[grpc.aio.Server, int]:
    """Bind, register and start; returns the server and the port it got (address may end :0).
    A taken address raises BindError. The port serves TLS when the settings name a
    certificate (SLUICE_API_TLS_*)."""
    limit = deps.settings.api.max_message_bytes
    server = grpc.aio.server(
        interceptors=[
            # Outermost: it only counts and times, so refused calls are counted too.
            AsyncRpcMetricsInterceptor("api", OBSERVED_SERVICES),
            # The span and the access log only wrap the call.
            *aio_server_interceptors(),
            # No call gets anywhere before its key is checked.
            AuthInterceptor(deps.auth),
        ],
        options=[
            ("grpc.max_receive_message_length", limit),
            ("grpc.max_send_message_length", limit),
            ("grpc.http2.bdp_probe", 0),
            ("grpc.http2.lookahead_bytes", STREAM_WINDOW_BYTES),
            EXCLUSIVE_BIND,
        ],
    )
    knowledge_base_pb2_grpc.add_KnowledgeBaseServiceServicer_to_server(
        KnowledgeBaseServicer(deps), server
    )
    add_with_pre_encoded_stream(
        knowledge_pb2_grpc.add_KnowledgeServiceServicer_to_server,
        KnowledgeServicer(deps),
        server,
        "WatchSpans",  # one serialization shared by the streams that send the same message
    )
    search_pb2_grpc.add_SearchServiceServicer_to_server(SearchServicer(deps), server)
    resource_pb2_grpc.add_ResourceServiceServicer_to_server(ResourceServicer(deps), server)
    tag_pb2_grpc.add_TagServiceServicer_to_server(TagServicer(deps), server)
    graph_pb2_grpc.add_GraphServiceServicer_to_server(GraphServicer(deps), server)
    wiki_pb2_grpc.add_WikiServiceServicer_to_server(WikiServicer(deps), server)
    faq_pb2_grpc.add_FAQServiceServicer_to_server(FaqServicer(deps), server)
    health_servicer = AsyncListingHealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health_servicer, server)
    for name in ("", *SERVICE_NAMES):
        await health_servicer.set(name, health_pb2.HealthCheckResponse.SERVING)
    reflection.enable_server_reflection(
        (
            *SERVICE_NAMES,
            health_pb2.DESCRIPTOR.services_by_name["Health"].full_name,
            reflection.SERVICE_NAME,
        ),
        server,
    )
    port = listen(server, address, deps.settings.tls.api_server_tls)
    await server.start()
    await start_storage_health(
        server, health_servicer, deps.files, deps.settings.storage.storage_health_interval_s
    )
    return server, port

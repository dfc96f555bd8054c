"""What the API's interceptors cost a call: the same unary RPC (Health/Check) and the same
server-streaming RPC (10 messages) over loopback gRPC against four servers built by
bench.interceptor_server, each its own process: no interceptor at all, the access log alone
(the API's baseline: it is always on), metrics on (the API's default), and metrics with
tracing exporting every span to a real OTLP receiver (tests.support.otlp_receiver, in this
process).

One client calls one call at a time. The servers take turns ``--rounds`` times, each round
``--calls`` unary calls and ``--calls // 4`` streams, so a load change on the shared cores
hits all of them alike; calls/s is the median over the rounds, p50/p99 are over every call
of a variant, and the server CPU a call costs (psutil, the server process alone) is the
figure the load of other jobs moves least. Ratios are to the access-log-only server.

    .venv/bin/python -m bench.observability_overhead [--rounds 5] [--calls 2000] [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field

import grpc
import psutil
from grpc_health.v1 import health_pb2, health_pb2_grpc

from bench.interceptor_server import STREAM_SERVICE, VARIANTS
from bench.report import percentile, write_result
from tests.support.otlp_receiver import otlp_receiver
from tests.support.processes import Process, python

NAME = "observability_overhead"
BASELINE = "log"
WARM_UP_CALLS = 200


@dataclass
class Figures:
    """One variant's calls of one kind, over all rounds."""

    latencies: list[float] = field(default_factory=list)
    rates: list[float] = field(default_factory=list)  # calls/s of each round
    cpu_us: list[float] = field(default_factory=list)  # server CPU µs a call, each round

    def summary(self) -> dict[str, float]:
        return {
            "calls_per_s": round(statistics.median(self.rates), 1),
            "p50_ms": round(percentile(self.latencies, 0.5) * 1000, 3),
            "p99_ms": round(percentile(self.latencies, 0.99) * 1000, 3),
            "server_cpu_us_per_call": round(statistics.median(self.cpu_us), 1),
        }


def _server_cpu(pid: int) -> float:
    times = psutil.Process(pid).cpu_times()
    return float(times.user + times.system)


def measure(call: Callable[[], object], calls: int, pid: int, into: Figures) -> None:
    cpu_before, started = _server_cpu(pid), time.perf_counter()
    for _ in range(calls):
        begun = time.perf_counter()
        call()
        into.latencies.append(time.perf_counter() - begun)
    elapsed = time.perf_counter() - started
    into.rates.append(calls / elapsed)
    into.cpu_us.append((_server_cpu(pid) - cpu_before) / calls * 1e6)


def calls_of(channel: grpc.Channel) -> tuple[Callable[[], object], Callable[[], object]]:
    """One Health/Check call, and one Count stream read to its end."""
    check = health_pb2_grpc.HealthStub(channel).Check
    count = channel.unary_stream(
        f"/{STREAM_SERVICE}/Count",
        request_serializer=health_pb2.HealthCheckRequest.SerializeToString,
        response_deserializer=health_pb2.HealthCheckResponse.FromString,
    )
    request = health_pb2.HealthCheckRequest()

    def check_once() -> object:
        return check(request, timeout=10)

    def stream_once() -> object:
        return list(count(request, timeout=10))

    return check_once, stream_once


def main(argv: Sequence[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(prog="bench.observability_overhead", description=__doc__)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=2000, help="unary calls a round")
    parser.add_argument("--quick", action="store_true", help="2 rounds of 500 calls")
    args = parser.parse_args(argv)
    rounds, calls = (2, 500) if args.quick else (args.rounds, args.calls)
    streams = max(1, calls // 4)
    unary = {v: Figures() for v in VARIANTS}
    streamed = {v: Figures() for v in VARIANTS}
    with ExitStack() as stack:
        receiver = stack.enter_context(otlp_receiver())
        servers: dict[str, tuple[Process, grpc.Channel]] = {}
        for variant in VARIANTS:
            env = {"SLUICE_OTLP_ENDPOINT": receiver.endpoint} if variant == "traced" else {}
            server = Process(
                variant, python("-m", "bench.interceptor_server", "--variant", variant), env
            )
            stack.callback(server.stop)
            address = server.wait_for_line(r"listening on (\S+)", timeout=60).group(1)
            channel = stack.enter_context(grpc.insecure_channel(address))
            servers[variant] = (server, channel)
        for round_number in range(rounds):
            for variant in VARIANTS:
                server, channel = servers[variant]
                check_once, stream_once = calls_of(channel)
                if round_number == 0:
                    for _ in range(WARM_UP_CALLS):
                        check_once()
                        stream_once()
                measure(check_once, calls, server.pid, unary[variant])
                measure(stream_once, streams, server.pid, streamed[variant])
            print(f"round {round_number + 1}/{rounds} done", flush=True)
        spans = len(receiver.wait_for(lambda s: len(s) > 0, timeout=30))
    figures: dict[str, object] = {"rounds": rounds, "unary_calls": calls, "streams": streams}
    for kind, results in (("unary", unary), ("stream", streamed)):
        base = results[BASELINE].summary()
        print(
            f"{kind}: {'variant':8} {'calls/s':>9} {'p50 ms':>8} {'p99 ms':>8} "
            f"{'cpu µs':>8}   ratios to {BASELINE} (time, p50, server cpu)"
        )
        for variant in VARIANTS:
            summary = results[variant].summary()
            ratios = {
                "time_ratio": base["calls_per_s"] / summary["calls_per_s"],
                "p50_ratio": summary["p50_ms"] / base["p50_ms"],
                "cpu_ratio": summary["server_cpu_us_per_call"] / base["server_cpu_us_per_call"],
            }
            rounded = {name: round(value, 3) for name, value in ratios.items()}
            figures[f"{kind}_{variant}"] = {**summary, **rounded}
            print(
                f"{kind}: {variant:8} {summary['calls_per_s']:9.1f} {summary['p50_ms']:8.3f} "
                f"{summary['p99_ms']:8.3f} {summary['server_cpu_us_per_call']:8.1f}   "
                + " ".join(f"{value:.3f}" for value in rounded.values())
            )
    figures["spans_received"] = spans
    print(f"spans received by the OTLP receiver: {spans}")
    write_result(NAME, figures)
    return figures


if __name__ == "__main__":
    main()

"""(b) Streaming upload over loopback: the API's CreateFromFile against a bare grpcio server.

The same client sends the same frames to both (a raw grpcio stub, a header then 1 MiB data
frames read from disk as they go), so only the server differs. Ours: a lite deployment
(`make run`) storing the file with MD5, dedup check, database row and enqueue. Bare:
bench.bare_upload_server in its own process, which only hashes and writes (fsynced, like
ours). The two take turns `--repeat` times and their medians are compared; each of ours
gets a fresh stack, killed as soon as the upload returns (the document would otherwise be
processed), so no run is deduplicated against another. While an upload runs, the server's
VmRSS is sampled every 20 ms.

    .venv/bin/python -m bench.upload_stream [--size-mb 512] [--repeat 7] [--quick]
"""

from __future__ import annotations

import argparse
import hashlib
import io
import os
import statistics
import tempfile
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import grpc
import psutil
from sluice.v1 import knowledge_pb2, knowledge_pb2_grpc
from sluice_client import SluiceClient
from sluice_client._channel import CHANNEL_OPTIONS

from bench.corpus import markdown_document
from bench.report import verdict, write_result
from tests.e2e.stacks import lite_stack
from tests.support.processes import Process, python

NAME = "upload_stream"
FRAME_BYTES = 1 << 20
MIB = 1 << 20
TARGET_RATIO = 0.8
TARGET_RSS_GROWTH_MIB = 64.0
UPLOAD_TIMEOUT_S = 600.0


def make_file(path: Path, size_mib: int) -> str:
    """`size_mib` MiB (one random MiB repeated, each copy stamped with its number so no two
    frames are equal); returns its MD5."""
    block = bytearray(os.urandom(MIB))
    md5 = hashlib.md5(usedforsecurity=False)
    with path.open("wb") as out:
        for n in range(size_mib):
            block[:8] = n.to_bytes(8, "little")
            out.write(block)
            md5.update(block)
    return md5.hexdigest()


def upload_frames(
    path: Path, header: knowledge_pb2.FileHeader
) -> Iterator[knowledge_pb2.CreateFromFileRequest]:
    yield knowledge_pb2.CreateFromFileRequest(header=header)
    with path.open("rb") as stream:
        while piece := stream.read(FRAME_BYTES):
            yield knowledge_pb2.CreateFromFileRequest(data=piece)


def rss_kib(pid: int) -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise RuntimeError(f"no VmRSS for process {pid}")


class RssSampler:
    """The peak VmRSS of a process, sampled every `interval` seconds in a thread."""

    def __init__(self, pid: int, interval: float = 0.02) -> None:
        self._pid = pid
        self._interval = interval
        self.start_kib = rss_kib(pid)
        self.peak_kib = self.start_kib
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.wait(self._interval):
            self.peak_kib = max(self.peak_kib, rss_kib(self._pid))

    def stop(self) -> float:
        """Stops sampling; returns the peak growth in MiB."""
        self._stop.set()
        self._thread.join()
        self.peak_kib = max(self.peak_kib, rss_kib(self._pid))
        return (self.peak_kib - self.start_kib) / 1024


@dataclass(frozen=True)
class Upload:
    seconds: float
    rss_growth_mib: float
    server_cpu_seconds: float


def _cpu(pid: int) -> float:
    times = psutil.Process(pid).cpu_times()
    return float(times.user + times.system)


def timed_upload(
    target: str, pid: int, path: Path, header: knowledge_pb2.FileHeader, expected_md5: str
) -> Upload:
    with grpc.insecure_channel(target, CHANNEL_OPTIONS) as channel:
        stub = knowledge_pb2_grpc.KnowledgeServiceStub(channel)
        cpu_before = _cpu(pid)
        sampler = RssSampler(pid)
        start = time.perf_counter()
        response = stub.CreateFromFile(upload_frames(path, header), timeout=UPLOAD_TIMEOUT_S)
        seconds = time.perf_counter() - start
        growth = sampler.stop()
        cpu = _cpu(pid) - cpu_before
    stored = response.knowledge
    if stored.file_size != path.stat().st_size or stored.file_hash != expected_md5:
        raise RuntimeError(f"the server stored {stored.file_size} bytes, MD5 {stored.file_hash}")
    return Upload(seconds, growth, cpu)


def _header(kb_id: str, file_name: str) -> knowledge_pb2.FileHeader:
    return knowledge_pb2.FileHeader(knowledge_base_id=kb_id, file_name=file_name)


def _warm_up_file(directory: Path, name: str) -> tuple[Path, str]:
    """A small real document: warms channel and server without leaving heavy work behind."""
    body = markdown_document(time.time_ns() % 100_000, 4_000, "Warm-up").encode()
    path = directory / name
    path.write_bytes(body)
    return path, hashlib.md5(body, usedforsecurity=False).hexdigest()


def measure_bare(work: Path, path: Path, md5: str) -> Upload:
    store = work / "bare-store"
    store.mkdir(exist_ok=True)
    server = Process(
        "bare",
        python("-m", "bench.bare_upload_server", "--address", "127.0.0.1:0", "--dir", str(store)),
        {},
    )
    try:
        port = int(server.wait_for_line(r"listening on [\d.]+:(\d+)", timeout=60).group(1))
        target = f"127.0.0.1:{port}"
        warm_path, warm_md5 = _warm_up_file(work, "warm-up-bare.md")
        timed_upload(target, server.pid, warm_path, _header("bare", warm_path.name), warm_md5)
        return timed_upload(target, server.pid, path, _header("bare", "blob.txt"), md5)
    finally:
        server.stop()
        for stored in store.iterdir():
            stored.unlink()


def measure_ours(work: Path, path: Path, md5: str) -> Upload:
    limit = {"SLUICE_MAX_UPLOAD_BYTES": str(path.stat().st_size + MIB)}
    with (
        tempfile.TemporaryDirectory(prefix="sluice-bench-", dir=work) as data_dir,
        lite_stack(Path(data_dir), extra_env=limit) as stack,
    ):
        api = stack.processes["api"]
        with SluiceClient(stack.target) as client:
            kb = client.create_knowledge_base("bench-upload")
            warm_path, warm_md5 = _warm_up_file(work, "warm-up-ours.md")
            warm = client.upload_file(kb.id, io.BytesIO(warm_path.read_bytes()), file_name="w.md")
            if warm.file_hash != warm_md5:
                raise RuntimeError("the warm-up upload was stored wrong")
            client.wait_until_done(warm.id, 120)
        result = timed_upload(stack.target, api.pid, path, _header(kb.id, "blob.txt"), md5)
        # The upload is done; processing the blob is not part of this benchmark.
        api.kill()
        return result


def main(argv: Sequence[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(prog="bench.upload_stream", description=__doc__)
    parser.add_argument("--size-mb", type=int, default=512, help="file size in MiB")
    parser.add_argument("--repeat", type=int, default=7, help="uploads to each server")
    parser.add_argument("--quick", action="store_true", help="64 MiB, 2 repeats")
    args = parser.parse_args(argv)
    size_mib, repeat = (64, 2) if args.quick else (args.size_mb, args.repeat)

    bare: list[Upload] = []
    ours: list[Upload] = []
    with tempfile.TemporaryDirectory(prefix="sluice-bench-upload-") as tmp:
        work = Path(tmp)
        path = work / "blob.bin"
        md5 = make_file(path, size_mib)
        print(f"file: {size_mib} MiB in {FRAME_BYTES // 1024} KiB frames, {repeat} uploads each")
        for n in range(repeat):
            # Alternating which goes first cancels any effect of the order.
            if n % 2 == 0:
                bare.append(measure_bare(work, path, md5))
                ours.append(measure_ours(work, path, md5))
            else:
                ours.append(measure_ours(work, path, md5))
                bare.append(measure_bare(work, path, md5))
            print(
                f"  run {n + 1}: bare {size_mib / bare[-1].seconds:.0f} MiB/s, "
                f"ours {size_mib / ours[-1].seconds:.0f} MiB/s "
                f"(API RSS +{ours[-1].rss_growth_mib:.1f} MiB)"
            )

    bare_s = statistics.median(u.seconds for u in bare)
    ours_s = statistics.median(u.seconds for u in ours)
    bare_rate, ours_rate = size_mib / bare_s, size_mib / ours_s
    ratio = ours_rate / bare_rate
    rss = max(u.rss_growth_mib for u in ours)
    bare_rss = max(u.rss_growth_mib for u in bare)
    ours_cpu = statistics.median(u.server_cpu_seconds for u in ours)
    bare_cpu = statistics.median(u.server_cpu_seconds for u in bare)
    print(f"bare grpcio server: {bare_rate:.0f} MiB/s (median), server CPU {bare_cpu:.2f} s")
    print(f"Sluice API (lite):  {ours_rate:.0f} MiB/s (median), server CPU {ours_cpu:.2f} s")
    print(f"ratio ours / bare: {ratio:.2f} ({verdict(ratio, TARGET_RATIO)})")
    print(
        f"API peak RSS growth during the upload: {rss:.1f} MiB "
        f"({verdict(rss, TARGET_RSS_GROWTH_MIB, below=True)}); bare server: {bare_rss:.1f} MiB"
    )
    figures: dict[str, object] = {
        "size_mib": size_mib,
        "frame_bytes": FRAME_BYTES,
        "repeat": repeat,
        "bare_mib_per_s": round(bare_rate, 1),
        "ours_mib_per_s": round(ours_rate, 1),
        "bare_mib_per_s_runs": [round(size_mib / u.seconds, 1) for u in bare],
        "ours_mib_per_s_runs": [round(size_mib / u.seconds, 1) for u in ours],
        "ratio": round(ratio, 3),
        "target_ratio": TARGET_RATIO,
        "api_peak_rss_growth_mib": round(rss, 1),
        "bare_peak_rss_growth_mib": round(bare_rss, 1),
        "target_rss_growth_mib": TARGET_RSS_GROWTH_MIB,
        "ours_server_cpu_s": round(ours_cpu, 2),
        "bare_server_cpu_s": round(bare_cpu, 2),
        "met": ratio >= TARGET_RATIO and rss < TARGET_RSS_GROWTH_MIB,
    }
    write_result(NAME, figures)
    return figures


if __name__ == "__main__":
    main()

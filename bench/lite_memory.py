"""(g) The lite server's memory: its peak on one deep-nesting Markdown file, and its RSS over
200 documents, which must stay flat.

Lite mode embeds in the API's own process, so whatever the model keeps stays in the server.
Part 1 uploads one Markdown file of nested headings and 40-level lists (about 520 KB,
1,440 chunks) and samples the API's VmRSS every 20 ms; the baseline is the same texts
embedded by the default local model alone in a fresh process (its peak growth over the loaded
model). Part 2 uploads 200 distinct documents of 2-20 KB one after another and reads the
API's RSS after each; flat means that what document 200 leaves is within the target of what
document 20 left (the first ones warm caches, collections and the model up).

    .venv/bin/python -m bench.lite_memory [--documents 200] [--quick] [--no-deep-file]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import psutil
from sluice_client import SluiceClient

from bench.corpus import markdown_document
from bench.report import write_result
from bench.upload_stream import RssSampler, rss_kib
from tests.e2e.stacks import lite_stack

NAME = "lite_memory"
# What the API may keep after document 200 beyond what it kept after document 20.
TARGET_DRIFT_MIB = 64.0
WARM_DOCUMENTS = 20
WAIT_S = 900.0


def deep_markdown(sections: int) -> str:
    """Headings six deep over lists forty deep: long breadcrumbs and long chunks."""
    lines = []
    for s in range(sections):
        for level in range(1, 7):
            lines.append("#" * level + f" Section {s} level {level} " + "heading words " * 5)
        lines.append(f"Paragraph text about topic {s} with several words. " * 12)
        for depth in range(40):
            lines.append("  " * depth + f"- item depth {depth} of section {s} with text")
        lines.append("")
    return "\n".join(lines)


_RAW_PEAK = """
import json, resource, sys
from bench.baseline import embedding_texts
from core import local_models
from workers.embedding.factory import new_local_embedder
texts = embedding_texts("deep.md", open(sys.argv[1], encoding="utf-8").read())
embedder = new_local_embedder(local_models.DEFAULT, batch_size=32)
embedder.embed_documents(texts[:1])
loaded = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
for start in range(0, len(texts), 32):
    embedder.embed_documents(texts[start:start + 32])
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"texts": len(texts), "growth_mib": (peak - loaded) / 1024}))
"""


def raw_embedder_growth(path: Path) -> dict[str, float]:
    """Baseline: the peak growth of the model alone over the same texts, in batches of 32."""
    done = subprocess.run(
        [sys.executable, "-c", _RAW_PEAK, str(path)], capture_output=True, text=True, check=True
    )
    figures: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def index_alone_rss(count: int) -> list[float]:
    """Baseline: milvus-lite alone holding the same documents' rows (bench/index_memory.py)."""
    done = subprocess.run(
        [sys.executable, "-m", "bench.index_memory", str(count)],
        capture_output=True,
        text=True,
        check=True,
    )
    after: list[float] = json.loads(done.stdout.strip().splitlines()[-1])["rss_after_document_mib"]
    return after


def _ingest(client: SluiceClient, kb_id: str, body: bytes, file_name: str) -> None:
    knowledge = client.upload_file(kb_id, io.BytesIO(body), file_name=file_name)
    done = client.wait_until_done(knowledge.id, timeout=WAIT_S)
    if done.parse_status.name != "COMPLETED":
        raise RuntimeError(f"{file_name} ended {done.parse_status.name}")


def _mib(pid: int) -> float:
    return rss_kib(pid) / 1024


def _tree_mib(pid: int) -> float:
    """The API and every process under it (the docreader's forkserver and parse children)."""
    root = psutil.Process(pid)
    total = 0
    for process in [root, *root.children(recursive=True)]:
        with contextlib.suppress(psutil.NoSuchProcess):
            total += process.memory_info().rss
    return total / 2**20


def _deep_file(client: SluiceClient, kb_id: str, pid: int, deep: str) -> dict[str, float]:
    before = _mib(pid)
    sampler = RssSampler(pid)
    _ingest(client, kb_id, deep.encode(), "deep.md")
    growth = sampler.stop()
    return {"before": before, "growth": growth, "after": _mib(pid)}


def _documents(
    client: SluiceClient, kb_id: str, pid: int, count: int
) -> tuple[list[float], list[float], float]:
    """RSS of the API and of its process tree after each document; the seconds it took."""
    api: list[float] = []
    tree: list[float] = []
    started = time.perf_counter()
    for n in range(count):
        size = 2_000 + (n * 7_919) % 18_000
        body = markdown_document(20261201 + n, size, f"Memo {n}").encode()
        _ingest(client, kb_id, body, f"memo-{n}.md")
        api.append(_mib(pid))
        tree.append(_tree_mib(pid))
        if (n + 1) % 20 == 0:
            print(f"document {n + 1}: API {api[-1]:.0f} MiB, tree {tree[-1]:.0f} MiB", flush=True)
    return api, tree, time.perf_counter() - started


def main(argv: Sequence[str] | None = None) -> dict[str, object]:
    parser = argparse.ArgumentParser(prog="bench.lite_memory", description=__doc__)
    parser.add_argument("--documents", type=int, default=200)
    parser.add_argument("--quick", action="store_true", help="40 documents, a smaller deep file")
    parser.add_argument("--no-deep-file", action="store_true", help="part 2 only")
    args = parser.parse_args(argv)
    count = 40 if args.quick else args.documents
    deep = None if args.no_deep_file else deep_markdown(30 if args.quick else 120)
    figures: dict[str, object] = {}
    index_alone = index_alone_rss(count)
    with tempfile.TemporaryDirectory(prefix="sluice-bench-") as tmp:
        if deep is not None:
            deep_path = Path(tmp) / "deep.md"
            deep_path.write_text(deep, encoding="utf-8")
            raw = raw_embedder_growth(deep_path)
        env = {"SLUICE_MAX_UPLOAD_BYTES": str(64 << 20)}
        with (
            lite_stack(Path(tmp) / "data", env) as stack,
            SluiceClient(stack.target, timeout=120) as client,
        ):
            pid = stack.processes["api"].pid
            kb = client.create_knowledge_base("bench-memory")
            _ingest(client, kb.id, b"# Warm up\n\nThe model loads here.", "warm.md")
            if deep is not None:
                part1 = _deep_file(client, kb.id, pid, deep)
            api, tree, seconds = _documents(client, kb.id, pid, count)
            time.sleep(5)
            idle, idle_tree = _mib(pid), _tree_mib(pid)
    if deep is not None:
        ratio = round(part1["growth"] / max(raw["growth_mib"], 1.0), 2)
        figures |= {
            "deep_chunks": raw["texts"],
            "deep_api_rss_before_mib": round(part1["before"], 1),
            "deep_api_peak_growth_mib": round(part1["growth"], 1),
            "deep_api_rss_after_mib": round(part1["after"], 1),
            "deep_raw_embedder_peak_growth_mib": round(raw["growth_mib"], 1),
            "deep_growth_ratio_to_raw": ratio,
        }
        print(
            f"deep file ({raw['texts']} chunks): API peak +{part1['growth']:.0f} MiB over "
            f"{part1['before']:.0f} MiB (raw model alone +{raw['growth_mib']:.0f} MiB, ratio "
            f"{ratio}), {part1['after']:.0f} MiB after it"
        )
    warm_n = min(WARM_DOCUMENTS, count)
    drift = api[-1] - api[warm_n - 1]
    tree_drift = tree[-1] - tree[warm_n - 1]
    index_drift = index_alone[-1] - index_alone[warm_n - 1]
    figures |= {
        "documents": count,
        "documents_per_s": round(count / seconds, 2),
        "rss_after_document_mib": {
            str(n + 1): round(api[n], 1) for n in range(count) if (n + 1) % 20 == 0
        },
        "tree_rss_after_document_mib": {
            str(n + 1): round(tree[n], 1) for n in range(count) if (n + 1) % 20 == 0
        },
        "rss_idle_mib": round(idle, 1),
        "tree_rss_idle_mib": round(idle_tree, 1),
        f"drift_after_document_{warm_n}_mib": round(drift, 1),
        f"tree_drift_after_document_{warm_n}_mib": round(tree_drift, 1),
        "index_alone_rss_after_document_mib": {
            str(n + 1): round(index_alone[n], 1) for n in range(count) if (n + 1) % 20 == 0
        },
        f"index_alone_drift_after_document_{warm_n}_mib": round(index_drift, 1),
        "api_drift_beyond_index_alone_mib": round(drift - index_drift, 1),
        "target_drift_mib": TARGET_DRIFT_MIB,
        "met": drift < TARGET_DRIFT_MIB and tree_drift < TARGET_DRIFT_MIB,
    }
    print(
        f"{count} documents: API {api[warm_n - 1]:.0f} MiB after document {warm_n}, "
        f"{api[-1]:.0f} MiB after the last (drift {drift:+.0f} MiB); process tree "
        f"{tree[warm_n - 1]:.0f} -> {tree[-1]:.0f} MiB (drift {tree_drift:+.0f} MiB); target < "
        f"{TARGET_DRIFT_MIB:g}: {'met' if figures['met'] else 'MISSED'}; idle {idle:.0f} MiB "
        f"(tree {idle_tree:.0f} MiB)"
    )
    print(
        f"milvus-lite alone with the same rows: {index_alone[warm_n - 1]:.0f} -> "
        f"{index_alone[-1]:.0f} MiB (drift {index_drift:+.0f} MiB); the API beyond it: "
        f"{drift - index_drift:+.0f} MiB"
    )
    write_result(NAME, figures)
    return figures


if __name__ == "__main__":
    main()

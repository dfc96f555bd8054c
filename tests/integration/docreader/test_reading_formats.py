"""Every format through Read, ReadStream and ReadUpload of a real server; large uploads."""

# Non-Latin letters in strings are the point of these tests.
# ruff: noqa: RUF001

from __future__ import annotations

import io
import random
from dataclasses import dataclass
from pathlib import Path

import pytest
from PIL import Image
from sluice.docreader.v1 import docreader_pb2, docreader_pb2_grpc

from tests.support.fixtures import DOCREADER_MESSAGE_LIMIT as MESSAGE_LIMIT
from tests.unit.docreader.images import data_uri, gif_bytes, png_bytes
from workers.docreader_client import DocReaderCallError, DocReaderClient, ReadConfig, ReadOutcome

PNG = png_bytes(80, 60)
GIF = gif_bytes(90, 70)


@dataclass(frozen=True)
class Sample:
    file_type: str
    content: bytes
    markdown: str
    images: tuple[bytes, ...] = ()
    metadata: tuple[tuple[str, str], ...] = ()


SAMPLES = [
    Sample(
        "md",
        f"# Title\r\n\r\nText ![pic]({data_uri(PNG)})\n".encode(),
        "# Title\n\nText ![pic](image-1.png)\n",
        (PNG,),
    ),
    Sample("txt", "Привет\r\nмир".encode("cp1251"), "Привет\nмир"),
    Sample(
        "csv",
        b'a,b\n"x|y","1,2"\n',
        "| a | b |\n| --- | --- |\n| x\\|y | 1,2 |",
        (),
        (("columns", "2"), ("delimiter", ","), ("rows", "1")),
    ),
    Sample(
        "json",
        b'{"k":[1,{"n":null}]}',
        '```json\n{\n  "k": [\n    1,\n    {\n      "n": null\n    }\n  ]\n}\n```',
    ),
    Sample(
        "html",
        (
            f"<html><head><title>T</title></head><body><nav>menu</nav><h1>H</h1>"
            f'<p>P <img src="{data_uri(PNG)}"></p><ol><li>a</li><li>b</li></ol>'
            f"<footer>f</footer></body></html>"
        ).encode(),
        "# H\n\nP ![](image-1.png)\n\n1. a\n2. b",
        (PNG,),
        (("title", "T"),),
    ),
]


def _check(outcome: ReadOutcome, sample: Sample) -> None:
    assert outcome.markdown == sample.markdown
    assert tuple(image.data for image in outcome.images) == sample.images
    assert [image.ref for image in outcome.images] == [
        f"image-{n}.png" for n in range(1, len(sample.images) + 1)
    ]
    assert outcome.metadata == dict(sample.metadata)
    assert not outcome.is_audio and outcome.audio_data == b""


@pytest.mark.parametrize("sample", SAMPLES, ids=[s.file_type for s in SAMPLES])
def test_each_format_reads_the_same_through_every_rpc(
    sample: Sample, client: DocReaderClient, stub: docreader_pb2_grpc.DocReaderServiceStub
) -> None:
    name = f"sample.{sample.file_type}"
    unary = stub.Read(
        docreader_pb2.ReadRequest(
            file_content=sample.content, file_name=name, file_type=sample.file_type
        ),
        timeout=30,
    ).result
    assert unary.markdown_content == sample.markdown
    assert tuple(ref.data for ref in unary.image_refs) == sample.images
    assert dict(unary.metadata) == dict(sample.metadata)

    _check(client.read(sample.content, file_name=name, file_type=sample.file_type), sample)
    _check(
        client.read_file(io.BytesIO(sample.content), file_name=name, file_type=sample.file_type),
        sample,
    )


def test_images_arrive_as_frames_after_the_meta_frame(
    stub: docreader_pb2_grpc.DocReaderServiceStub,
) -> None:
    markdown = f"![a]({data_uri(PNG)}) ![b]({data_uri(GIF, 'image/gif')}) ![c]({data_uri(PNG)})"
    request = docreader_pb2.ReadRequest(
        file_content=markdown.encode(), file_name="p.md", file_type="md"
    )
    frames = list(stub.ReadStream(docreader_pb2.ReadStreamRequest(request=request), timeout=30))
    assert [f.WhichOneof("frame") for f in frames] == ["meta", "markdown_chunk", "image", "image"]
    assert frames[1].markdown_chunk == "![a](image-1.png) ![b](image-2.gif) ![c](image-1.png)"
    assert frames[0].meta.image_count == 2
    assert frames[0].meta.detected_file_type == "md"
    first, second = frames[2].image, frames[3].image
    assert (first.ref, first.mime_type, first.width, first.height, first.data) == (
        "image-1.png",
        "image/png",
        80,
        60,
        PNG,
    )
    assert (second.ref, second.mime_type, second.width, second.height, second.data) == (
        "image-2.gif",
        "image/gif",
        90,
        70,
        GIF,
    )


def test_simple_engine_and_engine_options(client: DocReaderClient) -> None:
    source = f"a;b\n1;2\n![x]({data_uri(PNG)})".encode()
    simple_md = client.read(
        source, file_name="s.md", file_type="md", config=ReadConfig(engine="simple")
    )
    assert simple_md.markdown == source.decode() and simple_md.images == ()
    csv = client.read(
        b"a;b\n1;2",
        file_name="s.csv",
        file_type="csv",
        config=ReadConfig(engine="simple", options={"delimiter": ";"}),
    )
    assert csv.markdown == "| a | b |\n| --- | --- |\n| 1 | 2 |"


def test_a_40_mb_upload_passes_a_4_mib_message_limit(
    client: DocReaderClient, tmp_path: Path
) -> None:
    filler = "var x = 'padding padding padding padding padding padding padding';\n"
    path = tmp_path / "big-page.html"
    with path.open("w") as out:
        out.write("<html><head><title>Big</title></head><body><h1>Start</h1><script>")
        for _ in range(40 * 1024 * 1024 // len(filler) + 1):
            out.write(filler)
        out.write("</script><p>END-MARKER after 40 MB</p></body></html>")
    assert path.stat().st_size > 40 * 1024 * 1024 >= 10 * MESSAGE_LIMIT

    outcome = client.read_file(path)  # name and type come from the path

    assert outcome.markdown == "# Start\n\nEND-MARKER after 40 MB"
    assert outcome.metadata == {"title": "Big"}
    with pytest.raises(DocReaderCallError) as inline:
        client.read(path.read_bytes(), file_name="big-page.html", file_type="html")
    assert inline.value.code_name == "RESOURCE_EXHAUSTED"


def test_markdown_over_the_message_limit_streams_whole_but_one_huge_image_cannot(
    client: DocReaderClient,
) -> None:
    text = "word word word word\n" * (MESSAGE_LIMIT // 10)
    outcome = client.read_file(io.BytesIO(text.encode()), file_name="long.txt", file_type="txt")
    assert outcome.markdown == text
    # One image is one frame: a picture bigger than the message limit is refused by size.
    noise = Image.frombytes("RGB", (1400, 1400), random.Random(7).randbytes(1400 * 1400 * 3))
    picture = io.BytesIO()
    noise.save(picture, format="PNG")
    with pytest.raises(DocReaderCallError) as failure:
        client.read_file(
            io.BytesIO(picture.getvalue()),
            file_name="noise.png",
            file_type="png",
            config=ReadConfig(enable_ocr=False),
        )
    assert failure.value.code_name == "RESOURCE_EXHAUSTED"
    assert "image image-1.png is" in failure.value.message
    assert f"over the {MESSAGE_LIMIT}-byte message limit" in failure.value.message


def test_storage_references_are_read_from_the_base_dir(
    client: DocReaderClient, storage_dir: Path
) -> None:
    (storage_dir / "tenant-1").mkdir(exist_ok=True)
    (storage_dir / "tenant-1" / "doc.csv").write_bytes(b"h1;h2\nv1;v2\n")
    outcome = client.read(
        storage_ref="local://tenant-1/doc.csv", file_name="doc.csv", file_type="csv"
    )
    assert outcome.markdown == "| h1 | h2 |\n| --- | --- |\n| v1 | v2 |"
    for ref, code in [
        ("local://../outside.csv", "INVALID_ARGUMENT"),
        ("local://tenant-1/missing.csv", "NOT_FOUND"),
    ]:
        with pytest.raises(DocReaderCallError) as failure:
            client.read(storage_ref=ref, file_name="x.csv", file_type="csv")
        assert failure.value.code_name == code


def test_client_rejects_ambiguous_sources(client: DocReaderClient) -> None:
    with pytest.raises(ValueError, match="exactly one"):
        client.read(b"x", storage_ref="local://x", file_name="x.txt", file_type="txt")
    with pytest.raises(ValueError, match="exactly one"):
        client.read(file_name="x.txt", file_type="txt")
    with pytest.raises(ValueError, match="required"):
        client.read_file(io.BytesIO(b"x"))


def test_deadline_is_reported_as_a_call_error(docreader_target: str) -> None:
    # 3 MiB cannot cross loopback and be parsed within a millisecond.
    page = b"<html><body><script>" + b"x" * (3 << 20) + b"</script></body></html>"
    hurried = DocReaderClient(docreader_target, timeout_s=0.001, max_message_bytes=MESSAGE_LIMIT)
    with hurried, pytest.raises(DocReaderCallError) as failure:
        hurried.read_file(io.BytesIO(page), file_name="slow.html", file_type="html")
    assert failure.value.code_name == "DEADLINE_EXCEEDED"

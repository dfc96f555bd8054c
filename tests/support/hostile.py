"""Hostile inputs for the docreader: truncated and random files, zip/XML/image bombs, a
pathological JSON and text file, and password-protected documents.

Every generator writes one file into ``directory`` and returns ``Hostile(path, hint)``: the
hint is a lower-case substring the docreader's error message is expected to contain (the
shared safety helpers' wording where one applies); compare it with the lower-cased message.
Bombs stay tiny on disk and are quick to write: the zip bombs repeat one deflated MiB (see
raw_zip.py), the PNG's rows are all zero.

Not generated: a real OOXML-encrypted document (that needs msoffcrypto-tool's cipher, not
installed); ``encrypted_docx``/``encrypted_xlsx`` build the same OLE container shape instead
(EncryptionInfo + EncryptedPackage streams, ole_writer.py), which is what a reader detects.
"""

from __future__ import annotations

import base64
import io
import random
import struct
import zipfile
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

from reportlab.lib.pagesizes import A4
from reportlab.lib.pdfencrypt import StandardEncryption
from reportlab.pdfgen.canvas import Canvas

from tests.support.corpus_content import sentences_for
from tests.support.corpus_office import build_docx, build_xlsx
from tests.support.corpus_packaged import build_pdf, opf_document, write_epub
from tests.support.ole_writer import write_ole
from tests.support.raw_zip import RawMember, deflated, mark_encrypted, repeated, write_zip


class Hostile(NamedTuple):
    path: Path
    hint: str


_SEED = 20261130
_MIB = 1 << 20
BOMB_MEMBER_BYTES = 1 << 30
PNG_BOMB_SIDE = 30_000
JSON_DEPTH = 100_000
HUGE_TEXT_BYTES = 200 * _MIB
_W = 'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"'
_S = 'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"'
_XML = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'


def _sample(path: Path, build: Callable[[Path, tuple[str, str]], object]) -> bytes:
    """A valid small document's bytes (the file itself is then replaced by the caller)."""
    build(path, sentences_for(0, path.suffix.lstrip(".")))
    return path.read_bytes()


def _truncated(path: Path, build: Callable[[Path, tuple[str, str]], object], hint: str) -> Hostile:
    data = _sample(path, build)
    path.write_bytes(data[: len(data) // 2])
    return Hostile(path, hint)


def truncated_docx(directory: Path) -> Hostile:
    return _truncated(directory / "truncated.docx", build_docx, "zip")


def truncated_xlsx(directory: Path) -> Hostile:
    return _truncated(directory / "truncated.xlsx", build_xlsx, "zip")


def truncated_pdf(directory: Path) -> Hostile:
    # Cut before the cross-reference table and trailer: PDFium refuses it outright.
    return _truncated(directory / "truncated.pdf", build_pdf, "pdf")


def _random_bytes(path: Path, hint: str) -> Hostile:
    path.write_bytes(random.Random(_SEED).randbytes(64 * 1024))
    return Hostile(path, hint)


def random_pdf(directory: Path) -> Hostile:
    return _random_bytes(directory / "random.pdf", "pdf")


def random_docx(directory: Path) -> Hostile:
    return _random_bytes(directory / "random.docx", "zip")


def _rebuilt(source: bytes, replacement: RawMember) -> list[RawMember]:
    """The members of a real document, one of them swapped for ``replacement``."""
    with zipfile.ZipFile(io.BytesIO(source)) as archive:
        return [
            replacement if name == replacement.name else deflated(name, archive.read(name))
            for name in archive.namelist()
        ]


def _zip_bomb(
    path: Path, build: Callable[[Path, tuple[str, str]], object], member: str, head: str, tail: str
) -> Hostile:
    """``member`` becomes ~1 GiB of "0" characters inside valid XML, deflated ~1000:1."""
    source = _sample(path, build)
    filler_count = (BOMB_MEMBER_BYTES - len(head) - len(tail)) // _MIB
    bomb = repeated(member, head.encode(), b"0" * _MIB, filler_count, tail.encode())
    write_zip(path, _rebuilt(source, bomb))
    return Hostile(path, member)


def docx_zip_bomb(directory: Path) -> Hostile:
    return _zip_bomb(
        directory / "bomb.docx",
        build_docx,
        "word/document.xml",
        f"{_XML}<w:document {_W}><w:body><w:p><w:r><w:t>",
        "</w:t></w:r></w:p></w:body></w:document>",
    )


def xlsx_zip_bomb(directory: Path) -> Hostile:
    return _zip_bomb(
        directory / "bomb.xlsx",
        build_xlsx,
        "xl/worksheets/sheet1.xml",
        f'{_XML}<worksheet {_S}><sheetData><row r="1"><c r="A1" t="inlineStr"><is><t>',
        "</t></is></c></row></sheetData></worksheet>",
    )


def billion_laughs(root: str) -> str:
    """A DOCTYPE for ``root`` whose &lol9; expands to 10^9 "lol"s (3 GB) if resolved."""
    entities = ['  <!ENTITY lol0 "lol">']
    for n in range(1, 10):
        entities.append(f'  <!ENTITY lol{n} "' + f"&lol{n - 1};" * 10 + '">')
    return f"<!DOCTYPE {root} [\n" + "\n".join(entities) + "\n]>\n"


def epub_entity_bomb(directory: Path) -> Hostile:
    path = directory / "laughs.epub"
    opf = opf_document(title_xml="&lol9;", doctype=billion_laughs("package"))
    write_epub(path, sentences_for(0, "epub"), opf=opf)
    return Hostile(path, "entit")


def docx_entity_bomb(directory: Path) -> Hostile:
    path = directory / "laughs.docx"
    source = _sample(path, build_docx)
    document = (
        f"{_XML}{billion_laughs('w:document')}<w:document {_W}><w:body><w:p><w:r>"
        "<w:t>&lol9;</w:t></w:r></w:p></w:body></w:document>"
    )
    write_zip(path, _rebuilt(source, deflated("word/document.xml", document.encode())))
    return Hostile(path, "entit")


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_bomb(directory: Path, side: int = PNG_BOMB_SIDE) -> Hostile:
    """A ``side`` by ``side`` 1-bit greyscale PNG (9·10^8 pixels), ~100 KB on disk."""
    path = directory / "bomb.png"
    row = b"\0" * (1 + -(-side // 8))  # filter byte + packed bits
    compressor = zlib.compressobj(9)
    rows_per_call = 1000
    idat = [compressor.compress(row * rows_per_call) for _ in range(side // rows_per_call)]
    idat.append(compressor.compress(row * (side % rows_per_call)) + compressor.flush())
    header = struct.pack(">IIBBBBB", side, side, 1, 0, 0, 0, 0)
    path.write_bytes(
        b"\x89PNG\r\n\x1a\n"
        + _png_chunk(b"IHDR", header)
        + _png_chunk(b"IDAT", b"".join(idat))
        + _png_chunk(b"IEND", b"")
    )
    return Hostile(path, "pixels")


def nested_json(directory: Path, depth: int = JSON_DEPTH) -> Hostile:
    path = directory / "nested.json"
    path.write_bytes(b"[" * depth + b"]" * depth)
    return Hostile(path, "nested")


def huge_single_line_text(directory: Path, size: int = HUGE_TEXT_BYTES) -> Hostile:
    """``size`` bytes of words and no line break, written a MiB at a time."""
    path = directory / "one-line.txt"
    chunk = (b"lantern " * (_MIB // 8))[:_MIB]
    with path.open("wb") as out:
        for _ in range(size // _MIB):
            out.write(chunk)
        out.write(chunk[: size % _MIB])
    return Hostile(path, "limit")


def encrypted_pdf(directory: Path) -> Hostile:
    path = directory / "locked.pdf"
    encryption = StandardEncryption("heron-user", ownerPassword="heron-owner", strength=128)
    canvas = Canvas(str(path), pagesize=A4, encrypt=encryption)
    canvas.drawString(72, 720, "This page needs a password to read.")
    canvas.save()
    return Hostile(path, "password")


def _agile_encryption_info(rng: random.Random) -> bytes:
    """EncryptionInfo of ECMA-376 agile encryption: version 4.4, flags, XML descriptor."""

    def b64(size: int) -> str:
        return base64.b64encode(rng.randbytes(size)).decode()

    algorithm = (
        'saltSize="16" blockSize="16" keyBits="256" hashSize="64" cipherAlgorithm="AES" '
        'cipherChaining="ChainingModeCBC" hashAlgorithm="SHA512"'
    )
    descriptor = (
        f'{_XML}<encryption xmlns="http://schemas.microsoft.com/office/2006/encryption" '
        'xmlns:p="http://schemas.microsoft.com/office/2006/keyEncryptor/password">'
        f'<keyData {algorithm} saltValue="{b64(16)}"/>'
        f'<dataIntegrity encryptedHmacKey="{b64(64)}" encryptedHmacValue="{b64(64)}"/>'
        '<keyEncryptors><keyEncryptor uri="http://schemas.microsoft.com/office/2006/'
        f'keyEncryptor/password"><p:encryptedKey spinCount="100000" {algorithm} '
        f'saltValue="{b64(16)}" encryptedVerifierHashInput="{b64(16)}" '
        f'encryptedVerifierHashValue="{b64(64)}" encryptedKeyValue="{b64(32)}"/>'
        "</keyEncryptor></keyEncryptors></encryption>"
    )
    return struct.pack("<HHI", 4, 4, 0x40) + descriptor.encode()


def _encrypted_ooxml(path: Path) -> Hostile:
    rng = random.Random(_SEED)
    package_size = 24_000
    # EncryptedPackage: the plain package's size, then whole AES blocks of ciphertext.
    package = struct.pack("<Q", package_size) + rng.randbytes(package_size + 16 - package_size % 16)
    write_ole(path, {"EncryptionInfo": _agile_encryption_info(rng), "EncryptedPackage": package})
    return Hostile(path, "password")


def encrypted_docx(directory: Path) -> Hostile:
    return _encrypted_ooxml(directory / "locked.docx")


def encrypted_xlsx(directory: Path) -> Hostile:
    return _encrypted_ooxml(directory / "locked.xlsx")


def encrypted_epub(directory: Path) -> Hostile:
    """Every member but "mimetype" flagged encrypted (the data itself is left readable)."""
    path = directory / "locked.epub"
    write_epub(path, sentences_for(0, "epub"))
    mark_encrypted(path, keep=("mimetype",))
    return Hostile(path, "password")


GENERATORS: dict[str, Callable[[Path], Hostile]] = {
    "truncated_docx": truncated_docx,
    "truncated_pdf": truncated_pdf,
    "truncated_xlsx": truncated_xlsx,
    "random_pdf": random_pdf,
    "random_docx": random_docx,
    "docx_zip_bomb": docx_zip_bomb,
    "xlsx_zip_bomb": xlsx_zip_bomb,
    "epub_entity_bomb": epub_entity_bomb,
    "docx_entity_bomb": docx_entity_bomb,
    "png_bomb": png_bomb,
    "nested_json": nested_json,
    "huge_single_line_text": huge_single_line_text,
    "encrypted_pdf": encrypted_pdf,
    "encrypted_docx": encrypted_docx,
    "encrypted_xlsx": encrypted_xlsx,
    "encrypted_epub": encrypted_epub,
}


def build_hostile(directory: Path) -> dict[str, Hostile]:
    """Every hostile file, by generator name."""
    return {name: generate(directory) for name, generate in GENERATORS.items()}

"""Zip archives written header by header, for the two things ``zipfile`` cannot do: store
already-deflated data (a 1 GiB member deflated once per MiB and repeated, instead of 1 GiB
run through zlib) and mark members encrypted without a cipher.

A deflate stream may be cut into byte-aligned pieces with a full flush; a piece compressed
after a full flush refers to nothing before it, so repeating it repeats its output.
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

_LOCAL = struct.Struct("<IHHHHHIIIHH")
_CENTRAL = struct.Struct("<IHHHHHHIIIHHHHHII")
_END = struct.Struct("<IHHHHIIH")
_VERSION = 20
_DEFLATED = 8
# 2026-01-01 00:00 in MS-DOS date format.
_DOS_DATE = ((2026 - 1980) << 9) | (1 << 5) | 1
_ENCRYPTED_FLAG = 0x1


@dataclass(frozen=True)
class RawMember:
    name: str
    # Raw deflate data in pieces: (bytes, how many times it repeats).
    pieces: tuple[tuple[bytes, int], ...]
    crc: int
    size: int

    @property
    def compressed_size(self) -> int:
        return sum(len(piece) * count for piece, count in self.pieces)

    def chunks(self) -> Iterator[bytes]:
        for piece, count in self.pieces:
            for _ in range(count):
                yield piece


def _deflate(data: bytes, *, final: bool) -> bytes:
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    return compressor.compress(data) + compressor.flush(
        zlib.Z_FINISH if final else zlib.Z_FULL_FLUSH
    )


def deflated(name: str, data: bytes) -> RawMember:
    return RawMember(name, ((_deflate(data, final=True), 1),), zlib.crc32(data), len(data))


def repeated(name: str, head: bytes, filler: bytes, count: int, tail: bytes) -> RawMember:
    """``head + filler * count + tail``, deflating ``filler`` only once."""
    crc = zlib.crc32(head)
    for _ in range(count):
        crc = zlib.crc32(filler, crc)
    crc = zlib.crc32(tail, crc)
    pieces = (
        (_deflate(head, final=False), 1),
        (_deflate(filler, final=False), count),
        (_deflate(tail, final=True), 1),
    )
    return RawMember(name, pieces, crc, len(head) + len(filler) * count + len(tail))


def write_zip(path: Path, members: Sequence[RawMember]) -> None:
    """A plain zip (no zip64: every member and the archive stay under 4 GiB)."""
    central: list[bytes] = []
    with path.open("wb") as out:
        for member in members:
            offset = out.tell()
            name = member.name.encode("utf-8")
            fields = (_DEFLATED, 0, _DOS_DATE, member.crc, member.compressed_size, member.size)
            out.write(_LOCAL.pack(0x04034B50, _VERSION, 0, *fields, len(name), 0) + name)
            for chunk in member.chunks():
                out.write(chunk)
            central.append(
                _CENTRAL.pack(
                    0x02014B50, _VERSION, _VERSION, 0, *fields, len(name), 0, 0, 0, 0, 0, offset
                )
                + name
            )
        start = out.tell()
        directory = b"".join(central)
        out.write(directory)
        out.write(_END.pack(0x06054B50, 0, 0, len(central), len(central), len(directory), start, 0))


def mark_encrypted(path: Path, keep: Sequence[str] = ()) -> None:
    """Set the "encrypted" flag of every member but ``keep`` in both the central directory
    and the local headers; the data stays as it was (a reader must refuse before reading it)."""
    data = bytearray(path.read_bytes())
    end = data.rfind(b"PK\x05\x06")
    _, _, _, _, entries, _, position, _ = _END.unpack_from(data, end)
    for _ in range(entries):
        entry = _CENTRAL.unpack_from(data, position)
        name_length, extra_length, comment_length = entry[10:13]
        local = entry[16]
        name = bytes(data[position + _CENTRAL.size : position + _CENTRAL.size + name_length])
        if name.decode("utf-8") not in keep:
            # The flag word sits at byte 8 of a central entry and byte 6 of a local header.
            data[position + 8] |= _ENCRYPTED_FLAG
            data[local + 6] |= _ENCRYPTED_FLAG
        position += _CENTRAL.size + name_length + extra_length + comment_length
    path.write_bytes(bytes(data))

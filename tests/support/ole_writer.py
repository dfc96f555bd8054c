"""A minimal OLE compound file (CFB version 3) writer: olefile only reads them.

Enough for hostile inputs: a password-protected Office Open XML file is such a container
holding "EncryptionInfo" and "EncryptedPackage" streams. Every stream is padded (with NUL bytes) to
the 4096-byte mini-stream cutoff so all live in regular 512-byte sectors (no mini FAT), and the
whole file fits the 128 sectors one FAT sector maps.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from pathlib import Path

_SECTOR = 512
_MINI_CUTOFF = 4096
_MAGIC = b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1"
_FREE, _END_OF_CHAIN, _FAT_SECTOR, _NO_STREAM = 0xFFFFFFFF, 0xFFFFFFFE, 0xFFFFFFFD, 0xFFFFFFFF
_STORAGE_ROOT, _STREAM = 5, 2
_RED, _BLACK = 0, 1
_ENTRY = struct.Struct("<64sHBBIII16sIQQIQ")
_ENTRIES_PER_SECTOR = _SECTOR // _ENTRY.size


def _entry(
    name: str, kind: int, color: int, right: int, child: int, start: int, size: int
) -> bytes:
    encoded = (name + "\0").encode("utf-16-le")
    return _ENTRY.pack(
        encoded,
        len(encoded),
        kind,
        color,
        _NO_STREAM,
        right,
        child,
        b"\0" * 16,
        0,
        0,
        0,
        start,
        size,
    )


def _empty_entry() -> bytes:
    return _ENTRY.pack(b"", 0, 0, 0, _NO_STREAM, _NO_STREAM, _NO_STREAM, b"\0" * 16, 0, 0, 0, 0, 0)


def _sectors(data: bytes) -> int:
    return -(-len(data) // _SECTOR)


def write_ole(path: Path, streams: Mapping[str, bytes]) -> None:
    # Siblings must be ordered by name length, then upper-cased name. A right-leaning chain
    # ending in a red node is a valid red-black tree for up to two streams, which is all
    # the hostile files need; readers only walk the links.
    names = sorted(streams, key=lambda n: (len(n), n.upper()))
    data = {n: streams[n].ljust(_MINI_CUTOFF, b"\0") for n in names}
    directory_sectors = -(-(len(names) + 1) // _ENTRIES_PER_SECTOR)
    next_sector = 1 + directory_sectors  # sector 0 is the FAT
    fat = [_FAT_SECTOR]
    fat += [*range(2, 1 + directory_sectors), _END_OF_CHAIN]
    entries = [_entry("Root Entry", _STORAGE_ROOT, _BLACK, _NO_STREAM, 1, _END_OF_CHAIN, 0)]
    for index, name in enumerate(names, start=1):
        count = _sectors(data[name])
        fat += [*range(next_sector + 1, next_sector + count), _END_OF_CHAIN]
        last = index == len(names)
        entries.append(
            _entry(
                name,
                _STREAM,
                _RED if last and index > 1 else _BLACK,
                _NO_STREAM if last else index + 1,
                _NO_STREAM,
                next_sector,
                len(data[name]),
            )
        )
        next_sector += count
    if len(fat) > _SECTOR // 4:
        raise ValueError("the streams are too large for a single-FAT-sector compound file")
    entries += [_empty_entry()] * (directory_sectors * _ENTRIES_PER_SECTOR - len(entries))
    header = (
        _MAGIC
        + b"\0" * 16
        + struct.pack(
            "<HHHHH6sIIIIIIIII",
            0x3E,
            3,
            0xFFFE,
            9,
            6,
            b"",
            0,
            1,
            1,
            0,
            _MINI_CUTOFF,
            _END_OF_CHAIN,
            0,
            _END_OF_CHAIN,
            0,
        )
        + struct.pack("<109I", 0, *([_FREE] * 108))
    )
    with path.open("wb") as out:
        out.write(header)
        out.write(struct.pack(f"<{_SECTOR // 4}I", *fat, *([_FREE] * (_SECTOR // 4 - len(fat)))))
        out.write(b"".join(entries))
        for name in names:
            out.write(data[name].ljust(_sectors(data[name]) * _SECTOR, b"\0"))

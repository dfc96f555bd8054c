"""The first bytes of MP3 data: a leading ID3v2 tag and an MPEG audio frame header.

Both the sniffer (which type a file really is) and the audio parser (whether a file starts
the way its type should) read them.
"""

from __future__ import annotations


def id3_tag_length(head: bytes) -> int:
    """Bytes taken by a leading ID3v2 tag (0 when there is none)."""
    # Versions 2.2-2.4, and size bytes with the high bit clear: text starting "ID3" is no tag.
    if len(head) < 10 or not head.startswith(b"ID3") or head[3] not in (2, 3, 4):
        return 0
    if any(byte & 0x80 for byte in head[6:10]):
        return 0
    # The size is "syncsafe": four 7-bit groups; a footer flag adds another 10 bytes.
    size = 0
    for byte in head[6:10]:
        size = (size << 7) | (byte & 0x7F)
    footer = 10 if head[5] & 0x10 else 0
    return 10 + size + footer


def is_mpeg_frame_header(head: bytes) -> bool:
    """An MPEG audio frame header: 11 sync bits, then a version and layer that exist."""
    if len(head) < 2 or head[0] != 0xFF or head[1] & 0xE0 != 0xE0:
        return False
    version = (head[1] >> 3) & 0x03
    layer = (head[1] >> 1) & 0x03
    return version != 0x01 and layer != 0x00

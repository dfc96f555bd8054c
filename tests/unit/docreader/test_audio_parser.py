"""Audio files: a loose magic-number check, then a stub and the audio mark for transcription."""

from __future__ import annotations

import struct
import wave
from pathlib import Path

import pytest

from server.docreader.errors import ParseError, UnsupportedFormatError
from server.docreader.parser_contract import ParseOptions, parse_to_document
from server.docreader.parsers.audio import AudioParser


def wav_file(path: Path, seconds: float, rate: int = 8000) -> Path:
    with wave.open(str(path), "wb") as writer:
        writer.setnchannels(1)
        writer.setsampwidth(2)
        writer.setframerate(rate)
        writer.writeframes(b"\x01\x00" * int(seconds * rate))
    return path


def id3_tag(payload_size: int) -> bytes:
    """An ID3v2.4 header announcing ``payload_size`` bytes of frames, then that padding."""
    size = bytes((payload_size >> shift) & 0x7F for shift in (21, 14, 7, 0))
    return b"ID3\x04\x00\x00" + size + b"\x00" * payload_size


MPEG_FRAME = b"\xff\xfb\x90\x64" + b"\x00" * 413  # MPEG-1 layer III, 128 kbit/s, 44.1 kHz
FLAC = b"fLaC" + b"\x80\x00\x00\x22" + b"\x00" * 34
OGG = b"OggS\x00\x02" + b"\x00" * 21 + b"\x01\x1e\x01vorbis" + b"\x00" * 23
M4A = struct.pack(">I", 24) + b"ftypM4A \x00\x00\x02\x00M4A isom" + b"\x00" * 32


def parse(path: Path, name: str | None = None) -> tuple[str, dict[str, str], bool]:
    name = name or path.name
    document = parse_to_document(
        AudioParser(), path, ParseOptions(file_name=name, file_type=name.rsplit(".", 1)[-1])
    )
    return document.markdown, document.metadata, document.is_audio


def test_wav_is_marked_as_audio_with_its_duration(tmp_path: Path) -> None:
    path = wav_file(tmp_path / "meeting.wav", seconds=1.5)

    markdown, metadata, is_audio = parse(path, "Meeting notes.wav")

    assert is_audio
    assert markdown == "[audio: Meeting notes.wav]"
    assert metadata == {"size_bytes": str(path.stat().st_size), "duration_s": "1.500"}


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("plain.mp3", MPEG_FRAME * 3),
        ("tagged.mp3", id3_tag(200) + MPEG_FRAME),
        ("song.flac", FLAC),
        ("tagged.flac", id3_tag(5000) + FLAC),
        ("voice.ogg", OGG),
        ("memo.m4a", M4A),
    ],
)
def test_each_audio_type_passes_on_its_signature(tmp_path: Path, name: str, data: bytes) -> None:
    path = tmp_path / name
    path.write_bytes(data)

    markdown, metadata, is_audio = parse(path)

    assert is_audio
    assert markdown == f"[audio: {name}]"
    assert metadata == {"size_bytes": str(len(data))}


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("fake.mp3", b"ID3 tags are metadata, this is a text file"),
        ("fake.wav", b"RIFF\x24\x00\x00\x00AVI LIST"),
        ("fake.flac", OGG),
        ("fake.ogg", FLAC),
        ("fake.m4a", b"\x00\x00\x00\x18moov" + b"\x00" * 16),
        ("reserved.mp3", b"\xff\xe0\x00\x00"),  # the sync bits, but a reserved layer
        ("empty.wav", b""),
    ],
)
def test_a_wrong_signature_is_a_parse_error(tmp_path: Path, name: str, data: bytes) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    kind = name.rsplit(".", 1)[-1]

    with pytest.raises(ParseError, match=f"^not a valid {kind} audio file$"):
        parse(path)


def test_a_wav_header_wave_cannot_read_still_passes_without_duration(tmp_path: Path) -> None:
    # IEEE float WAV (format 3): Python's wave module reads only PCM headers.
    fmt = struct.pack("<HHIIHH", 3, 1, 8000, 32000, 4, 32)
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", 0)
    path = tmp_path / "float.wav"
    path.write_bytes(b"RIFF" + struct.pack("<I", len(body)) + body)

    markdown, metadata, is_audio = parse(path)

    assert is_audio and markdown == "[audio: float.wav]"
    assert "duration_s" not in metadata


def test_other_audio_types_are_unsupported(tmp_path: Path) -> None:
    path = tmp_path / "voice.aac"
    path.write_bytes(b"\xff\xf1\x50\x80")

    with pytest.raises(UnsupportedFormatError, match="'aac' is not supported"):
        parse(path)

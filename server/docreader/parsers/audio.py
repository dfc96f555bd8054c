"""Audio files (mp3, wav, m4a, flac, ogg): checked loosely, then handed back for transcription.

The docreader does not decode audio. It checks that the file starts the way its type
should, marks the result as audio (the service then sends the input bytes back and the
worker transcribes them) and writes a one-line Markdown stub. The check is deliberately
loose — a magic number, not a full decode — so any file a player would accept passes.
"""

from __future__ import annotations

import wave
from pathlib import Path

from server.docreader.audio_headers import id3_tag_length, is_mpeg_frame_header
from server.docreader.errors import ParseError, UnsupportedFormatError
from server.docreader.parser_contract import DocumentSink, ParseOptions

# Enough for every signature below and for the header of an ID3 tag in front of them.
_HEAD_BYTES = 64
AUDIO_TYPES = ("mp3", "wav", "m4a", "flac", "ogg")


class AudioParser:
    def parse(self, source: Path, options: ParseOptions, sink: DocumentSink) -> None:
        kind = options.file_type or source.suffix.lstrip(".").lower()
        if kind not in AUDIO_TYPES:
            raise UnsupportedFormatError(
                f"audio type {kind!r} is not supported (supported: {', '.join(AUDIO_TYPES)})"
            )
        try:
            with source.open("rb") as stream:
                head = stream.read(_HEAD_BYTES)
                tag = id3_tag_length(head)
                # What follows a leading ID3 tag, which may be longer than the head.
                stream.seek(tag)
                body = stream.read(4)
            size = source.stat().st_size
        except OSError as err:
            raise ParseError(f"cannot read the {kind} file: {err}") from err
        if not _starts_like(kind, head, tagged=tag > 0, body=body):
            raise ParseError(f"not a valid {kind} audio file")
        sink.mark_audio()
        sink.write(f"[audio: {options.file_name or source.name}]")
        sink.set_metadata("size_bytes", str(size))
        if kind == "wav":
            duration = _wav_duration(source)
            if duration is not None:
                sink.set_metadata("duration_s", f"{duration:.3f}")


def _starts_like(kind: str, head: bytes, *, tagged: bool, body: bytes) -> bool:
    """Whether a file of ``kind`` starts with ``head``; ``body`` follows an ID3 tag if any."""
    if kind == "wav":
        return head[:4] == b"RIFF" and head[8:12] == b"WAVE"
    if kind == "ogg":
        return head.startswith(b"OggS")
    if kind == "m4a":
        return head[4:8] == b"ftyp"
    # Tagging tools may put an ID3v2 tag in front of FLAC as well as MP3 data.
    if kind == "flac":
        return body.startswith(b"fLaC")
    return tagged or is_mpeg_frame_header(head)  # mp3


def _wav_duration(source: Path) -> float | None:
    """Seconds of a PCM WAV from its header; None when the header is not one ``wave`` reads."""
    try:
        with wave.open(str(source), "rb") as reader:
            frames, rate = reader.getnframes(), reader.getframerate()
    except (wave.Error, EOFError, OSError, ValueError):
        return None
    return frames / rate if rate > 0 else None

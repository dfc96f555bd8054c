"""Opens zip containers (docx, xlsx, pptx, epub, xmind) with bomb checks before any read.

The central directory is checked up front (member count, declared sizes, ratios), and every
read is capped at the member's declared size plus one byte, so a member that lies about its
size is caught while it is being inflated, not after.
"""

from __future__ import annotations

import zipfile
from pathlib import Path
from types import TracebackType

from server.docreader.errors import ParseError
from server.docreader.safety.limits import ParseLimits

_READ_BLOCK = 1 << 16


class SafeZip:
    def __init__(self, path: Path, limits: ParseLimits, *, what: str = "file") -> None:
        self._what = what
        self._limits = limits
        try:
            self._zip = zipfile.ZipFile(path)
        except (zipfile.BadZipFile, OSError, ValueError) as err:
            raise ParseError(f"the {what} is not a valid zip container: {err}") from err
        try:
            self._check_directory()
        except BaseException:
            self._zip.close()
            raise

    def __enter__(self) -> SafeZip:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        self._zip.close()

    @property
    def zipfile(self) -> zipfile.ZipFile:
        """The checked archive, for libraries that take a ZipFile or a path."""
        return self._zip

    def names(self) -> list[str]:
        return self._zip.namelist()

    def has(self, name: str) -> bool:
        try:
            self._zip.getinfo(name)
        except KeyError:
            return False
        return True

    def read(self, name: str) -> bytes:
        try:
            info = self._zip.getinfo(name)
        except KeyError as err:
            raise ParseError(f"the {self._what} has no member {name!r}") from err
        limit = min(info.file_size, self._limits.max_member_bytes)
        chunks: list[bytes] = []
        total = 0
        try:
            with self._zip.open(info) as member:
                while True:
                    block = member.read(_READ_BLOCK)
                    if not block:
                        break
                    total += len(block)
                    if total > limit:
                        raise ParseError(
                            f"the {self._what}'s member {name!r} inflates past its declared "
                            f"size of {info.file_size} bytes: a zip bomb"
                        )
                    chunks.append(block)
        except (zipfile.BadZipFile, OSError, EOFError, RuntimeError, ValueError) as err:
            # RuntimeError: an encrypted member; the others: truncated or corrupt data.
            raise ParseError(f"the {self._what}'s member {name!r} is unreadable: {err}") from err
        return b"".join(chunks)

    def _check_directory(self) -> None:
        limits = self._limits
        infos = self._zip.infolist()
        if len(infos) > limits.max_zip_members:
            raise ParseError(
                f"the {self._what} has {len(infos)} zip members, over the limit of "
                f"{limits.max_zip_members}"
            )
        total = 0
        for info in infos:
            if info.flag_bits & 0x1:
                raise ParseError(f"the {self._what} is password-protected (encrypted zip)")
            total += info.file_size
            if info.file_size > limits.max_member_bytes:
                raise ParseError(
                    f"the {self._what}'s member {info.filename!r} unpacks to "
                    f"{info.file_size} bytes, over the {limits.max_member_bytes}-byte limit"
                )
            ratio = info.file_size / max(info.compress_size, 1)
            if info.file_size > (1 << 20) and ratio > limits.max_compression_ratio:
                raise ParseError(
                    f"the {self._what}'s member {info.filename!r} is compressed "
                    f"{ratio:.0f}:1, which only a zip bomb does"
                )
        if total > limits.max_unzipped_bytes:
            raise ParseError(
                f"the {self._what} unpacks to {total} bytes, over the "
                f"{limits.max_unzipped_bytes}-byte limit"
            )

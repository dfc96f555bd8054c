"""EPUB → Markdown: the chapters in reading order, with the images they show.

No ebook library (the usual ones are AGPL): an EPUB is a zip (opened with the bomb checks of
SafeZip) whose ``META-INF/container.xml`` names the package document (OPF); the OPF's
manifest maps item ids to files and its spine lists the chapters in reading order. Each
chapter's whole body goes through the shared HTML converter (a chapter has no site chrome
to guess away, so no main-content choice) and is written as soon as it is converted, with a
blank line between chapters. ``<img>`` and SVG ``<image>`` sources are resolved against the
chapter's own path, read from the zip and emitted once per file.

DRM: an ``encryption.xml`` that encrypts anything but fonts means the text is unreadable, so
the file is refused; font obfuscation (IDPF or Adobe) is not DRM and is ignored.
"""

from __future__ import annotations

import mimetypes
import posixpath
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from server.docreader.errors import ParseError
from server.docreader.html.converter import ImageResolver, html_to_markdown
from server.docreader.html.images import add_image_bytes, data_uri_images
from server.docreader.html.loading import body, parse_xhtml
from server.docreader.image_collector import ImageCollector
from server.docreader.parser_contract import DocumentSink, ParseOptions
from server.docreader.safety.xml import parse_xml
from server.docreader.safety.zip_guard import SafeZip

_CONTAINER = "META-INF/container.xml"
_ENCRYPTION = "META-INF/encryption.xml"
_FONT_OBFUSCATION = frozenset(
    {
        "http://www.idpf.org/2008/embedding",
        "http://ns.adobe.com/pdf/enc#RC",
    }
)
_CHAPTER_TYPES = frozenset({"application/xhtml+xml", "text/html", "application/xhtml"})


@dataclass
class _Package:
    spine: list[str] = field(default_factory=list)  # chapter paths, in reading order
    media_types: dict[str, str] = field(default_factory=dict)  # zip path → media type
    metadata: dict[str, str] = field(default_factory=dict)


class EpubParser:
    def parse(self, source: Path, options: ParseOptions, sink: DocumentSink) -> None:
        with SafeZip(source, options.limits, what="EPUB") as archive:
            _refuse_drm(archive)
            package = _read_package(archive)
            collector = ImageCollector()
            images = _ChapterImages(archive, package.media_types, collector)
            chapters = emitted = 0
            separator = ""
            for path in package.spine:
                if not archive.has(path):  # a dangling spine entry: read the rest
                    continue
                chapter = body(parse_xhtml(archive.read(path)))
                markdown = html_to_markdown(chapter, images.resolver(path))
                chapters += 1
                if markdown:
                    sink.write(separator + markdown)
                    separator = "\n\n"
                for image in collector.images[emitted:]:
                    sink.add_image(image)
                emitted = len(collector.images)
        if not chapters:
            raise ParseError("the EPUB has no readable chapters in its spine")
        for key, value in package.metadata.items():
            sink.set_metadata(key, value)
        sink.set_metadata("chapter_count", str(chapters))


class _ChapterImages:
    """Image sources of a chapter → refs; each zip member is read and emitted once."""

    def __init__(
        self, archive: SafeZip, media_types: dict[str, str], collector: ImageCollector
    ) -> None:
        self._archive = archive
        self._media_types = media_types
        self._collector = collector
        self._refs: dict[str, str | None] = {}

    def resolver(self, chapter: str) -> ImageResolver:
        folder = posixpath.dirname(chapter)

        def member(source: str) -> str | None:
            if "://" in source or source.startswith("//"):
                return source  # a remote image stays a link
            return self._member_ref(_join(folder, source))

        return data_uri_images(self._collector, member)

    def _member_ref(self, path: str) -> str | None:
        if path in self._refs:
            return self._refs[path]
        ref = None
        if self._archive.has(path):
            media_type = self._media_types.get(path) or mimetypes.guess_type(path)[0] or ""
            ref = add_image_bytes(self._collector, self._archive.read(path), media_type)
        self._refs[path] = ref
        return ref


def _refuse_drm(archive: SafeZip) -> None:
    if not archive.has(_ENCRYPTION):
        return
    encryption = parse_xml(archive.read(_ENCRYPTION), what="EPUB encryption.xml")
    for method in encryption.iter("{*}EncryptionMethod"):
        if str(method.get("Algorithm", "")) not in _FONT_OBFUSCATION:
            raise ParseError("the EPUB is DRM-protected: its content is encrypted")


def _read_package(archive: SafeZip) -> _Package:
    opf_path = _package_path(archive)
    opf = parse_xml(archive.read(opf_path), what="EPUB package document")
    folder = posixpath.dirname(opf_path)
    package = _Package()
    items: dict[str, str] = {}
    manifest = opf.find("{*}manifest")
    for item in [] if manifest is None else manifest.iterchildren("{*}item"):
        href = item.get("href")
        if not href:
            continue
        path = _join(folder, href)
        items[str(item.get("id", ""))] = path
        package.media_types[path] = str(item.get("media-type", "")).lower()
    spine = opf.find("{*}spine")
    for itemref in [] if spine is None else spine.iterchildren("{*}itemref"):
        chapter = items.get(str(itemref.get("idref", "")))
        if chapter is not None and package.media_types.get(chapter) in _CHAPTER_TYPES:
            package.spine.append(chapter)
    package.metadata = _package_metadata(opf)
    return package


def _package_path(archive: SafeZip) -> str:
    if archive.has(_CONTAINER):
        container = parse_xml(archive.read(_CONTAINER), what="EPUB container.xml")
        for rootfile in container.iter("{*}rootfile"):
            path = rootfile.get("full-path")
            if path:
                return str(path)
    # A container.xml is mandatory, but readers accept a lone package document too.
    for name in archive.names():
        if name.lower().endswith(".opf"):
            return name
    raise ParseError("the EPUB has no package document (no container.xml, no .opf file)")


def _package_metadata(opf: Any) -> dict[str, str]:
    metadata: dict[str, str] = {}
    block = opf.find("{*}metadata")
    if block is None:
        return metadata
    for key in ("title", "creator", "language"):
        values = [" ".join("".join(e.itertext()).split()) for e in block.iter(f"{{*}}{key}")]
        values = [value for value in values if value]
        if values:
            metadata[key] = values[0] if key != "creator" else "; ".join(values)
    return metadata


def _join(folder: str, href: str) -> str:
    """A zip path for ``href`` as written in a file inside ``folder`` (URL-decoded, without
    fragment or query)."""
    href = unquote(href.split("#", 1)[0].split("?", 1)[0])
    return posixpath.normpath(posixpath.join(folder, href)).lstrip("/")

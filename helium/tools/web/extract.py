"""Main text and metadata (title, author, date) of a fetched page, and its text cut into chunks.

HTML goes through trafilatura; plain text is kept as it is; PDF text comes from pypdf.
"""

from __future__ import annotations

import io
import re
import threading
from dataclasses import dataclass

from lxml import html as lxml_html

CHUNK_CHARS = 700
CHUNK_OVERLAP = 1
"""Sentences carried over from one chunk into the next, so a claim at a boundary is whole in one."""

_LXML_LOCK = threading.Lock()
"""One HTML extraction at a time in the process: trafilatura's lxml work (deep copies and XPath over
one tree) run from several threads at once corrupts libxml2's heap and kills the process
(SIGSEGV / "double free"), and the research fetch fan-out extracts from many threads."""


@dataclass(frozen=True)
class ExtractedPage:
    title: str
    author: str | None
    date: str | None
    text: str


class NoMainText(Exception):
    """The page has no text worth reading (an empty shell, a script-only page, an unreadable PDF)."""


def extract_page(body: bytes, url: str, content_type: str) -> ExtractedPage:
    if content_type == "application/pdf":
        return _extract_pdf(body)
    text = body.decode(_charset(body), errors="replace")
    if content_type == "text/plain":
        lines = text.strip().splitlines()
        if not lines:
            raise NoMainText("the page is empty")
        return ExtractedPage(lines[0][:200], None, None, text.strip())
    import trafilatura  # 0.1 s to import: loaded by the first page, not by every command that lists the flows

    with _LXML_LOCK:
        document = trafilatura.bare_extraction(text, url=url, with_metadata=True, include_comments=False,
                                               include_tables=True, favor_recall=True,
                                               date_extraction_params={"extensive_search": False,
                                                                       "original_date": True})
        title = _head_title(text)
    if document is None or not (document.text or "").strip():
        raise NoMainText("no main text found in the page")
    return ExtractedPage(title or document.title or url, document.author or None,
                         document.date or None, document.text.strip())


def _head_title(text: str) -> str | None:
    """The page's own `<title>`: trafilatura's guess picks hidden headings on some sites (mdBook's
    "Keyboard shortcuts" dialog)."""
    try:
        found = lxml_html.fromstring(text[:200_000]).findtext(".//title")
    except (ValueError, lxml_html.etree.ParserError):
        return None
    return " ".join(found.split()) if found and found.strip() else None


def _charset(body: bytes) -> str:
    match = re.search(rb"""charset=["']?([A-Za-z0-9_-]+)""", body[:2048])
    name = match.group(1).decode() if match else "utf-8"
    try:
        "".encode(name)
    except LookupError:
        return "utf-8"
    return name


def _extract_pdf(body: bytes) -> ExtractedPage:
    from pypdf import PdfReader  # 0.14 s to import: loaded by the first PDF only
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(body))
        text = "\n".join(page.extract_text() or "" for page in reader.pages).strip()
        meta = reader.metadata
    except (PdfReadError, ValueError, OSError) as exc:
        raise NoMainText(f"unreadable PDF ({exc})") from None
    if not text:
        raise NoMainText("the PDF has no text layer")
    title = (meta.title if meta and meta.title else text.splitlines()[0])[:200]
    author = meta.author if meta and meta.author else None
    date = meta.creation_date.date().isoformat() if meta and meta.creation_date else None
    return ExtractedPage(title, author, date, text)


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"'(\[]?[A-Z0-9])")


def split_sentences(text: str) -> list[str]:
    """Sentences of prose, split on end punctuation followed by a capital (good enough for evidence)."""
    return [s.strip() for s in _SENTENCE_END.split(" ".join(text.split())) if s.strip()]


def chunk_text(text: str, size: int = CHUNK_CHARS) -> list[str]:
    """Paragraph-aware chunks of at most `size` characters; sentences are not cut unless one alone is
    longer than `size` (a table, a code listing), and each chunk starts with the last sentence of the one
    before."""
    sentences = [piece for paragraph in re.split(r"\n\s*\n|\n(?=\S)", text)
                 for sentence in split_sentences(paragraph) for piece in _pieces(sentence, size)]
    chunks: list[str] = []
    current: list[str] = []
    carried: list[str] = []
    for sentence in sentences:
        if current and sum(len(s) + 1 for s in current) + len(sentence) > size:
            chunks.append(" ".join(current))
            carried = current[-CHUNK_OVERLAP:] if CHUNK_OVERLAP else []
            if sum(len(s) + 1 for s in carried) + len(sentence) > size:
                carried = []  # the overlap would push the chunk past `size`
            current = list(carried)
        current.append(sentence)
    if len(current) > len(carried):  # something not already in the chunk before
        chunks.append(" ".join(current))
    return chunks


def _pieces(sentence: str, size: int) -> list[str]:
    """A sentence longer than `size` cut between words into pieces that fit: the embedding model reads
    only the first ~256 tokens of a text, so the rest of an oversized chunk could never be found."""
    if len(sentence) <= size:
        return [sentence]
    pieces: list[str] = []
    current = ""
    for word in sentence.split(" "):
        while len(word) > size:  # one "word" longer than a chunk (a URL, base64): cut it as it is
            if current:
                pieces.append(current)
                current = ""
            pieces.append(word[:size])
            word = word[size:]
        if current and len(current) + 1 + len(word) > size:
            pieces.append(current)
            current = ""
        current = f"{current} {word}" if current else word
    if current:
        pieces.append(current)
    return pieces

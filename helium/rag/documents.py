"""Reading files for the index: what kind a file is, its text, and its chunks; or why it was skipped.

Text, Markdown and source code are cited by the lines of the file itself.  HTML is reduced to its
main text by trafilatura (as Markdown, so its headings still cut chunks) and cited by the lines of
that extracted text.  PDFs are read page by page with pypdf and cited by page numbers (`file.pdf:p3`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from helium.rag.chunking import Chunk, chunk_code, chunk_markdown, chunk_plain, chunk_python

Unit = Literal["line", "page"]
MAX_FILE_BYTES = 10 * 1024 * 1024
MARKDOWN_SUFFIXES = frozenset({".md", ".markdown", ".mdx"})
HTML_SUFFIXES = frozenset({".html", ".htm", ".xhtml"})
PYTHON_SUFFIXES = frozenset({".py", ".pyi"})
CODE_SUFFIXES = frozenset({
    ".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".go", ".rs", ".java", ".kt", ".kts", ".scala", ".c", ".h",
    ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".cs", ".swift", ".rb", ".php", ".lua", ".sh", ".bash", ".zsh", ".pl",
    ".r", ".jl", ".dart", ".m", ".sql", ".ex", ".exs", ".erl", ".hs", ".ml", ".clj", ".groovy", ".ps1", ".vue",
})


class Skipped(Exception):
    """A file that cannot be indexed; the message is the reason shown to the user."""


@dataclass(frozen=True)
class Document:
    """A file as the index holds it: its kind, what its citations count (lines or pages) and its chunks."""

    kind: str
    """text, markdown, python, code, html or pdf."""
    unit: Unit
    extent: int
    """How many lines (pages for PDFs) citations may point into."""
    chunks: list[Chunk]


def kind_of(path: Path) -> str:
    """The kind decides the reader and the chunker; it goes by the file's suffix (anything else is text)."""
    suffix = path.suffix.lower()
    if suffix in MARKDOWN_SUFFIXES:
        return "markdown"
    if suffix in HTML_SUFFIXES:
        return "html"
    if suffix == ".pdf":
        return "pdf"
    if suffix in PYTHON_SUFFIXES:
        return "python"
    if suffix in CODE_SUFFIXES:
        return "code"
    return "text"


def load_document(path: Path, data: bytes) -> Document:
    """Chunk a file's bytes by its kind; raises `Skipped` with the reason when it cannot be indexed."""
    if not data.strip():
        raise Skipped("empty file")
    kind = kind_of(path)
    if kind == "pdf":
        return _pdf_document(path)
    text = _decode(data)
    if kind == "html":
        return _html_document(text)
    lines = text.splitlines()
    chunker = {"markdown": chunk_markdown, "python": chunk_python, "code": chunk_code}.get(kind, chunk_plain)
    return Document(kind, "line", len(lines), chunker(lines))


def read_bytes(path: Path) -> bytes:
    """The file's bytes, or `Skipped` naming why they cannot be read."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise Skipped(f"too large ({size / 1e6:.1f} MB; the limit is {MAX_FILE_BYTES // 2**20} MB)")
        return path.read_bytes()
    except PermissionError:
        raise Skipped("cannot be read: permission denied") from None
    except FileNotFoundError:
        raise Skipped("cannot be read: it vanished or is a broken link") from None
    except OSError as exc:
        raise Skipped(f"cannot be read: {exc.strerror or exc}") from None


def _decode(data: bytes) -> str:
    if b"\0" in data[:8192]:
        raise Skipped("binary file")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise Skipped("binary file (not UTF-8 text)") from None


def _html_document(html: str) -> Document:
    import trafilatura  # a second of imports, paid only when an HTML file is indexed

    text = trafilatura.extract(html, output_format="markdown", include_tables=True, favor_recall=True)
    if not text or not text.strip():
        raise Skipped("HTML without main text to extract")
    lines = text.splitlines()
    return Document("html", "line", len(lines), chunk_markdown(lines))


def _pdf_document(path: Path) -> Document:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(path)
        if reader.is_encrypted and not reader.decrypt(""):
            raise Skipped("encrypted PDF")
        pages = [page.extract_text() or "" for page in reader.pages]
    except Skipped:
        raise
    except (PdfReadError, ValueError, KeyError, TypeError, OSError) as exc:
        raise Skipped(f"unreadable PDF ({exc})") from None
    chunks = _page_chunks(pages)
    if not chunks:
        raise Skipped("PDF without extractable text (scanned images?)")
    return Document("pdf", "page", len(pages), chunks)


def _page_chunks(pages: Sequence[str]) -> list[Chunk]:
    """Each page is chunked as prose; its chunks are cited by the page number."""
    return [Chunk(chunk.text, number, number, f"page {number}")
            for number, text in enumerate(pages, 1) for chunk in chunk_plain(text.splitlines())]

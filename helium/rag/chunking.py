"""Chunking: split a document's lines into passages that follow its structure, each with an exact line range.

Markdown is cut at headings (outside fenced code), Python at top-level definitions (found with `ast`;
an oversized class is cut again at its methods), other source code at top-level declarations found at
column 0 (with the comments and decorators just above them), and everything else at blank lines.
Any piece still too large for the embedding model is cut into line windows, preferring blank lines.
Line numbers are 1-based and inclusive; leading and trailing blank lines are never part of a chunk.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from dataclasses import dataclass

MAX_CHUNK_CHARS = 1000
"""all-MiniLM-L6-v2 reads 256 word pieces (about 1000 characters of prose, fewer of code) and ignores the rest;
1000 rather than 1500 raised recall@1 from 67% to 76% in benchmarks/rag.py."""
MAX_CHUNK_LINES = 60
SMALL_CHUNK_CHARS = 300
"""Neighbouring code pieces smaller than this (imports, one-line helpers) are merged."""

_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)[ \t#]*$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_SUMMARY = re.compile(r"^\s*<summary>(.+?)</summary>\s*$", re.IGNORECASE)
_DETAILS = re.compile(r"^\s*<details\b[^>]*>\s*$", re.IGNORECASE)
SUMMARY_LEVEL = 7
"""Below every `#` level, so neighbouring <details> sections are siblings under the heading they sit in."""
_DECLARATION = re.compile(
    r"^(?:export\s+(?:default\s+)?)?(?:async\s+)?"
    r"(?:function\b|class\b|interface\b|type\b|enum\b|const\b|let\b|var\b|struct\b|impl\b|trait\b|mod\b|fn\b|"
    r"func\b|def\b|module\b|package\b|namespace\b|template\b|public\b|private\b|protected\b|internal\b|static\b|"
    r"abstract\b|final\b|sealed\b|pub\b|unsafe\b|extern\b|typedef\b|union\b|object\b|"
    r"[A-Za-z_][\w\s\*&:<>,]*\b[A-Za-z_]\w*\s*\([^;]*$)"  # a C-like function definition: `int main(void)`
)
_LEADING_COMMENT = re.compile(r"^\s*(?://|/\*|\*|#|@|--|;)")


@dataclass(frozen=True)
class Chunk:
    """One passage: its text, the first and last line it spans (1-based, inclusive) and where it sits."""

    text: str
    start: int
    end: int
    section: str = ""
    """The heading path (`Install > Linux`) or the definition (`class Parser`) the chunk belongs to."""


@dataclass(frozen=True)
class _Piece:
    start: int
    end: int
    section: str


def chunk_markdown(lines: Sequence[str]) -> list[Chunk]:
    """A chunk per heading section (with its heading path); a heading with no text of its own joins the next.

    An ATX heading (`## Title`) counts after a blank line or another heading: a `#` line inside a
    paragraph (`#include`, extracted HTML) is text.  A collapsible `<details><summary>Title</summary>`
    block, common in READMEs, is a section below the current heading."""
    pieces: list[_Piece] = []
    trail: list[tuple[int, str]] = []
    heading_lines: set[int] = set()
    start, section, in_fence, last_heading = 1, "", False, 0
    for number, line in enumerate(lines, 1):
        if _FENCE.match(line):
            in_fence = not in_fence
            continue
        found = None if in_fence else _heading(lines, number, last_heading)
        if found is None:
            continue
        level, title, begins = found
        last_heading = number
        if _has_text(lines, start, begins - 1, heading_lines):
            pieces.append(_Piece(start, begins - 1, section))
            start = begins
        heading_lines.update(range(begins, number + 1))
        trail = [*(t for t in trail if t[0] < level), (level, title)]
        section = " > ".join(t for _, t in trail)
    pieces.append(_Piece(start, len(lines), section))
    return _split(lines, pieces)


def _heading(lines: Sequence[str], number: int, last_heading: int) -> tuple[int, str, int] | None:
    """(level, title, first line) of a heading at line `number`, or None."""
    line, previous = lines[number - 1], lines[number - 2] if number > 1 else ""
    summary = _SUMMARY.match(line)
    if summary:
        begins = number - 1 if _DETAILS.match(previous) else number
        return SUMMARY_LEVEL, re.sub(r"<[^>]+>", "", summary.group(1)).strip(), begins
    after_break = number == 1 or not previous.strip() or last_heading == number - 1
    atx = _HEADING.match(line) if after_break else None
    return (len(atx.group(1)), atx.group(2).strip(), number) if atx else None


def chunk_python(lines: Sequence[str]) -> list[Chunk]:
    """A chunk per top-level function or class (decorators and comments above included), the statements
    between them in chunks of their own; code that does not parse is chunked as generic source."""
    try:
        tree = ast.parse("\n".join(lines))
    except (SyntaxError, ValueError):
        return chunk_code(lines)
    return _split(lines, _merge_small(lines, _python_pieces(lines, tree.body, 1, len(lines), "")))


def chunk_code(lines: Sequence[str]) -> list[Chunk]:
    """Source in other languages: a chunk per top-level declaration, found by its shape at column 0."""
    starts = [n for n, line in enumerate(lines, 1) if _DECLARATION.match(line)]
    starts = sorted({_with_leading_comments(lines, n) for n in starts} | {1})
    pieces = [_Piece(begin, end - 1, _declaration_name(lines, begin))
              for begin, end in zip(starts, [*starts[1:], len(lines) + 1], strict=True)]
    return _split(lines, _merge_small(lines, pieces))


def chunk_plain(lines: Sequence[str]) -> list[Chunk]:
    """Prose: windows of whole paragraphs."""
    return _split(lines, [_Piece(1, len(lines), "")])


def _python_pieces(lines: Sequence[str], body: list[ast.stmt], first: int, last: int, owner: str) -> list[_Piece]:
    pieces: list[_Piece] = []
    cursor = first
    for node in body:
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        begin = _with_leading_comments(lines, min([node.lineno, *(d.lineno for d in node.decorator_list)]))
        begin = max(begin, cursor)
        end = node.end_lineno or node.lineno
        if begin > cursor:
            pieces.append(_Piece(cursor, begin - 1, owner))
        kind = "class" if isinstance(node, ast.ClassDef) else "def"
        name = f"{owner.split(' ')[-1]}.{node.name}" if owner else f"{kind} {node.name}"
        if isinstance(node, ast.ClassDef) and _size(lines, begin, end) > MAX_CHUNK_CHARS:
            pieces.extend(_merge_small(lines, _python_pieces(lines, node.body, begin, end, name)))
        else:
            pieces.append(_Piece(begin, end, name))
        cursor = end + 1
    if cursor <= last:
        pieces.append(_Piece(cursor, last, owner))
    return pieces


def _with_leading_comments(lines: Sequence[str], number: int) -> int:
    """Move a declaration's first line up over the comment, doc-comment or decorator lines right above it."""
    while number > 1 and lines[number - 2].strip() and _LEADING_COMMENT.match(lines[number - 2]):
        number -= 1
    return number


def _declaration_name(lines: Sequence[str], start: int) -> str:
    for line in lines[start - 1:]:
        if _DECLARATION.match(line):
            text = line.strip().rstrip("{").strip()
            return text if len(text) <= 60 else text[:59] + "…"
    return ""


def _merge_small(lines: Sequence[str], pieces: list[_Piece]) -> list[_Piece]:
    """Join neighbours while both are small, so a run of imports or one-line helpers is one chunk."""
    merged: list[_Piece] = []
    for piece in pieces:
        if not _has_text(lines, piece.start, piece.end):
            continue
        if merged:
            last = merged[-1]
            small = _size(lines, last.start, last.end) < SMALL_CHUNK_CHARS \
                and _size(lines, piece.start, piece.end) < SMALL_CHUNK_CHARS
            if small and _size(lines, last.start, piece.end) <= MAX_CHUNK_CHARS:
                names = ", ".join(dict.fromkeys(s for s in (last.section, piece.section) if s))
                merged[-1] = _Piece(last.start, piece.end, names if len(names) <= 80 else names[:79] + "…")
                continue
        merged.append(piece)
    return merged


def _split(lines: Sequence[str], pieces: list[_Piece]) -> list[Chunk]:
    """Trim blank edges and cut oversized pieces into windows, preferring to cut after a blank line."""
    chunks: list[Chunk] = []
    for piece in pieces:
        start, end = _trimmed(lines, piece.start, piece.end)
        if start > end:
            continue
        chunks.extend(_windows(lines, start, end, piece.section))
    return chunks


def _windows(lines: Sequence[str], start: int, end: int, section: str) -> list[Chunk]:
    windows: list[Chunk] = []
    begin = start
    while begin <= end:
        stop, size, last_blank = begin, 0, 0
        while stop <= end:
            size += len(lines[stop - 1]) + 1
            if stop > begin and (size > MAX_CHUNK_CHARS or stop - begin >= MAX_CHUNK_LINES):
                break
            if not lines[stop - 1].strip():
                last_blank = stop
            stop += 1
        cut = stop - 1
        if stop <= end and last_blank > begin + (cut - begin) // 2:
            cut = last_blank
        first, last = _trimmed(lines, begin, cut)
        if first <= last:
            windows.extend(_long_line_pieces(lines, first, last, section))
        begin = cut + 1
    return windows


def _long_line_pieces(lines: Sequence[str], start: int, end: int, section: str) -> list[Chunk]:
    """A window is normally its lines; a single over-long line (minified code) is cut into slices of itself."""
    text = "\n".join(lines[start - 1:end])
    if len(text) <= MAX_CHUNK_CHARS:
        return [Chunk(text, start, end, section)]
    return [Chunk(text[i:i + MAX_CHUNK_CHARS], start, end, section) for i in range(0, len(text), MAX_CHUNK_CHARS)]


def _trimmed(lines: Sequence[str], start: int, end: int) -> tuple[int, int]:
    while start <= end and not lines[start - 1].strip():
        start += 1
    while end >= start and not lines[end - 1].strip():
        end -= 1
    return start, end


def _has_text(lines: Sequence[str], start: int, end: int, ignored: set[int] | None = None) -> bool:
    return any(line.strip() for number, line in enumerate(lines[max(start, 1) - 1:end], max(start, 1))
               if number not in (ignored or ()))


def _size(lines: Sequence[str], start: int, end: int) -> int:
    return sum(len(line) + 1 for line in lines[start - 1:end])

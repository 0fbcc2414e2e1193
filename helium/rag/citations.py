"""Citations in answers: find every `file:start-end` (or `file.pdf:p3`) and check it names a real range.

A citation is real when its file is in the index and its range lies within the file's lines (its
pages, for a PDF) as they were indexed.  Anything else is flagged in the answer text, so a made-up
source never passes as a checked one.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass
from typing import Any

from helium.errors import HeliumError
from helium.rag.catalog import FileCatalog

_CITATION = re.compile(r"(?<![\w.@/:-])(?P<path>[\w~.\-/]+):(?P<page>p)?(?P<start>\d+)(?:[-–](?P<end>p?\d+))?")
INVALID_MARK = " (invalid citation)"


@dataclass(frozen=True)
class Citation:
    """One `path:range` found in an answer; `reason` says why it is not a real range when `valid` is false."""

    label: str
    path: str
    start: int
    end: int
    unit: str
    valid: bool
    reason: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def find_citations(text: str, catalog: FileCatalog) -> list[Citation]:
    """Every citation-shaped `path:range` in `text` (a path needs a `.` or `/`), each checked once."""
    found: dict[str, Citation] = {}
    for match in _CITATION.finditer(text):
        path = match["path"].removeprefix("./")
        if not ("." in path or "/" in path) or path.endswith("."):
            continue
        label = match.group(0)
        if label not in found:
            start = int(match["start"])
            end = int((match["end"] or str(start)).lstrip("p"))
            unit = "page" if match["page"] else "line"
            found[label] = _checked(label, path, start, end, unit, catalog)
    return list(found.values())


def parse_citation(text: str, catalog: FileCatalog) -> Citation:
    """The one citation `text` is (`docs/guide.md:12-30`, `manual.pdf:p3`), checked; or a HeliumError."""
    found = find_citations(text.strip(), catalog)
    if not found or found[0].label != text.strip():
        raise HeliumError(f"{text!r} is not a citation: write it as path:start-end, or file.pdf:pN for pages")
    if not found[0].valid:
        raise HeliumError(f"{found[0].label} is not a real range: {found[0].reason}")
    return found[0]


def flag_invalid(text: str, citations: list[Citation]) -> str:
    """The text with every invalid citation marked where it stands."""
    bad = {c.label for c in citations if not c.valid}
    if not bad:
        return text
    return _CITATION.sub(lambda m: m.group(0) + INVALID_MARK if m.group(0) in bad else m.group(0), text)


def _checked(label: str, path: str, start: int, end: int, unit: str, catalog: FileCatalog) -> Citation:
    entry = catalog.get(path)
    reason = ""
    if entry is None:
        reason = f"{path} is not an indexed file"
    elif entry.unit != unit:
        reason = f"{path} is cited by {entry.unit}s ({'file.pdf:p3' if entry.unit == 'page' else 'file:12-30'})"
    elif not 1 <= start <= end <= entry.extent:
        reason = f"{path} has {entry.extent} {entry.unit}s; {start}-{end} is not a range of it"
    return Citation(label, path, start, end, unit, not reason, reason)

"""`@path` mentions in a chat message: index the files they name and put the relevant chunks into the turn.

`explain @src/app.py`, `compare @docs/*.md` or `@notes/`: a mention starts with `@` after a space, an
opening bracket or quote, or the start of the message, so `me@example.com` is not one.  A word that
names nothing and does not look like a path (`@property`) is left alone; one that looks like a path
and names nothing gives one warning.
"""

from __future__ import annotations

import glob
import re
from dataclasses import dataclass, field
from pathlib import Path

from langchain_core.messages import HumanMessage

from helium.rag.index import AddReport, Passage, RagIndex, render_passages
from helium.rag.prompts import MENTION_CONTEXT

MENTION_PASSAGES = 8
"""Chunks put into a turn; mentioned files with this many chunks or fewer go in whole."""

_MENTION = re.compile(r"(?<![\w.@/\\`])@(?P<path>[\w.~/*?\[\]\-]+)")
_TRAILING = ".,;:!?]"


@dataclass
class MentionContext:
    """A chat message with its mentions resolved: what the model gets, what was attached, what to warn about."""

    message: HumanMessage
    """The user's text, followed by the retrieved excerpts when there are any."""
    passages: list[Passage] = field(default_factory=list)
    report: AddReport = field(default_factory=AddReport)
    warnings: list[str] = field(default_factory=list)

    @property
    def files(self) -> list[str]:
        return list(dict.fromkeys(p.path for p in self.passages))


def find_mentions(text: str) -> list[str]:
    """The paths mentioned with `@`, in order, each once; a sentence's final punctuation is not part of one."""
    found: list[str] = []
    for match in _MENTION.finditer(text):
        spec = match["path"]
        while spec and spec[-1] in _TRAILING and not (spec[-1] == "]" and "[" in spec):
            spec = spec[:-1]
        if spec and spec not in found:
            found.append(spec)
    return found


def attach_mentions(index: RagIndex, text: str, k: int = MENTION_PASSAGES) -> MentionContext:
    """Index what the message mentions and return the message with the chunks relevant to it attached."""
    specs = [s for s in find_mentions(text) if _names_a_path(index.root, s)]
    if not specs:
        return MentionContext(HumanMessage(text))
    report = index.add(specs)
    warnings = [f"@{spec}: no such file, directory or glob match" for spec in report.missing]
    warnings += [f"@ mention {o.path} skipped: {o.reason}" for o in report.with_status("skipped")]
    keys = [o.path for o in report.outcomes if o.status in ("indexed", "unchanged")]
    if not keys:
        return MentionContext(HumanMessage(text), report=report, warnings=warnings)
    chunks = sum(entry.chunks for key in keys if (entry := index.catalog.get(key)) is not None)
    if chunks <= k:
        passages = index.passages_of(keys)
    else:
        query = _MENTION.sub(lambda m: m["path"], text)
        passages = sorted(index.search(query, k, keys), key=lambda p: (p.path, p.start))
    if not passages:
        return MentionContext(HumanMessage(text), report=report, warnings=warnings)
    context = MENTION_CONTEXT.format(example=passages[0].label, excerpts=render_passages(passages))
    return MentionContext(HumanMessage(f"{text}\n\n{context}"), passages, report, warnings)


def _names_a_path(root: Path, spec: str) -> bool:
    """Worth a look (and a warning if missing): it exists, or has a path's shape (a `/`, a `.`, a wildcard)."""
    path = Path(spec).expanduser()
    return "/" in spec or "." in spec or glob.has_magic(spec) or (path if path.is_absolute() else root / path).exists()

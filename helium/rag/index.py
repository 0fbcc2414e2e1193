"""The RAG index over files: add, refresh, remove and search, keeping Chroma and the file catalog in step.

A file is indexed again only when its SHA-256 changed; its old chunks are dropped first, and a file
that vanished (or became unreadable) loses its chunks.  Vectors go through the project's shared
vector store (collection `rag-files`); each chunk's metadata holds its file, line (or page) range and
section, so a search answer can be cited as `file:start-end`.
"""

from __future__ import annotations

import fnmatch
import glob
import hashlib
import os
import subprocess
from collections.abc import Callable, Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from helium.rag.catalog import FileCatalog, IndexedFile
from helium.rag.chunking import Chunk
from helium.rag.documents import Document, Skipped, load_document, read_bytes
from helium.rag.prompts import EXCERPT
from helium.state.store import ProjectStore
from helium.state.vectors import VectorStore, open_vector_store
from helium.tools.files import SKIPPED_DIRS
from helium.tools.workspace import Workspace, WorkspaceEscapeError

if TYPE_CHECKING:
    from helium.config import Settings

COLLECTION = "rag-files"
DEFAULT_K = 5
"""Passages a question retrieves unless told otherwise (`helium rag ask -k`)."""
Status = Literal["indexed", "unchanged", "skipped", "removed"]
Progress = Callable[[str, int, int], None]
"""Called before each file with (path, files done, files in all)."""


@dataclass(frozen=True)
class Passage:
    """A retrieved chunk with where it comes from; `label` is how it is cited."""

    path: str
    start: int
    end: int
    unit: str
    section: str
    text: str
    score: float | None = None

    @property
    def label(self) -> str:
        return citation_label(self.path, self.unit, self.start, self.end)

    def to_json(self) -> dict[str, Any]:
        return {**asdict(self), "label": self.label}


@dataclass(frozen=True)
class FileOutcome:
    """What happened to one file: indexed (with its chunks), unchanged, skipped (with the reason) or removed."""

    path: str
    status: Status
    chunks: int = 0
    reason: str = ""

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class AddReport:
    """The summary of an add or refresh, file by file."""

    outcomes: list[FileOutcome] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)
    """Paths and globs that named nothing."""

    def with_status(self, status: Status) -> list[FileOutcome]:
        return [o for o in self.outcomes if o.status == status]

    def to_json(self) -> dict[str, Any]:
        groups = {status: [o.to_json() for o in self.with_status(status)]
                  for status in ("indexed", "unchanged", "skipped", "removed")}
        return {**groups, "missing": self.missing,
                "chunks_added": sum(o.chunks for o in self.with_status("indexed"))}


SECRET_FILES = (".env", ".env.*", "*.pem", "*.key", "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", ".netrc", ".pgpass")
"""Names of files that usually hold keys or passwords: a directory or glob leaves them out (with that reason),
so `rag add .` or `@.` never sends them to the model or stores them; naming one on its own indexes it."""


def holds_secrets(path: Path) -> bool:
    return any(fnmatch.fnmatch(path.name, pattern) for pattern in SECRET_FILES)


@dataclass
class _Selection:
    files: list[Path] = field(default_factory=list)
    gone: list[str] = field(default_factory=list)
    """Indexed paths under the named directories and globs whose files no longer exist."""
    missing: list[str] = field(default_factory=list)
    refused: list[FileOutcome] = field(default_factory=list)


def citation_label(path: str, unit: str, start: int, end: int) -> str:
    """`file:12-30` for lines; `file.pdf:p3` or `file.pdf:p3-4` for pages."""
    if unit == "page":
        return f"{path}:p{start}" if start == end else f"{path}:p{start}-{end}"
    return f"{path}:{start}-{end}"


def render_passages(passages: Sequence[Passage]) -> str:
    """Passages as the model reads them: each under its citation label, separated by blank lines."""
    return "\n\n".join(EXCERPT.format(label=p.label, section=f" ({p.section})" if p.section else "", text=p.text)
                       for p in passages)


class RagIndex:
    """The files of one project in the vector store; `confined` refuses paths outside the workspace
    (for the model's own searches)."""

    def __init__(self, workspace: Path, store: ProjectStore, vectors: VectorStore, *, confined: bool = False) -> None:
        self.workspace = Workspace(workspace)
        self.root = self.workspace.root
        self.catalog = FileCatalog(store.conn, store.checkpointer.lock)
        self.vectors = vectors
        self.confined = confined

    # -- paths --------------------------------------------------------------------------------------------
    def key(self, path: Path) -> str:
        """How a file is named in the index: relative to the workspace, or absolute outside it."""
        absolute = Path(os.path.abspath(path))
        if absolute == self.root or self.root in absolute.parents:
            return absolute.relative_to(self.root).as_posix()
        return str(absolute)

    def absolute(self, key: str) -> Path:
        return Path(key) if os.path.isabs(key) else self.root / key

    def _absolute_spec(self, spec: str) -> Path:
        path = Path(spec).expanduser()
        absolute = path if path.is_absolute() else self.root / path
        if self.confined:
            self.workspace.resolve(_glob_base(absolute))  # raises WorkspaceEscapeError outside the workspace
        return Path(os.path.abspath(absolute))

    def select(self, specs: Sequence[str]) -> _Selection:
        """The files that paths, directories and globs name, and indexed files under them that are gone."""
        selection = _Selection()
        indexed = [f.path for f in self.catalog.all()]
        for spec in specs:
            path = self._absolute_spec(spec)
            if glob.has_magic(str(path)):
                matches = [Path(m) for m in sorted(glob.glob(str(path), recursive=True))]
                for match in matches:
                    selection.files.extend(self._without_secret_files(_walk(match) if match.is_dir() else [match],
                                                                      selection))
                pattern = self.key(path)
                selection.gone.extend(k for k in indexed if fnmatch.fnmatch(k, pattern)
                                      and not self.absolute(k).exists())
                if not matches:
                    selection.missing.append(spec)
            elif path.is_dir():
                selection.files.extend(self._without_secret_files(_walk(path), selection))
                prefix = self.key(path)
                selection.gone.extend(k for k in indexed if _is_under(k, prefix) and not self.absolute(k).exists())
            elif path.exists() or path.is_symlink():
                selection.files.append(path)
            elif self.key(path) in indexed:
                selection.gone.append(self.key(path))
            else:
                selection.missing.append(spec)
        selection.files = [f for f in dict.fromkeys(selection.files) if not self._escapes(f, selection)]
        selection.gone = list(dict.fromkeys(selection.gone))
        return selection

    def _without_secret_files(self, found: list[Path], selection: _Selection) -> list[Path]:
        """The files a directory or glob found, less those named like key or password files (skipped, with why)."""
        for path in found:
            if holds_secrets(path):
                selection.refused.append(FileOutcome(self.key(path), "skipped", reason=(
                    "may hold secrets (a key or password file): name it on its own to index it")))
        return [path for path in found if not holds_secrets(path)]

    def _escapes(self, path: Path, selection: _Selection) -> bool:
        """In a confined index, a file whose real path is outside the workspace (a symlink) is refused."""
        if not self.confined:
            return False
        try:
            self.workspace.resolve(path)
        except WorkspaceEscapeError:
            selection.refused.append(FileOutcome(self.key(path), "skipped", reason="links outside the workspace"))
            return True
        return False

    # -- indexing -----------------------------------------------------------------------------------------
    def add(self, specs: Sequence[str], progress: Progress | None = None) -> AddReport:
        """Index what the paths name: new and changed files are chunked and embedded, unchanged ones kept."""
        selection = self.select(specs)
        report = AddReport(outcomes=list(selection.refused), missing=selection.missing)
        for key in selection.gone:
            self._drop(key)
            report.outcomes.append(FileOutcome(key, "removed"))
        report.outcomes.extend(self._index_files(selection.files, progress))
        return report

    def refresh(self, progress: Progress | None = None) -> AddReport:
        """Bring every indexed file up to date: changed files are indexed again, vanished ones dropped."""
        report = AddReport()
        present = []
        for entry in self.catalog.all():
            path = self.absolute(entry.path)
            if path.exists() or path.is_symlink():
                present.append(path)
            else:
                self._drop(entry.path)
                report.outcomes.append(FileOutcome(entry.path, "removed"))
        report.outcomes.extend(self._index_files(present, progress))
        return report

    def remove(self, specs: Sequence[str]) -> tuple[list[str], list[str]]:
        """Drop files (or everything under directories, or matching globs) from the index:
        (removed paths, specs that matched nothing indexed)."""
        indexed = [f.path for f in self.catalog.all()]
        removed: list[str] = []
        unmatched: list[str] = []
        for spec in specs:
            key = self.key(self._absolute_spec(spec))
            found = [k for k in indexed if k == key or _is_under(k, key)
                     or (glob.has_magic(key) and fnmatch.fnmatch(k, key))]
            if not found:
                unmatched.append(spec)
            removed.extend(k for k in found if k not in removed)
        for key in removed:
            self._drop(key)
        return removed, unmatched

    def files(self) -> list[IndexedFile]:
        return self.catalog.all()

    def _index_files(self, files: Iterable[Path], progress: Progress | None) -> list[FileOutcome]:
        files = list(files)
        outcomes = []
        for done, path in enumerate(files):
            if progress is not None:
                progress(self.key(path), done, len(files))
            outcomes.append(self.index_file(path))
        if progress is not None and files:
            progress("", len(files), len(files))
        return outcomes

    def index_file(self, path: Path) -> FileOutcome:
        """Index one file if its content hash changed; a file that cannot be read any more loses its chunks."""
        key = self.key(path)
        known = self.catalog.get(key)
        try:
            data = read_bytes(path)
            digest = hashlib.sha256(data).hexdigest()
            if known is not None and known.sha256 == digest:
                return FileOutcome(key, "unchanged", known.chunks)
            document = load_document(path, data)
        except Skipped as skipped:
            if known is not None:
                self._drop(key)  # its chunks describe content that is no longer there
            return FileOutcome(key, "skipped", reason=str(skipped))
        self._store(key, digest, document, len(data))
        return FileOutcome(key, "indexed", len(document.chunks))

    def _store(self, key: str, digest: str, document: Document, size: int) -> None:
        self.vectors.delete(COLLECTION, where={"path": key})
        chunks = document.chunks
        self.vectors.upsert(
            COLLECTION,
            ids=[f"{key}#{i}" for i in range(len(chunks))],
            texts=[c.text for c in chunks],
            metadatas=[{"path": key, "start": c.start, "end": c.end, "unit": document.unit, "section": c.section,
                        "kind": document.kind, "sha256": digest} for c in chunks],
            embeddings=self.vectors.embed([_embedding_text(key, c) for c in chunks]),
        )
        self.catalog.put(key, digest, document.kind, document.unit, document.extent, len(chunks), size)

    def _drop(self, key: str) -> None:
        self.vectors.delete(COLLECTION, where={"path": key})
        self.catalog.delete(key)

    # -- retrieval ----------------------------------------------------------------------------------------
    def search(self, query: str, k: int = DEFAULT_K, paths: Sequence[str] | None = None) -> list[Passage]:
        """The `k` passages nearest in meaning to `query`, best first; `paths` (index keys) limit the search."""
        hits = self.vectors.query(COLLECTION, query, k=k, where=_where_paths(paths))
        return [_passage(hit.text, hit.metadata, hit.score) for hit in hits]

    def cited_text(self, path: str, start: int, end: int) -> list[tuple[int, str]]:
        """What a citation points to, as (line or page number, text), rebuilt from the stored chunks: for HTML
        and PDF files that is the extracted text the citation counts in."""
        hits = self.vectors.get(COLLECTION, where={"$and": [{"path": path}, {"start": {"$lte": end}},
                                                             {"end": {"$gte": start}}]})
        hits.sort(key=lambda hit: int(hit.id.rsplit("#", 1)[1]))  # chunk order, so slices of a long line join up
        rows: dict[int, str] = {}
        for hit in hits:
            first = int(hit.metadata["start"])
            if hit.metadata.get("unit") == "page":
                rows[first] = "\n\n".join(filter(None, [rows.get(first), hit.text]))
                continue
            for offset, line in enumerate(hit.text.split("\n")):
                rows[first + offset] = rows.get(first + offset, "") + line
        if hits and hits[0].metadata.get("unit") == "page":
            return sorted(rows.items())
        return [(number, rows.get(number, "")) for number in range(start, end + 1)]

    def passages_of(self, paths: Sequence[str]) -> list[Passage]:
        """Every chunk of these files, in file and line order."""
        hits = self.vectors.get(COLLECTION, where=_where_paths(paths))
        return sorted((_passage(h.text, h.metadata, None) for h in hits), key=lambda p: (p.path, p.start, p.end))


def open_rag_index(settings: Settings, store: ProjectStore, *, confined: bool = False) -> RagIndex:
    """The project's index; opening it is cheap (Chroma and the embedding model load on first use)."""
    return RagIndex(settings.workspace, store, open_vector_store(settings), confined=confined)


def _passage(text: str, metadata: dict[str, Any], score: float | None) -> Passage:
    return Passage(path=metadata["path"], start=int(metadata["start"]), end=int(metadata["end"]),
                   unit=metadata.get("unit", "line"), section=metadata.get("section", ""), text=text, score=score)


def _where_paths(paths: Sequence[str] | None) -> dict[str, Any] | None:
    if not paths:
        return None
    return {"path": paths[0]} if len(paths) == 1 else {"path": {"$in": list(paths)}}


def _embedding_text(key: str, chunk: Chunk) -> str:
    """File name and section ride along with the text: "how do I install X" finds the Installing section."""
    return f"{key}{' · ' + chunk.section if chunk.section else ''}\n{chunk.text}"


def _walk(base: Path) -> list[Path]:
    """The files under a directory: those git does not ignore when it is in a git work tree (so `rag add .`
    leaves build output and the like alone), else every file outside the usual tool and cache folders."""
    listed = _git_files(base)
    if listed is not None:
        return listed
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(base):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIPPED_DIRS)
        found.extend(Path(dirpath) / name for name in sorted(filenames))
    return found


def _git_files(base: Path) -> list[Path] | None:
    """Tracked and untracked-but-not-ignored files under `base`, or None outside a git work tree."""
    try:
        listed = subprocess.run(["git", "-C", str(base), "ls-files", "-z", "--cached", "--others",
                                 "--exclude-standard"], capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if listed.returncode != 0:
        return None
    names = sorted(name for name in listed.stdout.decode("utf-8", "surrogateescape").split("\0") if name)
    return [base / name for name in names if not SKIPPED_DIRS.intersection(Path(name).parts[:-1])
            and (base / name).is_file()]


def _is_under(key: str, prefix: str) -> bool:
    return prefix in ("", ".") or key.startswith(prefix.rstrip("/") + "/")


def _glob_base(path: Path) -> Path:
    """The part of a glob before its first wildcard (the directory it searches)."""
    parts = []
    for part in path.parts:
        if glob.has_magic(part):
            break
        parts.append(part)
    return Path(*parts)

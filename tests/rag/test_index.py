"""The index over real SQLite and Chroma: hash-based re-indexing, removal, skipping, search, citations."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from helium.rag.citations import INVALID_MARK, find_citations, flag_invalid
from helium.rag.index import COLLECTION, RagIndex
from helium.tools.workspace import WorkspaceEscapeError
from tests.rag.conftest import make_pdf, open_index


def statuses(report) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {o.path: o.status for o in report.outcomes}


def chunk_texts(index: RagIndex, path: str) -> list[str]:
    return [hit.text for hit in index.vectors.get(COLLECTION, where={"path": path})]


def test_only_new_or_changed_files_are_indexed_and_stale_chunks_are_dropped(workspace: Path, index: RagIndex) -> None:
    (workspace / "notes.md").write_text("# Notes\n\nThe launch code is ALPHA.\n")
    (workspace / "tool.py").write_text("def add(a, b):\n    return a + b\n")
    (workspace / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00binary")
    first = index.add(["."])
    assert statuses(first) == {"notes.md": "indexed", "tool.py": "indexed", "logo.png": "skipped"}
    assert first.with_status("skipped")[0].reason == "binary file"
    assert index.vectors.count(COLLECTION) == 2

    assert set(statuses(index.add(["."])).values()) == {"unchanged", "skipped"}

    (workspace / "notes.md").write_text("# Notes\n\nThe launch code is BRAVO now.\n")
    assert statuses(index.add(["."])) == {"notes.md": "indexed", "tool.py": "unchanged", "logo.png": "skipped"}
    assert chunk_texts(index, "notes.md") == ["# Notes\n\nThe launch code is BRAVO now."]

    (workspace / "tool.py").unlink()
    assert statuses(index.add(["."]))["tool.py"] == "removed"
    assert chunk_texts(index, "tool.py") == [] and index.catalog.get("tool.py") is None
    assert [f.path for f in index.files()] == ["notes.md"]


def test_a_file_that_turns_binary_loses_its_chunks(workspace: Path, index: RagIndex) -> None:
    target = workspace / "data.txt"
    target.write_text("plain words\n")
    index.add(["data.txt"])
    target.write_bytes(b"\x00\x01\x02")
    [outcome] = index.add(["data.txt"]).outcomes
    assert (outcome.status, outcome.reason) == ("skipped", "binary file")
    assert chunk_texts(index, "data.txt") == [] and index.files() == []


def test_refresh_reindexes_changed_files_and_drops_vanished_ones(workspace: Path, index: RagIndex) -> None:
    (workspace / "a.txt").write_text("alpha\n")
    (workspace / "b.txt").write_text("beta\n")
    index.add(["a.txt", "b.txt"])
    (workspace / "a.txt").write_text("alpha, edited\n")
    (workspace / "b.txt").unlink()
    assert statuses(index.refresh()) == {"a.txt": "indexed", "b.txt": "removed"}
    assert chunk_texts(index, "a.txt") == ["alpha, edited"]


def test_globs_directories_and_missing_paths(workspace: Path, index: RagIndex) -> None:
    (workspace / "docs" / "deep").mkdir(parents=True)
    (workspace / "docs" / "one.md").write_text("# One\n\nfirst\n")
    (workspace / "docs" / "deep" / "two.md").write_text("# Two\n\nsecond\n")
    (workspace / "docs" / "skip.txt").write_text("not a markdown file\n")
    report = index.add(["docs/*.md", "nothing/here.md", "*.zip"])
    assert statuses(report) == {"docs/one.md": "indexed"}
    assert report.missing == ["nothing/here.md", "*.zip"]
    assert statuses(index.add(["docs/**/*.md"])) == {"docs/one.md": "unchanged", "docs/deep/two.md": "indexed"}

    removed, unmatched = index.remove(["docs/deep", "docs/none.md"])
    assert (removed, unmatched) == (["docs/deep/two.md"], ["docs/none.md"])
    assert index.remove(["docs/*.md"]) == (["docs/one.md"], [])
    assert index.vectors.count(COLLECTION) == 0


def test_a_directory_in_a_git_work_tree_leaves_ignored_files_out(workspace: Path, index: RagIndex) -> None:
    subprocess.run(["git", "init", "-q", str(workspace)], check=True)
    (workspace / ".gitignore").write_text("build/\n*.log\n")
    (workspace / "build").mkdir()
    (workspace / "build" / "out.md").write_text("generated\n")
    (workspace / "debug.log").write_text("noise\n")
    (workspace / "kept.md").write_text("# Kept\n\nsource text\n")
    assert statuses(index.add(["."])) == {".gitignore": "indexed", "kept.md": "indexed"}


def test_directories_and_globs_leave_out_files_that_hold_secrets(workspace: Path, index: RagIndex) -> None:
    (workspace / "conf").mkdir()
    (workspace / "conf" / ".env").write_text("OPENAI_API_KEY=sk-proj-abcdefghijklmnop1234\n")
    (workspace / "conf" / "server.pem").write_text("-----BEGIN PRIVATE KEY-----\n")
    (workspace / "conf" / "notes.md").write_text("# Notes\n\nthe server reads conf/.env\n")
    report = index.add(["conf"])
    assert statuses(report) == {"conf/.env": "skipped", "conf/server.pem": "skipped", "conf/notes.md": "indexed"}
    assert "may hold secrets" in next(o.reason for o in report.outcomes if o.path == "conf/.env")
    assert statuses(index.add(["conf/*.pem"])) == {"conf/server.pem": "skipped"}
    assert "sk-proj" not in " ".join(hit.text for hit in index.vectors.get(COLLECTION))
    assert statuses(index.add(["conf/.env"])) == {"conf/.env": "indexed"}  # named on its own: the user means it


def test_a_confined_index_refuses_paths_outside_the_workspace(workspace: Path, tmp_path: Path) -> None:
    (tmp_path / "outside.md").write_text("secret\n")
    store, confined = open_index(workspace)
    try:
        confined.confined = True
        with pytest.raises(WorkspaceEscapeError):
            confined.add(["../outside.md"])
        with pytest.raises(WorkspaceEscapeError):
            confined.add([str(tmp_path / "*.md")])
        (workspace / "notes").mkdir()
        (workspace / "notes" / "inside.md").write_text("inside\n")
        (workspace / "notes" / "sneaky.md").symlink_to(tmp_path / "outside.md")
        report = confined.add(["notes"])
        assert {(o.path, o.status, o.reason) for o in report.outcomes} == {
            ("notes/inside.md", "indexed", ""), ("notes/sneaky.md", "skipped", "links outside the workspace")}
    finally:
        store.close()


def test_a_pdf_is_indexed_by_pages_and_searchable(workspace: Path, index: RagIndex) -> None:
    make_pdf(workspace / "manual.pdf", ["The turbine spins at 3000 rpm.", "Coolant pumps need a yearly check."])
    index.add(["manual.pdf"])
    [entry] = index.files()
    assert (entry.kind, entry.unit, entry.extent, entry.chunks) == ("pdf", "page", 2, 2)
    [best] = index.search("how often must the coolant pumps be checked?", k=1)
    assert best.label == "manual.pdf:p2"
    assert index.cited_text("manual.pdf", 2, 2) == [(2, "Coolant pumps need a yearly check.")]


def test_cited_text_is_the_exact_lines_rebuilt_from_chunks(corpus_index: RagIndex) -> None:
    lines = (corpus_index.root / "docs" / "rich.md").read_text().splitlines()
    rows = corpus_index.cited_text("docs/rich.md", 30, 70)  # spans several chunks and the blank lines between
    assert rows == [(n, lines[n - 1] if lines[n - 1].strip() else "") for n in range(30, 71)]


@pytest.mark.parametrize(("question", "path", "section"), [
    ("How do I install Rich with pip?", "docs/rich.md", "Installing"),
    ("Which optional dependencies does HTTPX have, e.g. for HTTP/2?", "docs/httpx.md", "Dependencies"),
    ("What does deflateInit() do with the compression level?", "docs/zlib_how.html", None),
    ("How does the ini parser turn lines into sections?", "docs/iniconfig.py", None),
    ("Why is a boolean option passed with =value an error in the argument parser?", "docs/minimist.js", None),
])
def test_search_finds_the_passage_that_answers(corpus_index: RagIndex, question: str, path: str,
                                               section: str | None) -> None:
    passages = corpus_index.search(question, k=3)
    assert passages[0].path == path, [p.label for p in passages]
    if section:
        assert any(p.section == section for p in passages if p.path == path)


def test_citations_are_checked_against_indexed_ranges(corpus_index: RagIndex) -> None:
    rich_lines = corpus_index.catalog.get("docs/rich.md").extent  # type: ignore[union-attr]
    answer = (f"Install with pip [docs/rich.md:46-58]; see also (docs/rich.md:{rich_lines}-{rich_lines + 5}), "
              "[./docs/httpx.md:59-88], [ghost.md:1-3] and [docs/rich.md:p2]. At 10:30 http://host:80/x.")
    citations = {c.label: c for c in find_citations(answer, corpus_index.catalog)}
    assert set(citations) == {"docs/rich.md:46-58", f"docs/rich.md:{rich_lines}-{rich_lines + 5}",
                              "./docs/httpx.md:59-88", "ghost.md:1-3", "docs/rich.md:p2"}
    assert citations["docs/rich.md:46-58"].valid and citations["./docs/httpx.md:59-88"].valid
    assert citations["ghost.md:1-3"].reason == "ghost.md is not an indexed file"
    assert f"has {rich_lines} lines" in citations[f"docs/rich.md:{rich_lines}-{rich_lines + 5}"].reason
    assert "cited by lines" in citations["docs/rich.md:p2"].reason
    flagged = flag_invalid(answer, list(citations.values()))
    assert f"[ghost.md:1-3{INVALID_MARK}]" in flagged and "[docs/rich.md:46-58]" in flagged

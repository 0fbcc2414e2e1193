"""Reading files for the index: kinds, HTML and PDF extraction, and the reasons files are skipped."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from helium.rag import documents
from helium.rag.documents import Skipped, kind_of, load_document, read_bytes
from tests.rag.conftest import DOCS, make_pdf


def load(path: Path) -> documents.Document:
    return load_document(path, read_bytes(path))


def test_each_corpus_file_gets_its_kind_and_cites_lines() -> None:
    kinds = {name: load(DOCS / name).kind for name in
             ("httpx.md", "iniconfig.py", "minimist.js", "zlib_how.html", "yq-cli.txt")}
    assert kinds == {"httpx.md": "markdown", "iniconfig.py": "python", "minimist.js": "code",
                     "zlib_how.html": "html", "yq-cli.txt": "text"}
    text = load(DOCS / "yq-cli.txt")
    assert (text.unit, text.extent) == ("line", len((DOCS / "yq-cli.txt").read_text().splitlines()))
    assert kind_of(Path("x.RS")) == "code" and kind_of(Path("notes")) == "text"


def test_html_is_reduced_to_its_main_text() -> None:
    html = load(DOCS / "zlib_how.html")
    body = "\n".join(c.text for c in html.chunks)
    assert "deflateInit()" in body and "<tt>" not in body and "<pre>" not in body
    assert all(1 <= c.start <= c.end <= html.extent for c in html.chunks)


def test_pdf_pages_are_chunks_cited_by_page(tmp_path: Path) -> None:
    pdf = make_pdf(tmp_path / "manual.pdf", ["The turbine spins at 3000 rpm.", "Coolant pumps need a yearly check."])
    document = load(pdf)
    assert (document.kind, document.unit, document.extent) == ("pdf", "page", 2)
    assert [(c.start, c.end, c.section) for c in document.chunks] == [(1, 1, "page 1"), (2, 2, "page 2")]
    assert "Coolant pumps" in document.chunks[1].text


@pytest.mark.parametrize(("name", "data", "reason"), [
    ("image.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "binary file"),
    ("latin1.txt", "caf\xe9 cr\xe8me".encode("latin-1"), "binary file (not UTF-8 text)"),
    ("empty.md", b"  \n\n", "empty file"),
    ("broken.pdf", b"%PDF-1.4 this is not really a pdf", "unreadable PDF"),
    ("scan.pdf", None, "PDF without extractable text"),
])
def test_files_that_cannot_be_indexed_are_skipped_with_a_reason(tmp_path: Path, name: str, data: bytes | None,
                                                                 reason: str) -> None:
    path = tmp_path / name
    if data is None:
        make_pdf(path, [""])
    else:
        path.write_bytes(data)
    with pytest.raises(Skipped) as skipped:
        load(path)
    assert str(skipped.value).startswith(reason)


def test_unreadable_and_oversized_files_are_skipped_with_a_reason(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    dangling = tmp_path / "dangling.md"
    dangling.symlink_to(tmp_path / "gone.md")
    with pytest.raises(Skipped, match="broken link"):
        read_bytes(dangling)
    with pytest.raises(Skipped, match="cannot be read: Input/output error"):
        read_bytes(Path("/proc/self/mem"))  # unreadable even for root: reading it fails with EIO
    big = tmp_path / "big.txt"
    big.write_text("x" * 2000)
    monkeypatch.setattr(documents, "MAX_FILE_BYTES", 1000)
    with pytest.raises(Skipped, match="too large"):
        read_bytes(big)


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their permissions")
def test_a_file_without_read_permission_is_skipped(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("hidden")
    secret.chmod(0)
    with pytest.raises(Skipped, match="permission denied"):
        read_bytes(secret)

"""Fetching under limits, bad pages skipped with a reason, extraction and chunking."""

from __future__ import annotations

import threading
import time

import pytest

from helium.tools.web.extract import NoMainText, chunk_text, extract_page, split_sentences
from helium.tools.web.fetch import FetchLimits, PageFetcher
from tests.research.local_web import PAGES, LocalWeb


def test_a_page_is_fetched_with_its_final_url_and_type(web: LocalWeb) -> None:
    result = PageFetcher(FetchLimits()).fetch(web.url("/pages/what-is-rustc.html"))
    assert result.ok and result.status == 200 and result.content_type == "text/html"
    assert result.body == (PAGES / "what-is-rustc.html").read_bytes()


@pytest.mark.parametrize(("path", "reason"), [
    ("/bad/huge.html", "too large (over 1,000,000 bytes)"),
    ("/bad/binary.html", "binary content served as text/html"),
    ("/bad/loop", "too many redirects (more than 3)"),
    ("/bad/slow.html", "timed out after 1 s"),
    ("/nowhere.html", "HTTP 404"),
])
def test_bad_pages_are_skipped_with_a_reason(web: LocalWeb, path: str, reason: str) -> None:
    fetcher = PageFetcher(FetchLimits(timeout=1, max_bytes=1_000_000, max_redirects=3))
    started = time.monotonic()
    result = fetcher.fetch(web.url(path))
    assert not result.ok and result.body is None
    assert result.error == reason
    assert time.monotonic() - started < 10


def test_per_host_and_global_limits_hold_under_a_fan_out(web: LocalWeb) -> None:
    web.latency = 0.2
    fetcher = PageFetcher(FetchLimits(max_concurrency=8, per_host=3))
    threads = [threading.Thread(target=fetcher.fetch, args=(web.url("/pages/what-is-rustc.html"),)) for _ in range(9)]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert web.max_in_flight == 3  # one host: its limit, not the global one
    assert time.monotonic() - started >= 0.6  # three waves of three

    web.max_in_flight = 0
    fetcher = PageFetcher(FetchLimits(max_concurrency=2, per_host=4))
    hosts = ["127.0.0.1", "localhost"]  # two host names for the same server
    threads = [threading.Thread(target=fetcher.fetch,
                                args=(web.url("/pages/what-is-rustc.html").replace("127.0.0.1", hosts[i % 2]),))
               for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert web.max_in_flight == 2  # the global limit


def test_extraction_finds_title_and_main_text_without_navigation() -> None:
    page = extract_page((PAGES / "documentation-tests.html").read_bytes(), "http://x/documentation-tests.html",
                        "text/html")
    assert page.title == "Documentation tests - The rustdoc book"
    assert page.text.startswith("Documentation tests")
    assert "rustdoc supports executing your documentation examples as tests" in page.text
    assert "Keyboard shortcuts" not in page.text  # mdBook's hidden help dialog is not content


def test_metadata_author_and_date_come_from_the_page() -> None:
    html = (b"<html><head><title>On tests</title><meta name='author' content='Ada Lovelace'>"
            b"<meta property='article:published_time' content='2024-05-06'></head><body><article>"
            + b"<p>Tests keep examples honest and working over time, release after release.</p>" * 8
            + b"</article></body></html>")
    page = extract_page(html, "http://x/a", "text/html")
    assert (page.title, page.author, page.date) == ("On tests", "Ada Lovelace", "2024-05-06")


def test_plain_text_is_kept_and_an_empty_page_has_no_main_text() -> None:
    assert extract_page(b"First line\nmore", "http://x/a.txt", "text/plain").title == "First line"
    with pytest.raises(NoMainText):
        extract_page(b"<html><body><script>x()</script></body></html>", "http://x/b", "text/html")


def test_chunks_keep_sentences_whole_and_overlap_by_one() -> None:
    text = " ".join(f"Sentence number {i} says something about rustdoc tests." for i in range(40))
    chunks = chunk_text(text, size=200)
    assert all(len(c) <= 260 for c in chunks) and len(chunks) > 5
    for before, after in zip(chunks, chunks[1:], strict=False):
        assert after.startswith(split_sentences(before)[-1])
    assert all(c.endswith(".") for c in chunks)


def test_a_sentence_longer_than_a_chunk_is_cut_between_words_and_nothing_is_lost() -> None:
    """A table or listing with no full stop must not become one huge chunk whose tail the embedding
    model never reads."""
    cells = " | ".join(f"cell{i}" for i in range(400))
    text = f"Intro sentence here. {cells}. Last one.\n\n{'x' * 450}"
    chunks = chunk_text(text, size=200)
    assert all(len(c) <= 200 for c in chunks), [len(c) for c in chunks]
    joined = " ".join(chunks)
    assert all(f"cell{i} " in joined or f"cell{i}." in joined for i in range(400))
    assert chunks[-3:] == ["x" * 200, "x" * 200, "x" * 50]


def tiny_pdf(lines: list[str], title: str, author: str) -> bytes:
    """A one-page PDF with a text layer and document info, written out by hand."""
    content = "BT /F1 12 Tf 72 720 Td 14 TL " + " ".join(f"({line}) Tj T*" for line in lines) + " ET"
    objects = [
        "<< /Type /Catalog /Pages 2 0 R >>",
        "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        "/Resources << /Font << /F1 5 0 R >> >> >>",
        f"<< /Length {len(content)} >>\nstream\n{content}\nendstream",
        "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        f"<< /Title ({title}) /Author ({author}) /CreationDate (D:20240506120000Z) >>",
    ]
    data, offsets = b"%PDF-1.4\n", []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(data))
        data += f"{number} 0 obj\n{body}\nendobj\n".encode()
    xref = len(data)
    data += f"xref\n0 {len(objects) + 1}\n0000000000 65535 f \n".encode()
    data += "".join(f"{offset:010d} 00000 n \n" for offset in offsets).encode()
    data += (f"trailer\n<< /Size {len(objects) + 1} /Root 1 0 R /Info 6 0 R >>\nstartxref\n{xref}\n%%EOF\n").encode()
    return data


def test_a_pdf_gives_its_text_and_document_info() -> None:
    body = tiny_pdf(["Doctests run the examples in documentation.", "They keep examples working."],
                    "On doctests", "Ada Lovelace")
    page = extract_page(body, "http://x/doctests.pdf", "application/pdf")
    assert (page.title, page.author, page.date) == ("On doctests", "Ada Lovelace", "2024-05-06")
    assert page.text == "Doctests run the examples in documentation.\nThey keep examples working."
    with pytest.raises(NoMainText, match="unreadable PDF"):
        extract_page(b"%PDF-1.4\nthis is not a PDF", "http://x/broken.pdf", "application/pdf")


def test_html_extractions_from_many_threads_run_one_at_a_time(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fetch fan-out extracts from many threads; trafilatura's lxml work done concurrently
    corrupts libxml2's heap and kills the process, so extractions must never overlap."""
    import trafilatura

    real, lock = trafilatura.bare_extraction, threading.Lock()
    running, most = [0], [0]

    def counting(*args: object, **kwargs: object) -> object:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.05)  # long enough for the other threads to arrive
        try:
            return real(*args, **kwargs)
        finally:
            with lock:
                running[0] -= 1

    monkeypatch.setattr(trafilatura, "bare_extraction", counting)
    body = (PAGES / "what-is-rustc.html").read_bytes()
    gate = threading.Barrier(4)
    titles: list[str] = []

    def extract() -> None:
        gate.wait()
        titles.append(extract_page(body, "http://127.0.0.1/what-is-rustc.html", "text/html").title)

    threads = [threading.Thread(target=extract) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(titles) == 4 and most[0] == 1

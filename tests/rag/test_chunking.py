"""Chunking follows the document's structure and every chunk's line range is exact."""

from __future__ import annotations

from collections.abc import Sequence

from helium.rag.chunking import MAX_CHUNK_CHARS, Chunk, chunk_code, chunk_markdown, chunk_plain, chunk_python
from tests.rag.conftest import DOCS


def assert_exact(lines: Sequence[str], chunks: list[Chunk]) -> None:
    """Each chunk is exactly its lines (or a slice of one over-long line); ranges ascend and do not overlap."""
    previous_end = 0
    for chunk in chunks:
        body = "\n".join(lines[chunk.start - 1:chunk.end])
        assert chunk.text == body or (chunk.start == chunk.end and chunk.text in body), chunk
        assert lines[chunk.start - 1].strip() and lines[chunk.end - 1].strip(), "blank edge kept"
        assert chunk.start > previous_end or chunk.start == chunk.end == previous_end
        previous_end = chunk.end


MARKDOWN = """\
Intro paragraph before any heading.

# Install

Run pip install demo.

## Linux

Use the package manager.
```bash
# not a heading: a comment in a fenced block
apt install demo
```

## Windows
### Scoop

Use scoop.
A paragraph line
# inside a paragraph is not a heading either

# Usage

Call demo.run().
""".splitlines()


def test_markdown_is_cut_at_headings_with_their_path() -> None:
    chunks = chunk_markdown(MARKDOWN)
    assert [(c.start, c.end, c.section) for c in chunks] == [
        (1, 1, ""),
        (3, 5, "Install"),
        (7, 13, "Install > Linux"),
        (15, 20, "Install > Windows > Scoop"),  # a heading with no text of its own joins the next
        (22, 24, "Usage"),
    ]
    assert_exact(MARKDOWN, chunks)
    assert "# not a heading" in chunks[2].text


def test_collapsible_details_sections_are_sections_under_their_heading() -> None:
    lines = ["# Library", "", "Intro.", "", "<details>", "<summary>Tables</summary>", "", "Make tables.",
             "", "</details>", "<details>", "<summary><b>Trees</b></summary>", "Draw trees.", "</details>"]
    assert [(c.start, c.end, c.section) for c in chunk_markdown(lines)] == [
        (1, 3, "Library"), (5, 10, "Library > Tables"), (11, 14, "Library > Trees")]


BODY = "".join(f"    value_{i} = compute_something_long({i}, option=True)\n" for i in range(6))
METHOD_BODY = BODY.replace("    ", "        ")
PYTHON = f'''\
"""Module docstring."""

import os

CONSTANT = 1


# A comment that belongs to the function below.
@decorator
def first(a, b):
{BODY}    return a + b


class Greeter:
    """Says hello."""

    def hello(self, name):
{METHOD_BODY}        return f"hello {{name}}"


async def later():
{BODY}    await something()
'''.splitlines()


def test_python_is_cut_at_top_level_definitions_with_decorators_and_comments() -> None:
    chunks = chunk_python(PYTHON)
    assert [(c.start, c.end, c.section) for c in chunks] == [
        (1, 5, ""), (8, 17, "def first"), (20, 30, "class Greeter"), (33, 40, "def later")]
    assert chunks[1].text.startswith("# A comment that belongs") and "@decorator" in chunks[1].text
    assert_exact(PYTHON, chunks)


def test_small_neighbouring_definitions_share_a_chunk() -> None:
    lines = ["import os", "", "def one():", "    return 1", "", "def two():", "    return 2"]
    [chunk] = chunk_python(lines)
    assert (chunk.start, chunk.end, chunk.section) == (1, 7, "def one, def two")


def test_an_oversized_python_class_is_cut_at_its_methods() -> None:
    methods = [f"    def method_{i}(self):\n" + "".join(f"        step_{i}_{j} = compute({j})\n" for j in range(12))
               for i in range(8)]
    lines = ("class Big:\n    \"\"\"A large class.\"\"\"\n\n" + "\n".join(methods)).splitlines()
    chunks = chunk_python(lines)
    assert len(chunks) > 2 and all(len(c.text) <= MAX_CHUNK_CHARS for c in chunks)
    assert any(c.section.startswith("Big.method_") for c in chunks)
    assert chunks[0].start == 1 and chunks[-1].end == len(lines)
    assert_exact(lines, chunks)


def test_python_that_does_not_parse_falls_back_to_generic_code_chunks() -> None:
    lines = ["def broken(:", "    pass", "", "def fine():", "    return 1"]
    chunks = chunk_python(lines)
    assert chunks and chunks[0].start == 1 and chunks[-1].end == 5
    assert_exact(lines, chunks)


def test_other_languages_are_cut_at_top_level_declarations() -> None:
    lines = (DOCS / "minimist.js").read_text().splitlines()
    chunks = chunk_code(lines)
    assert_exact(lines, chunks)
    starts = {c.start for c in chunks}
    function_line = lines.index("function minimist(args, opts) {") + 1
    helper_line = next(n for n, line in enumerate(lines, 1) if line.startswith("function toArray"))
    assert function_line in starts and helper_line in starts
    assert chunks[-1].end == len(lines)


def test_prose_is_cut_into_windows_at_blank_lines() -> None:
    paragraphs = [" ".join(f"word{p}_{w}" for w in range(30)) for p in range(20)]
    lines = "\n\n".join(paragraphs).splitlines()
    chunks = chunk_plain(lines)
    assert len(chunks) > 1 and all(len(c.text) <= MAX_CHUNK_CHARS for c in chunks)
    assert_exact(lines, chunks)
    assert all(c.text.startswith("word") for c in chunks)  # no window starts mid-paragraph
    covered = {n for c in chunks for n in range(c.start, c.end + 1)}
    assert covered >= {n for n, line in enumerate(lines, 1) if line.strip()}


def test_an_over_long_single_line_is_sliced_under_the_same_line_number() -> None:
    lines = ["short", "", "x" * (MAX_CHUNK_CHARS * 2 + 10)]
    chunks = chunk_plain(lines)
    assert [(c.start, c.end) for c in chunks] == [(1, 1), (3, 3), (3, 3), (3, 3)]
    assert "".join(c.text for c in chunks[1:]) == lines[2]


def test_empty_input_has_no_chunks() -> None:
    assert chunk_markdown([]) == chunk_python([]) == chunk_code([]) == chunk_plain(["", "  "]) == []

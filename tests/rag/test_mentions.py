"""`@path` mentions and the search_files tool, over a real index."""

from __future__ import annotations

from pathlib import Path

from helium.rag.index import RagIndex
from helium.rag.mentions import attach_mentions, find_mentions
from helium.tools.invocation import invoke_tool
from helium.rag.search_tool import search_files_tool
from tests.rag.conftest import open_index


def test_mentions_are_paths_after_an_at_sign_but_not_email_addresses() -> None:
    text = ("explain @src/app.py, then compare (@docs/*.md) and @README.md. Mail me@example.com or "
            "`x@y.org`; @src/app.py again; what about @notes/?")
    assert find_mentions(text) == ["src/app.py", "docs/*.md", "README.md", "notes/"]
    assert find_mentions("user@host:/tmp and a@b") == []


def test_mentioned_files_are_indexed_and_their_chunks_attached(workspace: Path, index: RagIndex) -> None:
    (workspace / "src").mkdir()
    (workspace / "src" / "app.py").write_text("def greet(name):\n    return f'hello {name}'\n")
    context = attach_mentions(index, "explain @src/app.py and @src/missing.py, mail me@example.com")
    assert context.warnings == ["@src/missing.py: no such file, directory or glob match"]
    assert context.files == ["src/app.py"]
    text = context.message.text
    assert text.startswith("explain @src/app.py and @src/missing.py, mail me@example.com\n\n<context>")
    assert "[src/app.py:1-2] (def greet)\ndef greet(name):" in text and "cite each one" in text


def test_words_that_are_not_paths_are_left_alone(workspace: Path, index: RagIndex) -> None:
    context = attach_mentions(index, "what does @property do? ask @alice")
    assert (context.message.text, context.warnings, index.files()) == ("what does @property do? ask @alice", [], [])


def test_large_mentions_put_only_the_relevant_chunks_into_the_turn(workspace: Path, index: RagIndex) -> None:
    (workspace / "docs").mkdir()
    for topic in ("cats", "dogs", "boats", "trains", "plants"):
        sections = "\n\n".join(f"## {topic} part {i}\n\nNotes about {topic}, part {i}." for i in range(3))
        (workspace / "docs" / f"{topic}.md").write_text(f"# {topic}\n\n{sections}\n")
    context = attach_mentions(index, "what do the notes say about boats? @docs/*.md", k=3)
    assert len(context.passages) == 3 and len(index.files()) == 5
    assert "docs/boats.md" in context.files


def test_the_search_tool_indexes_paths_it_is_given_and_stays_in_the_workspace(workspace: Path,
                                                                              tmp_path: Path) -> None:
    (workspace / "guide.md").write_text("# Guide\n\n## Deploying\n\nRun make deploy on a Friday.\n")
    (tmp_path / "private.md").write_text("outside\n")
    store, index = open_index(workspace)
    index.confined = True
    tool = search_files_tool(index)
    try:
        empty = tool.invoke({"query": "how do I deploy?"})
        assert "no indexed passages match" in empty
        found = tool.invoke({"query": "how do I deploy?", "paths": ["guide.md", "nope.md"]})
        assert found.startswith("no such path: nope.md\n[guide.md:1-5] (Guide > Deploying)")
        assert "[guide.md:1-5]" in tool.invoke({"query": "deploy day"})  # already indexed: no paths needed
        refused = invoke_tool(tool, "call_1", {"query": "x", "paths": ["../private.md"]})
        assert refused.is_error and "outside the workspace" in refused.output
    finally:
        store.close()

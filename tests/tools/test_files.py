"""File tools on real files: confinement to the workspace, reading, searching, editing."""

from __future__ import annotations

from pathlib import Path

import pytest

from helium.environments import LocalEnvironment
from helium.tools import workspace_tools
from helium.tools.invocation import invoke_tool
from helium.tools.tiers import Tier, tier_of


@pytest.fixture
def tools(tmp_path: Path) -> dict:
    root = tmp_path / "ws"
    (root / "pkg").mkdir(parents=True)
    (root / "pkg" / "mod.py").write_text("import os\n\ndef main():\n    return os.getcwd()\n")
    (root / "notes.md").write_text("line one\nline two\n")
    (root / "blob.bin").write_bytes(b"\x00\x01\x02")
    (tmp_path / "outside.txt").write_text("secret")
    return {t.name: t for t in workspace_tools(LocalEnvironment(root, isolate=False))} | {"root": root, "tmp": tmp_path}


def run(tools: dict, name: str, **args) -> tuple[str, bool]:
    outcome = invoke_tool(tools[name], "call_1", args)
    return outcome.output, outcome.is_error


def test_tiers_are_declared() -> None:
    tools = {t.name: tier_of(t) for t in workspace_tools(LocalEnvironment(Path("."), isolate=False))}
    assert tools == {"read_file": Tier.SAFE, "list_dir": Tier.SAFE, "glob": Tier.SAFE, "grep": Tier.SAFE,
                     "write_file": Tier.RISKY, "edit_file": Tier.RISKY, "bash": Tier.CONDITIONAL}


def test_read_file_numbers_lines_and_pages(tools) -> None:
    output, error = run(tools, "read_file", path="pkg/mod.py", offset=3, limit=1)
    assert not error
    assert output.splitlines()[0] == "     3\tdef main():"
    assert "call read_file with offset=4" in output


def test_escapes_are_refused(tools) -> None:
    (tools["root"] / "sneaky").symlink_to(tools["tmp"] / "outside.txt")
    (tools["root"] / "sneaky-dir").symlink_to(tools["tmp"])
    for path in ("../outside.txt", "sneaky", "sneaky-dir/outside.txt", str(tools["tmp"] / "outside.txt")):
        output, error = run(tools, "read_file", path=path)
        assert error and "outside the workspace" in output, path
    output, error = run(tools, "write_file", path="sneaky-dir/new.txt", content="x")
    assert error and not (tools["tmp"] / "new.txt").exists()


def test_binary_and_missing_files_are_errors(tools) -> None:
    assert "binary file" in run(tools, "read_file", path="blob.bin")[0]
    assert run(tools, "read_file", path="nope.txt") == ("read_file failed: nope.txt is not a file", True)


def test_list_glob_grep(tools) -> None:
    assert run(tools, "list_dir")[0].splitlines() == ["pkg/", "blob.bin", "notes.md"]
    (tools["root"] / "top.py").write_text("")
    assert run(tools, "glob", pattern="**/*.py")[0] == "pkg/mod.py\ntop.py"
    assert run(tools, "glob", pattern="pkg/*.py")[0] == "pkg/mod.py"
    assert run(tools, "glob", pattern="*.py")[0] == "pkg/mod.py\ntop.py"
    assert run(tools, "grep", pattern="os\\.", include="*.py")[0] == "pkg/mod.py:4:     return os.getcwd()"
    assert "invalid regular expression" in run(tools, "grep", pattern="(")[0]


def test_write_and_edit(tools) -> None:
    assert run(tools, "write_file", path="new/dir/f.txt", content="a a")[1] is False
    assert "occurs 2 times" in run(tools, "edit_file", path="new/dir/f.txt", old_text="a", new_text="b")[0]
    assert run(tools, "edit_file", path="new/dir/f.txt", old_text="a", new_text="b", replace_all=True)[1] is False
    assert (tools["root"] / "new/dir/f.txt").read_text() == "b b"
    assert "was not found" in run(tools, "edit_file", path="new/dir/f.txt", old_text="zzz", new_text="")[0]


def test_bash_runs_in_the_workspace_without_api_keys(tools, monkeypatch) -> None:
    monkeypatch.setenv("HELIUM_API_KEY", "sk-hidden")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-hidden-too")
    output, error = run(tools, "bash", command="pwd; env | grep -c API_KEY; exit 3")
    assert not error
    assert output == f"exit code 3\n{tools['root']}\n0\n"
    assert run(tools, "bash", command="sleep 5", timeout=1)[0].startswith("timed out after 1s")

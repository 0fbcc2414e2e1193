"""A project mirrored into a sandbox: copied in, and what the run changed applied back (not over local edits)."""

from __future__ import annotations

from pathlib import Path

from helium.environments import LocalEnvironment
from helium.environments.local import TASK_SANDBOX_DIRS
from helium.environments.mirror import ProjectMirror, SyncReport
from helium.tools.fs_ops import SKIPPED_DIRS


def test_changes_come_back_and_local_edits_win(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "src" / "app.py").write_text("v1\n")
    (project / "keep.txt").write_text("mine\n")
    (project / "gone.txt").write_text("bye\n")
    (project / ".helium").mkdir()
    (project / ".helium" / "helium.db").write_text("store")
    reports: list[SyncReport] = []
    sandbox = LocalEnvironment(tmp_path / "sandbox", isolate=False, sandbox_dirs=TASK_SANDBOX_DIRS, workdir="/work")
    mirror = ProjectMirror(sandbox, project, skip=SKIPPED_DIRS, on_sync=reports.append)
    mirror.start()
    copy = tmp_path / "sandbox" / "work"
    assert (copy / "src" / "app.py").read_text() == "v1\n" and not (copy / ".helium").exists()
    (copy / "src" / "app.py").write_text("v2\n")
    (copy / "new.py").write_text("new\n")
    (copy / "gone.txt").unlink()
    (copy / "keep.txt").write_text("theirs\n")
    (copy / "__pycache__").mkdir()
    (copy / "__pycache__" / "x.pyc").write_bytes(b"\0")
    (project / "keep.txt").write_text("edited here meanwhile\n")
    mirror.stop()
    assert (project / "src" / "app.py").read_text() == "v2\n" and (project / "new.py").read_text() == "new\n"
    assert not (project / "gone.txt").exists() and not (project / "__pycache__").exists()
    assert (project / "keep.txt").read_text() == "edited here meanwhile\n"
    assert reports[0].summary() == ("copied back from the sandbox: 1 added, 1 changed, 1 deleted "
                                    "(new.py, src/app.py, gone.txt); left alone because they changed here "
                                    "meanwhile: keep.txt")
    mirror.stop()  # a second stop syncs nothing again
    assert len(reports) == 1

"""Every notebook in notebooks/ runs top to bottom in a real Jupyter kernel, from a temporary copy, and draws
its images."""

from __future__ import annotations

import shutil
from pathlib import Path

import nbformat
import pytest
from jupyter_client.kernelspec import KernelSpecManager
from nbclient import NotebookClient

from helium.graphs import FLOWS

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))
IMAGES = ("image/png", "image/svg+xml")
FEWEST_IMAGES = {"01_graphs": len(FLOWS) + 3, "02_resume_and_time_travel": 2, "03_task_runner": 1}
"""Images each notebook draws: every flow's graph (+ the subagent loop, a highlighted gate, a PNG); the waiting
run's graph and the two branches; the results plot."""


def test_the_notebooks_are_there() -> None:
    assert [n.name for n in NOTEBOOKS] == ["01_graphs.ipynb", "02_resume_and_time_travel.ipynb",
                                           "03_task_runner.ipynb"]


@pytest.mark.timeout(300)
@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_without_errors_and_renders_images(notebook: Path, tmp_path: Path) -> None:
    assert "python3" in KernelSpecManager().find_kernel_specs(), "ipykernel's python3 kernel is not installed"
    copy = tmp_path / notebook.name
    shutil.copy(notebook, copy)
    nb = nbformat.read(copy, as_version=4)
    assert not any(cell.get("outputs") for cell in nb.cells if cell.cell_type == "code"), "commit notebooks unexecuted"
    # raises CellExecutionError, naming the cell, on the first error
    NotebookClient(nb, timeout=240, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()
    outputs = [o for cell in nb.cells if cell.cell_type == "code" for o in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    images = [o for o in outputs if any(kind in IMAGES for kind in o.get("data", {}))]
    assert len(images) >= FEWEST_IMAGES[notebook.stem], f"{notebook.name} rendered {len(images)} images"
    assert not list(notebook.parent.glob(".helium")), "a notebook wrote into the repository"

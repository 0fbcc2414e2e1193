"""Tar archives for moving files in and out of sandboxes (docker's put/get_archive, daytona uploads)."""

from __future__ import annotations

import io
import tarfile
import tempfile
from collections.abc import Iterable
from pathlib import Path

from helium.environments.local import copy_path


def pack(source: Path, arcname: str, *, compress: bool = False) -> bytes:
    """A tar (gzip when `compress`) holding `source` (a file or a whole directory) under `arcname`."""
    if not source.exists():
        raise FileNotFoundError(f"{source} does not exist")
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz" if compress else "w") as tar:
        tar.add(source, arcname=arcname)
    return buffer.getvalue()


def unpack(chunks: Iterable[bytes], name: str, target: Path) -> None:
    """Extract the entry `name` of a tar stream (as docker's get_archive sends it) so it becomes `target`.

    Extraction uses tarfile's "data" filter: no absolute paths, no links out, no devices.
    """
    with tempfile.SpooledTemporaryFile(max_size=16 << 20) as spool:
        for chunk in chunks:
            spool.write(chunk)
        spool.seek(0)
        with tempfile.TemporaryDirectory(prefix="helium-unpack-") as scratch, \
                tarfile.open(fileobj=spool, mode="r:*") as tar:
            tar.extractall(scratch, filter="data")
            copy_path(Path(scratch, name), target)

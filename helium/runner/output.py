"""A trial's output folder: `<output_dir>/<task>_<timestamp>/` with config.json, result.json,
agent/trajectory.json and verifier/; and the redaction that keeps secrets out of all of them."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

from helium.environments.base import API_KEY_SUFFIX

CONFIG_FILE, RESULT_FILE = "config.json", "result.json"
TRAJECTORY_FILE = Path("agent") / "trajectory.json"
VERIFIER_DIR = "verifier"
REDACTED = "[redacted]"
MIN_SECRET_LENGTH = 6
"""Shorter values (the dummy key `ollama` wants, say) are not worth hunting for in outputs."""


def new_trial_dir(output_dir: Path, task_name: str) -> Path:
    """Create `<output_dir>/<task>_<timestamp>/`, adding -2, -3 … when trials start in the same second."""
    output_dir.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    for n in range(1, 10_000):
        candidate = output_dir / (f"{task_name}_{stamp}" + (f"-{n}" if n > 1 else ""))
        try:
            candidate.mkdir()
        except FileExistsError:
            continue
        (candidate / "agent").mkdir()
        (candidate / VERIFIER_DIR).mkdir()
        return candidate
    raise FileExistsError(f"too many trials of {task_name} in {output_dir} this second")


def secrets_to_hide(extra: Iterable[str | None] = ()) -> list[str]:
    """API keys from this process's environment and settings: the values no output file may contain."""
    values = [v for k, v in os.environ.items() if k.endswith(API_KEY_SUFFIX)] + [v for v in extra if v]
    return sorted({v for v in values if len(v) >= MIN_SECRET_LENGTH}, key=len, reverse=True)


def redact(text: str, secrets: Iterable[str]) -> str:
    for secret in secrets:
        text = text.replace(secret, REDACTED)
    return text


def write_json(path: Path, data: Any, secrets: Iterable[str]) -> None:
    """Write `data` as indented JSON with every secret value replaced; atomically, so a kill leaves no half file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(redact(json.dumps(data, indent=2, ensure_ascii=False), secrets) + "\n", encoding="utf-8")
    partial.replace(path)


def redact_tree(folder: Path, secrets: list[str]) -> None:
    """Scrub secrets from every text file under `folder` (verifier logs a task's tests printed, say)."""
    if not secrets:
        return
    for path in folder.rglob("*"):
        if not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        cleaned = redact(text, secrets)
        if cleaned != text:
            path.write_text(cleaned, encoding="utf-8")


def read_json(path: Path) -> dict[str, Any] | None:
    """A JSON object from a file, or None if it is missing or unreadable (a trial killed mid-write)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None

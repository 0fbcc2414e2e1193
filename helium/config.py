"""Settings: built-in defaults < ~/.config/helium/config.toml < .helium/config.toml < HELIUM_* env < flags.

The project file wins over the user file, environment variables over both files,
and command-line flags over everything.  Secrets (the API key) live only here and
in the chat-model client; they are never put into graph state or the store.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Literal

from helium.errors import ConfigError

DEFAULT_MODEL = "ollama/qwen2.5:7b"
"""The embedded default: a local Ollama server, no key, no network beyond loopback."""

ToolCalling = Literal["native", "prompt"]
ApprovalMode = Literal["ask", "auto", "deny"]

ENV_VARS: dict[str, str] = {
    "model": "HELIUM_MODEL",
    "base_url": "HELIUM_BASE_URL",
    "api_key": "HELIUM_API_KEY",
    "tool_calling": "HELIUM_TOOL_CALLING",
    "approve": "HELIUM_APPROVE",
    "embedding_base_url": "HELIUM_EMBEDDING_BASE_URL",
    "embedding_model": "HELIUM_EMBEDDING_MODEL",
    "memory": "HELIUM_MEMORY",
}


@dataclass(frozen=True)
class Settings:
    """Everything a flow needs to know about where it runs and which model it talks to."""

    workspace: Path
    model: str = DEFAULT_MODEL
    base_url: str | None = None
    api_key: str | None = field(default=None, repr=False)
    tool_calling: ToolCalling = "native"
    approve: ApprovalMode | None = None
    temperature: float = 0.3
    max_turns: int | None = None
    """Model turns per run; None means the flow's own default (chat 20, code 30)."""
    max_retries: int = 3
    request_timeout: float = 120.0
    tool_output_limit: int = 20_000
    prices: dict[str, dict[str, float]] = field(default_factory=dict)
    images: dict[str, str] = field(default_factory=dict)
    """`[images]`: image names tasks ask for -> local images (glob keys allowed), over the built-in aliases."""
    embedding_base_url: str | None = None
    """An OpenAI-compatible endpoint for embeddings; None uses the built-in offline model."""
    embedding_model: str = "all-MiniLM-L6-v2"
    memory: bool = True
    """Remember facts and conversation summaries and put the relevant ones into new runs' prompts."""
    memory_threshold: float = 0.25
    """Similarity (0-1) a remembered fact needs to a run's first message to be put into its prompt."""
    skill_threshold: float = 0.35
    """Similarity (0-1) a contextual skill's description needs to a run's first message to fire."""
    research: dict[str, Any] = field(default_factory=dict)
    """The `[research]` table: search endpoints, limits, source-policy domain lists (helium.nodes.research)."""

    @property
    def project_dir(self) -> Path:
        """`.helium/` in the workspace: the store, project config and permission rules."""
        return self.workspace / ".helium"

    @property
    def db_path(self) -> Path:
        return self.project_dir / "helium.db"

    @property
    def permissions_path(self) -> Path:
        return self.project_dir / "permissions.toml"


_CHOICES: dict[str, tuple[str, ...]] = {
    "tool_calling": ("native", "prompt"),
    "approve": ("ask", "auto", "deny"),
}
_TYPES: dict[str, type | tuple[type, ...]] = {
    "model": str,
    "base_url": str,
    "api_key": str,
    "tool_calling": str,
    "approve": str,
    "temperature": (int, float),
    "max_turns": int,
    "max_retries": int,
    "request_timeout": (int, float),
    "tool_output_limit": int,
    "prices": dict,
    "images": dict,
    "embedding_base_url": str,
    "embedding_model": str,
    "memory": bool,
    "memory_threshold": (int, float),
    "skill_threshold": (int, float),
    "research": dict,
}
_BOOLEANS = {"1": True, "true": True, "on": True, "yes": True, "0": False, "false": False, "off": False, "no": False}


def user_config_dir() -> Path:
    """`$XDG_CONFIG_HOME/helium`, else `~/.config/helium`."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "helium"


def load_settings(workspace: Path | None = None, **flags: Any) -> Settings:
    """Merge every settings layer; `flags` with value None are treated as not given."""
    root = (workspace or Path.cwd()).resolve()
    merged: dict[str, Any] = {}
    for path in (user_config_dir() / "config.toml", root / ".helium" / "config.toml"):
        merged.update(_read_config_file(path))
    for key, var in ENV_VARS.items():
        value = os.environ.get(var)
        if value:
            merged[key] = _validated(key, value, f"environment variable {var}")
    for key, value in flags.items():
        if value is not None:
            merged[key] = _validated(key, value, f"option --{key.replace('_', '-')}")
    return replace(Settings(workspace=root), **merged)


def _read_config_file(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read {path}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} is not valid TOML: {exc}") from None
    known = {f.name for f in fields(Settings)} - {"workspace"}
    unknown = sorted(set(data) - known)
    if unknown:
        raise ConfigError(f"unknown setting {unknown[0]!r} in {path} (known: {', '.join(sorted(known))})")
    return {key: _validated(key, value, f"{key!r} in {path}") for key, value in data.items()}


def _validated(key: str, value: Any, where: str) -> Any:
    expected = _TYPES[key]
    if key in ("max_turns", "max_retries", "tool_output_limit") and isinstance(value, str) and value.isdigit():
        value = int(value)
    if expected is bool and isinstance(value, str) and value.lower() in _BOOLEANS:
        value = _BOOLEANS[value.lower()]
    if not isinstance(value, expected) or (isinstance(value, bool) and expected is not bool):
        raise ConfigError(f"{where} must be a {_type_name(expected)}, got {value!r}")
    if key in _CHOICES and value not in _CHOICES[key]:
        raise ConfigError(f"{where} must be one of {', '.join(_CHOICES[key])}, got {value!r}")
    if key in ("memory_threshold", "skill_threshold") and not 0 <= value <= 1:
        raise ConfigError(f"{where} must be a similarity from 0 to 1, got {value!r}")
    if key in ("max_turns", "tool_output_limit") and value < 1:
        raise ConfigError(f"{where} must be at least 1, got {value!r}")
    if key == "prices":
        _check_prices(value, where)
    if key == "images" and not all(isinstance(v, str) for v in value.values()):
        raise ConfigError(f"{where}: every image alias must be a string, e.g. \"ubuntu:22.04\" = \"my-image:tag\"")
    return value


def _check_prices(prices: dict[str, Any], where: str) -> None:
    for model, entry in prices.items():
        if not (isinstance(entry, dict) and {"input", "output"} <= set(entry)
                and all(isinstance(entry[k], (int, float)) for k in ("input", "output"))):
            raise ConfigError(
                f"{where}: price for {model!r} needs numeric 'input' and 'output' (USD per million tokens)"
            )


def _type_name(expected: type | tuple[type, ...]) -> str:
    if isinstance(expected, tuple):
        return "number"
    return {str: "string", int: "whole number", dict: "table", bool: "true or false"}.get(expected, expected.__name__)

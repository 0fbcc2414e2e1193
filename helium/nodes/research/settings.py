"""Research settings: the `[research]` table of config.toml, HELIUM_SEARXNG_URL, and a run's own options.

```toml
[research]
searxng_url = "http://127.0.0.1:8888"
providers = ["searxng", "duckduckgo"]
max_rounds = 2
max_sources = 8            # pages fetched per round, best scored first
fetch_concurrency = 24     # pages fetched at once
fetch_per_host = 4         # ... from one host
fetch_timeout = 15         # seconds per page
max_page_bytes = 3000000
max_redirects = 5
citation_threshold = 0.5   # cosine similarity a cited sentence needs with a chunk of its source
authoritative = ["example.org"]   # added to the built-in domain lists
reputable = []
blogs = []
low = []
blocked = ["pinterest.com"]
```
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields, replace
from typing import Any

from helium.config import Settings
from helium.errors import ConfigError
from helium.tools.web.fetch import FetchLimits
from helium.tools.web.policy import SourcePolicy
from helium.tools.web.search import DUCKDUCKGO_URL, SEARXNG_URL

SEARXNG_ENV = "HELIUM_SEARXNG_URL"
MAX_QUERIES = 12
"""Search queries per round at most (the plan's, then each reflection's)."""
PROVIDERS = ("searxng", "duckduckgo")
DOMAIN_LISTS = ("authoritative", "reputable", "blogs", "low", "blocked")


@dataclass(frozen=True)
class ResearchSettings:
    searxng_url: str = SEARXNG_URL
    duckduckgo_url: str = DUCKDUCKGO_URL
    providers: tuple[str, ...] = PROVIDERS
    max_rounds: int = 2
    max_sources: int = 8
    results_per_query: int = 8
    search_timeout: float = 10.0
    fetch_concurrency: int = 24
    fetch_per_host: int = 4
    fetch_timeout: float = 15.0
    max_page_bytes: int = 3_000_000
    max_redirects: int = 5
    evidence_per_question: int = 4
    citation_threshold: float = 0.5
    policy: SourcePolicy = SourcePolicy()

    @property
    def fetch_limits(self) -> FetchLimits:
        return FetchLimits(self.fetch_concurrency, self.fetch_per_host, self.fetch_timeout, self.max_page_bytes,
                           self.max_redirects)


_NUMBERS = {"max_rounds": int, "max_sources": int, "results_per_query": int, "fetch_concurrency": int,
            "fetch_per_host": int, "max_page_bytes": int, "max_redirects": int, "evidence_per_question": int,
            "search_timeout": float, "fetch_timeout": float, "citation_threshold": float}


def research_settings(settings: Settings, options: dict[str, Any] | None = None) -> ResearchSettings:
    """The `[research]` table, then HELIUM_SEARXNG_URL, then the run's options (flags), later winning."""
    table = dict(settings.research)
    known = {f.name for f in fields(ResearchSettings)} - {"policy"} | set(DOMAIN_LISTS)
    unknown = sorted(set(table) - known)
    if unknown:
        raise ConfigError(f"unknown setting {unknown[0]!r} in [research] in config.toml "
                          f"(known: {', '.join(sorted(known))})")
    origin = dict.fromkeys(table, "in [research] in config.toml")
    if os.environ.get(SEARXNG_ENV):
        table["searxng_url"], origin["searxng_url"] = os.environ[SEARXNG_ENV], f"in {SEARXNG_ENV}"
    for key, value in (options or {}).items():
        if value is not None and key in known:
            table[key], origin[key] = value, f"from option --{key.replace('_', '-')}"
    values: dict[str, Any] = {}
    for key, value in table.items():
        where = origin[key]
        if key in _NUMBERS:
            values[key] = _number(key, value, _NUMBERS[key], where)
        elif key in ("searxng_url", "duckduckgo_url"):
            if not isinstance(value, str) or not value.startswith(("http://", "https://")):
                raise ConfigError(f"{key} {where} must be an http(s) URL, got {value!r}")
            values[key] = value
        elif key == "providers":
            if not isinstance(value, list) or not value or any(p not in PROVIDERS for p in value):
                raise ConfigError(f"providers {where} must list some of {', '.join(PROVIDERS)}, got {value!r}")
            values[key] = tuple(value)
    lists = {key: table[key] for key in DOMAIN_LISTS if key in table}
    for key, value in lists.items():
        if not isinstance(value, list) or not all(isinstance(d, str) for d in value):
            raise ConfigError(f"{key} {origin[key]} must be a list of domains, got {value!r}")
    return replace(ResearchSettings(), **values, policy=SourcePolicy().with_extra(**lists))


def _number(key: str, value: Any, kind: type, where: str) -> int | float:
    if isinstance(value, str) and value.replace(".", "", 1).isdigit():
        value = kind(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or (kind is int and not isinstance(value, int)):
        raise ConfigError(f"{key} {where} must be a {'whole ' if kind is int else ''}number, got {value!r}")
    if value <= 0 and key != "citation_threshold" or not (0 <= value <= 1) and key == "citation_threshold":
        raise ConfigError(f"{key} {where} is out of range: {value!r}")
    return kind(value)

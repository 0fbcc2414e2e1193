"""Image aliases: the images tasks ask for (`ubuntu:22.04`, `python:3.11-slim`) mapped to local ones.

No image can be pulled on an offline machine, so by default the common base images map
to `helium-sandbox:bookworm`, which `scripts/build-sandbox-image.sh` builds from Debian.
The `[images]` table of config.toml adds or overrides entries (`"ubuntu:22.04" = "my:tag"`);
keys may be glob patterns (`"python:*"`), exact names win over patterns.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Mapping

SANDBOX_IMAGE = "helium-sandbox:bookworm"
BUILD_SCRIPT = "scripts/build-sandbox-image.sh"

DEFAULT_IMAGE_ALIASES: dict[str, str] = {
    "ubuntu": SANDBOX_IMAGE, "ubuntu:*": SANDBOX_IMAGE,
    "debian": SANDBOX_IMAGE, "debian:*": SANDBOX_IMAGE,
    "python": SANDBOX_IMAGE, "python:*": SANDBOX_IMAGE,
    "buildpack-deps:*": SANDBOX_IMAGE,
}

_FROM = re.compile(r"^(\s*FROM\s+)((?:--\S+\s+)*)(\S+)(.*)$", re.IGNORECASE)


def image_aliases(overrides: Mapping[str, str] | None = None) -> dict[str, str]:
    """The defaults with the config's `[images]` table on top."""
    return DEFAULT_IMAGE_ALIASES | dict(overrides or {})


def resolve_image(name: str, aliases: Mapping[str, str]) -> str:
    """The local image to use for `name`: its exact alias, else the first matching pattern, else itself."""
    short = name
    for prefix in ("docker.io/", "library/"):
        short = short.removeprefix(prefix)
    candidates = dict.fromkeys([name, short])
    for candidate in candidates:
        if candidate in aliases:
            return aliases[candidate]
    for pattern, target in aliases.items():
        if any(ch in pattern for ch in "*?[") and any(fnmatch.fnmatchcase(c, pattern) for c in candidates):
            return target
    return name


def alias_dockerfile(text: str, aliases: Mapping[str, str]) -> tuple[str, list[str]]:
    """The Dockerfile with every aliased `FROM` image rewritten, and the base images it then needs.

    Names of earlier build stages (`FROM x AS builder` … `FROM builder`) are left alone.
    """
    stages: set[str] = set()
    bases: list[str] = []
    lines = []
    for line in text.splitlines(keepends=True):
        match = _FROM.match(line)
        if match:
            prefix, flags, image, rest = match.groups()
            if image.lower() not in stages and "$" not in image:
                image = resolve_image(image, aliases)
                bases.append(image)
                line = f"{prefix}{flags}{image}{rest}" + ("\n" if line.endswith("\n") else "")
            stage = re.search(r"\bAS\s+(\S+)", rest, re.IGNORECASE)
            if stage:
                stages.add(stage.group(1).lower())
        lines.append(line)
    return "".join(lines), bases


def missing_image_message(image: str, asked_for: str | None = None) -> str:
    """The one line a user sees when an image is not on this machine."""
    asked = f" (for {asked_for})" if asked_for and asked_for != image else ""
    if image == SANDBOX_IMAGE:
        return f"docker image {image}{asked} is not built yet; run {BUILD_SCRIPT} (needs root, debootstrap and Docker)"
    return (f"docker image {image}{asked} is not on this machine; `docker pull {image}` it, or map it to a local "
            f"image in the [images] table of .helium/config.toml")

"""Image aliases: which local image a task's image name becomes, and Dockerfiles rewritten to match."""

from __future__ import annotations

import subprocess
from pathlib import Path

import docker

from helium.environments.images import SANDBOX_IMAGE, alias_dockerfile, image_aliases, resolve_image


def test_names_resolve_exactly_then_by_pattern_then_to_themselves() -> None:
    aliases = image_aliases({"ubuntu:22.04": "my-local:tag", "corp/*": "corp-mirror:1"})
    assert resolve_image("ubuntu:22.04", aliases) == "my-local:tag"
    assert resolve_image("ubuntu:24.04", aliases) == SANDBOX_IMAGE
    assert resolve_image("python:3.11-slim", aliases) == SANDBOX_IMAGE
    assert resolve_image("docker.io/library/debian:bookworm", aliases) == SANDBOX_IMAGE
    assert resolve_image("corp/builder:7", aliases) == "corp-mirror:1"
    assert resolve_image("ghcr.io/acme/tool:1", aliases) == "ghcr.io/acme/tool:1"


def test_from_lines_are_rewritten_but_build_stages_and_flags_are_kept() -> None:
    text = ("# syntax\nFROM --platform=linux/amd64 python:3.11-slim AS build\nRUN echo hi\n"
            "from build\nFROM ubuntu:22.04\nCOPY --from=build /x /x\n")
    rewritten, bases = alias_dockerfile(text, image_aliases({}))
    assert rewritten == ("# syntax\nFROM --platform=linux/amd64 helium-sandbox:bookworm AS build\nRUN echo hi\n"
                         "from build\nFROM helium-sandbox:bookworm\nCOPY --from=build /x /x\n")
    assert bases == [SANDBOX_IMAGE, SANDBOX_IMAGE]


def test_the_build_script_is_idempotent(engine: docker.DockerClient) -> None:
    script = Path(__file__).resolve().parents[2] / "scripts" / "build-sandbox-image.sh"
    result = subprocess.run([str(script)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == (f"build-sandbox-image: {SANDBOX_IMAGE} already exists, nothing to do "
                                     "(--force rebuilds it)")

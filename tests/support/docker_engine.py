"""The real Docker engine for tests: skip (with the reason) only where none answers, and never in CI with one."""

from __future__ import annotations

import os

import docker
import pytest
from docker.errors import DockerException, ImageNotFound

from helium.environments.docker import LABEL
from helium.environments.images import BUILD_SCRIPT, SANDBOX_IMAGE

REQUIRE_DOCKER = "HELIUM_REQUIRE_DOCKER"


def docker_or_skip() -> docker.DockerClient:
    """A client for a running engine with the sandbox image built; skip if no engine, fail if no image."""
    try:
        client = docker.from_env(timeout=60)
        client.ping()
    except DockerException as exc:
        reason = f"no Docker engine answers here ({str(exc).splitlines()[0]}); start dockerd to run this test"
        if os.environ.get(REQUIRE_DOCKER):  # set by .ci/run once it has an engine: a skip there would hide a break
            pytest.fail(reason)
        pytest.skip(reason)
    try:
        client.images.get(SANDBOX_IMAGE)
    except ImageNotFound:
        pytest.fail(f"{SANDBOX_IMAGE} is not built: run {BUILD_SCRIPT}")
    return client


def containers_labelled(client: docker.DockerClient, name: str) -> list[str]:
    """Names of every container (running or not) an environment called `name` left behind."""
    return [c.name for c in client.containers.list(all=True, filters={"label": f"{LABEL}={name}"})]

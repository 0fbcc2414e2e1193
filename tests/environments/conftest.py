from __future__ import annotations

import docker
import pytest

from tests.support.docker_engine import docker_or_skip


@pytest.fixture(scope="session")
def engine() -> docker.DockerClient:
    return docker_or_skip()

"""Where commands run: one protocol, three places (this machine, a docker container, a Daytona sandbox)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from helium.config import load_settings
from helium.environments.base import Environment, EnvironmentSpec, ExecResult, HostPaths, SandboxError
from helium.environments.daytona import DaytonaEnvironment
from helium.environments.docker import DockerEnvironment, remove_orphaned_containers
from helium.environments.images import image_aliases
from helium.environments.local import TASK_SANDBOX_DIRS, LocalEnvironment
from helium.errors import ConfigError

PROVIDERS = ("local", "docker", "daytona")

__all__ = ["PROVIDERS", "DaytonaEnvironment", "DockerEnvironment", "Environment", "EnvironmentSpec", "ExecResult",
           "HostPaths", "LocalEnvironment", "SandboxError", "create_environment", "remove_orphaned_containers"]


def create_environment(provider: str, spec: EnvironmentSpec, *, local_root: Path, name: str,
                       images: Mapping[str, str] | None = None) -> Environment:
    """A sandbox for one run, not yet started: call `start()`, and `stop()` in a `finally`.

    `local`: a task sandbox under `local_root` (`/app`, `/home`, `/logs`, … mapped there, bubblewrap where
    installed); `docker`: a container of the spec's (aliased) image or built Dockerfile; `daytona`: a cloud
    sandbox.  `images` are the image aliases over the built-in ones (default: the `[images]` table of the
    current project's config).  `name` labels the container or sandbox.
    """
    if provider == "local":
        return LocalEnvironment(local_root, isolate=True, allow_network=spec.allow_network,
                                sandbox_dirs=TASK_SANDBOX_DIRS, workdir=spec.workdir)
    if provider == "docker":
        aliases = image_aliases(load_settings().images if images is None else images)
        return DockerEnvironment(spec, name=name, aliases=aliases)
    if provider == "daytona":
        return DaytonaEnvironment(spec, name=name)
    raise ConfigError(f"unknown environment provider {provider!r}; choose one of {', '.join(PROVIDERS)}")

"""The daytona environment: a Daytona cloud sandbox through the `daytona` SDK (optional extra).

`start` creates an ephemeral sandbox from the task's image or Dockerfile (with its CPU and
memory, network blocked unless allowed), `exec` runs `sandbox.process.exec`, files move as
tar archives through `sandbox.fs.upload_file` / `download_file`, and `stop` deletes the
sandbox.  Daytona's exec returns stdout and stderr as one stream: `stderr` stays empty.
"""

from __future__ import annotations

import os
import posixpath
import shlex
import time
import uuid
from math import ceil
from pathlib import Path
from types import ModuleType
from typing import Any

from helium.environments.archive import pack, unpack
from helium.environments.base import EnvironmentSpec, ExecResult, SandboxError, without_api_keys
from helium.environments.commands import killed_by_timeout, timed_argv

API_KEY_VARIABLE = "DAYTONA_API_KEY"
TRANSFER_DIR = "/tmp"


def load_sdk() -> ModuleType:
    """The daytona SDK, or one line saying how to install it."""
    try:
        import daytona
    except ImportError:
        raise SandboxError("the daytona environment needs the daytona extra: pip install 'helium-agent[daytona]'") from None
    return daytona


class DaytonaEnvironment:
    name = "daytona"

    def __init__(self, spec: EnvironmentSpec, *, name: str, sdk: ModuleType | None = None,
                 client: Any | None = None) -> None:
        self.spec = spec
        self.root = spec.workdir
        self.label = name
        self._sdk = sdk
        self._client = client
        self._sandbox: Any | None = None

    @property
    def isolation(self) -> str:
        network = "network on" if self.spec.allow_network else "no network"
        where = f"sandbox {self._sandbox.id}" if self._sandbox is not None else "a sandbox"
        return f"daytona: {where} in Daytona's cloud, {network}"

    @property
    def host_paths(self) -> None:
        return None

    def start(self) -> None:
        sdk = self._sdk or load_sdk()
        if self._client is None:
            api_key = os.environ.get(API_KEY_VARIABLE)
            if not api_key:
                raise SandboxError(f"the daytona environment needs an API key: set {API_KEY_VARIABLE}")
            self._client = sdk.Daytona(sdk.DaytonaConfig(api_key=api_key))
        try:
            self._sandbox = self._client.create(self._params(sdk), timeout=self.spec.build_timeout_sec)
            self._checked(f"mkdir -p {shlex.quote(self.root)}")
        except sdk.DaytonaError as exc:
            self.stop()
            raise SandboxError(f"daytona could not create the sandbox: {exc}") from None
        except BaseException:
            self.stop()
            raise

    def _params(self, sdk: ModuleType) -> Any:
        common: dict[str, Any] = {
            "name": f"helium-{self.label}-{uuid.uuid4().hex[:8]}", "labels": {"helium.environment": self.label},
            "env_vars": {}, "network_block_all": not self.spec.allow_network, "ephemeral": True,
        }
        resources = None
        if self.spec.cpus or self.spec.memory_mb:
            resources = sdk.Resources(cpu=ceil(self.spec.cpus) if self.spec.cpus else None,
                                      memory=max(1, ceil(self.spec.memory_mb / 1024)) if self.spec.memory_mb else None)
        if self.spec.image:
            return sdk.CreateSandboxFromImageParams(image=self.spec.image, resources=resources, **common)
        if self.spec.dockerfile_dir:
            dockerfile = Path(self.spec.dockerfile_dir) / "Dockerfile"
            if not dockerfile.is_file():
                raise SandboxError(f"{dockerfile} not found: the environment needs a Dockerfile or a docker_image")
            return sdk.CreateSandboxFromImageParams(image=sdk.Image.from_dockerfile(dockerfile), resources=resources,
                                                    **common)
        return sdk.CreateSandboxFromSnapshotParams(language="python", **common)

    def exec(self, command: str, cwd: str | None = None, env: dict[str, str] | None = None,
             timeout: float | None = None) -> ExecResult:
        sandbox = self._require()
        started = time.monotonic()
        response = sandbox.process.exec(shlex.join(timed_argv(command, timeout)),
                                        cwd=posixpath.join(self.root, cwd or "."), env=without_api_keys(env),
                                        timeout=ceil(timeout) + 5 if timeout else None)
        exit_code = response.exit_code if response.exit_code is not None else -1
        return ExecResult(response.result or "", "", exit_code,
                          killed_by_timeout(exit_code, time.monotonic() - started, timeout))

    def upload(self, source: Path, target: str) -> None:
        parent, name = posixpath.split(posixpath.join(self.root, target).rstrip("/"))
        archive = f"{TRANSFER_DIR}/helium-upload-{uuid.uuid4().hex}.tar.gz"
        self._require().fs.upload_file(pack(Path(source), name, compress=True), archive)
        self._checked(f"mkdir -p {shlex.quote(parent)} && tar -xzf {archive} -C {shlex.quote(parent)} "
                      f"&& rm -f {archive}")

    def download(self, source: str, target: Path) -> None:
        path = posixpath.normpath(posixpath.join(self.root, source))
        parent, name = posixpath.split(path)
        archive = f"{TRANSFER_DIR}/helium-download-{uuid.uuid4().hex}.tar"
        result = self.exec(f"test -e {shlex.quote(path)} && tar -cf {archive} -C {shlex.quote(parent or '/')} "
                           f"{shlex.quote(name)}")
        if result.exit_code != 0:
            raise FileNotFoundError(f"{source} does not exist in the sandbox")
        try:
            data = self._require().fs.download_file(archive)
        finally:
            self.exec(f"rm -f {archive}")
        unpack([data], name, Path(target))

    def stop(self) -> None:
        sandbox, self._sandbox = self._sandbox, None
        if sandbox is not None and self._client is not None:
            self._client.delete(sandbox)

    def _require(self) -> Any:
        if self._sandbox is None:
            raise SandboxError("the daytona environment is not started")
        return self._sandbox

    def _checked(self, command: str) -> None:
        result = self.exec(command)
        if result.exit_code != 0:
            raise SandboxError(f"{command} failed in the daytona sandbox: {result.stdout.strip()}")

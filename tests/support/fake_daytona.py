"""A stand-in for the `daytona` SDK at its boundary: the SDK's own class and method names and signatures
(checked against the real SDK where it is installed), with sandboxes that are real docker containers,
since Daytona's service cannot be reached from here."""

from __future__ import annotations

import io
import posixpath
import tarfile
import uuid
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

import docker

from helium.environments.images import SANDBOX_IMAGE


class DaytonaError(Exception):
    pass


@dataclass
class DaytonaConfig:
    api_key: str | None = None
    api_url: str | None = None


@dataclass
class Resources:
    cpu: int | None = None
    memory: int | None = None
    disk: int | None = None


@dataclass
class Image:
    dockerfile: str

    @staticmethod
    def from_dockerfile(path: Any, *, strict_context: bool = False) -> Image:
        return Image(open(path).read())


@dataclass
class CreateSandboxFromImageParams:
    image: str | Image
    name: str | None = None
    resources: Resources | None = None
    env_vars: dict[str, str] | None = None
    labels: dict[str, str] | None = None
    network_block_all: bool | None = None
    ephemeral: bool | None = None


@dataclass
class CreateSandboxFromSnapshotParams:
    language: str | None = None
    name: str | None = None
    snapshot: str | None = None
    env_vars: dict[str, str] | None = None
    labels: dict[str, str] | None = None
    network_block_all: bool | None = None
    ephemeral: bool | None = None


@dataclass
class ExecuteResponse:
    exit_code: int
    result: str


class Process:
    def __init__(self, container: Any) -> None:
        self._container = container

    def exec(self, command: str, cwd: str | None = None, env: dict[str, str] | None = None,
             timeout: int | None = None) -> ExecuteResponse:
        code, output = self._container.exec_run(["sh", "-c", command], workdir=cwd, environment=env or {})
        return ExecuteResponse(exit_code=code, result=output.decode(errors="replace"))


class FileSystem:
    def __init__(self, container: Any) -> None:
        self._container = container

    def upload_file(self, src: str | bytes, dst: str, timeout: int = 30 * 60) -> None:
        data = src if isinstance(src, bytes) else open(src, "rb").read()
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w") as tar:
            info = tarfile.TarInfo(posixpath.basename(dst))
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
        self._container.put_archive(posixpath.dirname(dst), buffer.getvalue())

    def download_file(self, *args: str) -> bytes | None:
        chunks, _ = self._container.get_archive(args[0])
        with tarfile.open(fileobj=io.BytesIO(b"".join(chunks))) as tar:
            member = tar.extractfile(tar.getmembers()[0])
            assert member is not None
            return member.read()


@dataclass
class Sandbox:
    id: str
    container: Any
    params: Any
    process: Process = field(init=False)
    fs: FileSystem = field(init=False)

    def __post_init__(self) -> None:
        self.process = Process(self.container)
        self.fs = FileSystem(self.container)


class Daytona:
    """Records what it was asked; each sandbox is a container of the local sandbox image."""

    def __init__(self, config: DaytonaConfig | None = None) -> None:
        self.config = config
        self.created: list[Sandbox] = []
        self.deleted: list[str] = []
        self._engine = docker.from_env()

    def create(self, params: Any = None, *, timeout: float = 60, on_snapshot_create_logs: Any = None) -> Sandbox:
        container = self._engine.containers.run(SANDBOX_IMAGE, ["sleep", "infinity"], detach=True, init=True,
                                                labels={"helium.environment": "fake-daytona"},
                                                network_mode="none" if params.network_block_all else "bridge")
        sandbox = Sandbox(id=uuid.uuid4().hex[:12], container=container, params=params)
        self.created.append(sandbox)
        return sandbox

    def delete(self, sandbox: Sandbox, timeout: float = 60, wait: bool = False) -> None:
        sandbox.container.remove(force=True)
        self.deleted.append(sandbox.id)


def fake_sdk() -> SimpleNamespace:
    """The module-shaped object DaytonaEnvironment takes in place of `import daytona`."""
    return SimpleNamespace(Daytona=Daytona, DaytonaConfig=DaytonaConfig, DaytonaError=DaytonaError,
                           Resources=Resources, Image=Image, CreateSandboxFromImageParams=CreateSandboxFromImageParams,
                           CreateSandboxFromSnapshotParams=CreateSandboxFromSnapshotParams)

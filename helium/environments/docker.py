"""The docker environment: one container per run, through the docker SDK against a real engine.

The image is the task's `docker_image` (aliased to a local image, see images.py) or the
task's `environment/Dockerfile` built with its aliased `FROM`; the container runs with the
task's CPU and memory limits, without network unless the task allows it, and without any
of this machine's environment variables.  `stop()` always removes it.
"""

from __future__ import annotations

import hashlib
import io
import os
import posixpath
import re
import socket
import tarfile
import time
import uuid
from collections.abc import Mapping
from pathlib import Path

import docker
from docker.errors import APIError, BuildError, DockerException, ImageNotFound, NotFound
from docker.models.containers import Container
from requests.exceptions import ConnectionError as RequestsConnectionError
from requests.exceptions import ReadTimeout

from helium.environments.archive import pack, unpack
from helium.environments.commands import killed_by_timeout, timed_argv
from helium.environments.base import EnvironmentSpec, ExecResult, SandboxError, without_api_keys
from helium.environments.images import SANDBOX_IMAGE, alias_dockerfile, missing_image_message, resolve_image

LABEL = "helium.environment"
"""Every container and built image carries it: `docker ps -a --filter label=helium.environment`."""
OWNER_LABEL = "helium.owner"
"""`host:pid:start` of the process that made a container, so a later run can tell it was orphaned by a kill -9."""
PIDS_LIMIT = 4096


def connect() -> docker.DockerClient:
    """A client for the engine DOCKER_HOST names (or the local socket), checked with a ping."""
    try:
        client = docker.from_env(timeout=None)  # commands may run long; `exec` bounds them with `timeout`
        client.ping()
    except (DockerException, RequestsConnectionError) as exc:
        raise SandboxError(f"no Docker engine answers ({_first_line(exc)}); start dockerd or set DOCKER_HOST") from None
    return client


class DockerEnvironment:
    name = "docker"

    def __init__(self, spec: EnvironmentSpec, *, name: str, aliases: Mapping[str, str],
                 client: docker.DockerClient | None = None) -> None:
        self.spec = spec
        self.root = spec.workdir
        self.label = name
        self.image: str | None = None
        self._aliases = aliases
        self._client = client
        self._container: Container | None = None

    @property
    def isolation(self) -> str:
        limits = [f"{self.spec.cpus:g} CPUs" if self.spec.cpus else "", f"{self.spec.memory_mb} MB" if self.spec.memory_mb else ""]
        network = "network on" if self.spec.allow_network else "no network"
        return f"docker: container of {self.image or 'its image'}, {', '.join([network, *filter(None, limits)])}"

    @property
    def host_paths(self) -> None:
        return None

    def check(self) -> None:
        """Reach the engine and find a named image now, so a missing one fails before anything runs."""
        self._client = self._client or connect()
        if not self.spec.dockerfile_dir or self.spec.image:
            self.image = self._image()

    def start(self) -> None:
        try:
            self._client = self._client or connect()
            self.image = self._image()
            self._container = self._create()
            try:
                self._container.start()
            except APIError as exc:
                raise SandboxError(f"docker could not start the container: {_first_line(exc)}") from None
            self._checked(["mkdir", "-p", self.root])
        except BaseException:
            self.stop()
            raise

    def _create(self) -> Container:
        assert self._client is not None
        limits: dict[str, object] = {}
        if self.spec.cpus:
            limits["nano_cpus"] = int(self.spec.cpus * 1e9)
        if self.spec.memory_mb:
            limits["mem_limit"] = f"{self.spec.memory_mb}m"
        slug = re.sub(r"[^a-zA-Z0-9_.-]+", "-", self.label).strip("-.")[:40] or "run"
        try:
            return self._client.containers.create(
                self.image, command=["sleep", "infinity"], name=f"helium-{slug}-{uuid.uuid4().hex[:8]}",
                labels={LABEL: self.label, OWNER_LABEL: process_owner(os.getpid())}, working_dir=self.root,
                environment={}, detach=True,
                init=True,  # docker-init as PID 1 reaps what a killed command leaves behind
                network_mode="bridge" if self.spec.allow_network else "none", pids_limit=PIDS_LIMIT, **limits)
        except APIError as exc:
            raise SandboxError(f"docker could not create the container: {_first_line(exc)}") from None

    def _image(self) -> str:
        if self.spec.image:
            return self._local_image(resolve_image(self.spec.image, self._aliases), self.spec.image)
        if self.spec.dockerfile_dir:
            return self._build(Path(self.spec.dockerfile_dir))
        return self._local_image(SANDBOX_IMAGE, None)

    def _local_image(self, image: str, asked_for: str | None) -> str:
        assert self._client is not None
        try:
            self._client.images.get(image)
        except ImageNotFound:
            raise SandboxError(missing_image_message(image, asked_for)) from None
        return image

    def _build(self, folder: Path) -> str:
        """Build the folder's Dockerfile with aliased FROM lines; the tag is the context's hash, so it is cached."""
        assert self._client is not None
        dockerfile = folder / "Dockerfile"
        if not dockerfile.is_file():
            raise SandboxError(f"{dockerfile} not found: the environment needs a Dockerfile or a docker_image")
        text, bases = alias_dockerfile(dockerfile.read_text(encoding="utf-8"), self._aliases)
        for base in bases:
            if base != "scratch":
                self._local_image(base, None)
        context = _build_context(folder, text)
        tag = f"helium-env:{hashlib.sha256(context).hexdigest()[:16]}"
        try:
            self._client.images.get(tag)
            return tag
        except ImageNotFound:
            pass
        try:
            self._client.images.build(fileobj=io.BytesIO(context), custom_context=True, tag=tag, rm=True,
                                      forcerm=True, pull=False, labels={LABEL: "build"},
                                      timeout=self.spec.build_timeout_sec)
        except BuildError as exc:
            raise SandboxError(f"building {dockerfile} failed: {_first_line(exc)}") from None
        except ReadTimeout:
            raise SandboxError(f"building {dockerfile} took longer than {self.spec.build_timeout_sec:g}s "
                               "(build_timeout_sec)") from None
        except APIError as exc:
            raise SandboxError(f"building {dockerfile} failed: {_first_line(exc)}") from None
        return tag

    def exec(self, command: str, cwd: str | None = None, env: dict[str, str] | None = None,
             timeout: float | None = None) -> ExecResult:
        started = time.monotonic()
        exit_code, (out, err) = self._require().exec_run(
            timed_argv(command, timeout), workdir=posixpath.join(self.root, cwd or "."),
            environment=without_api_keys(env), demux=True)
        return ExecResult((out or b"").decode(errors="replace"), (err or b"").decode(errors="replace"),
                          exit_code, killed_by_timeout(exit_code, time.monotonic() - started, timeout))

    def upload(self, source: Path, target: str) -> None:
        parent, name = posixpath.split(posixpath.join(self.root, target).rstrip("/"))
        self._checked(["mkdir", "-p", parent])
        if not self._require().put_archive(parent, pack(Path(source), name)):
            raise SandboxError(f"docker refused the upload of {source} to {target}")

    def download(self, source: str, target: Path) -> None:
        path = posixpath.normpath(posixpath.join(self.root, source))
        try:
            chunks, _ = self._require().get_archive(path)
        except NotFound:
            raise FileNotFoundError(f"{source} does not exist in the container") from None
        unpack(chunks, posixpath.basename(path), Path(target))

    def stop(self) -> None:
        container, self._container = self._container, None
        if container is not None:
            try:
                container.remove(force=True)
            except NotFound:
                pass

    def _require(self) -> Container:
        if self._container is None:
            raise SandboxError("the docker environment is not started")
        return self._container

    def _checked(self, argv: list[str]) -> None:
        exit_code, output = self._require().exec_run(argv)
        if exit_code != 0:
            raise SandboxError(f"{' '.join(argv)} failed in the container: {output.decode(errors='replace').strip()}")


def process_owner(pid: int) -> str:
    """`host:pid:start time` of a process on this machine (the start time tells a reused pid apart)."""
    return f"{socket.gethostname()}:{pid}:{_start_ticks(pid)}"


def _start_ticks(pid: int) -> str:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return "?"
    return stat.rsplit(")", 1)[1].split()[19]  # field 22, counted after the command name


def _owner_is_gone(owner: str) -> bool:
    """Whether the process named by a container's owner label has ended; unknown formats and other hosts: no."""
    host, _, rest = owner.partition(":")
    pid, _, start = rest.partition(":")
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return start != "?" and _start_ticks(int(pid)) not in (start, "?")


def remove_orphaned_containers(client: docker.DockerClient | None = None) -> list[str]:
    """Remove the containers whose Helium process on this machine died without stopping them (kill -9).

    Containers of live processes, of other machines sharing the engine, and without an owner label are left alone.
    Returns the names removed.
    """
    client = client or connect()
    removed = []
    for container in client.containers.list(all=True, filters={"label": OWNER_LABEL}):
        if _owner_is_gone(container.labels.get(OWNER_LABEL, "")):
            try:
                container.remove(force=True)
            except NotFound:
                continue
            removed.append(container.name)
    return removed


def _build_context(folder: Path, dockerfile: str) -> bytes:
    """The build context as a reproducible tar (fixed times and owners), with the rewritten Dockerfile."""

    def normalise(info: tarfile.TarInfo) -> tarfile.TarInfo:
        info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
        return info

    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for path in sorted(folder.rglob("*")):
            relative = path.relative_to(folder).as_posix()
            if relative != "Dockerfile":
                tar.add(path, arcname=relative, recursive=False, filter=normalise)
        data = dockerfile.encode()
        info = normalise(tarfile.TarInfo("Dockerfile"))
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _first_line(exc: BaseException) -> str:
    text = str(getattr(exc, "explanation", None) or exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__

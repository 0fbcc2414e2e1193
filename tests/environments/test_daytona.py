"""The daytona environment against a fake at the SDK boundary (real names, real signatures, real containers)."""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

import docker
import pytest

from helium.environments import DaytonaEnvironment, EnvironmentSpec, SandboxError, create_environment
from helium.environments.daytona import load_sdk
from tests.support import fake_daytona
from tests.support.docker_engine import containers_labelled


def test_a_sandbox_is_created_used_and_deleted(engine: docker.DockerClient, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("DAYTONA_API_KEY", "dtn-secret")
    environment = DaytonaEnvironment(EnvironmentSpec(image="python:3.11-slim", cpus=1.5, memory_mb=1536),
                                     name="trial", sdk=fake_daytona.fake_sdk())
    environment.start()
    client = environment._client
    try:
        params = client.created[0].params
        assert client.config.api_key == "dtn-secret"
        assert (params.image, params.resources.cpu, params.resources.memory) == ("python:3.11-slim", 2, 2)
        assert params.network_block_all is True and params.ephemeral is True and params.env_vars == {}
        result = environment.exec("pwd; echo $GREETING; env | grep -c API_KEY; exit 3",
                                  env={"GREETING": "hi", "OPENAI_API_KEY": "sk-x"})
        assert (result.stdout, result.exit_code, result.timed_out) == ("/app\nhi\n0\n", 3, False)
        assert environment.exec("sleep 20", timeout=1).timed_out
        tests = tmp_path / "tests"
        tests.mkdir()
        (tests / "test.sh").write_text("mkdir -p /logs/verifier && echo 1 > /logs/verifier/reward.txt\n")
        environment.upload(tests, "/tests")
        assert environment.exec("bash /tests/test.sh").exit_code == 0
        environment.download("/logs/verifier", tmp_path / "verifier")
        assert (tmp_path / "verifier" / "reward.txt").read_text() == "1\n"
        with pytest.raises(FileNotFoundError):
            environment.download("/logs/none", tmp_path / "none")
    finally:
        environment.stop()
    assert client.deleted == [client.created[0].id]
    assert containers_labelled(engine, "fake-daytona") == []


def test_a_dockerfile_becomes_a_daytona_image(tmp_path: Path) -> None:
    (tmp_path / "Dockerfile").write_text("FROM ubuntu:22.04\n")
    sdk = fake_daytona.fake_sdk()
    params = DaytonaEnvironment(EnvironmentSpec(dockerfile_dir=tmp_path), name="t", sdk=sdk)._params(sdk)
    assert params.image.dockerfile == "FROM ubuntu:22.04\n" and params.resources is None


def test_a_missing_key_or_extra_is_one_clear_line(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("DAYTONA_API_KEY", raising=False)
    environment = DaytonaEnvironment(EnvironmentSpec(), name="t", sdk=fake_daytona.fake_sdk())
    with pytest.raises(SandboxError, match="needs an API key: set DAYTONA_API_KEY"):
        environment.start()
    monkeypatch.setitem(sys.modules, "daytona", None)  # as if the extra were not installed
    with pytest.raises(SandboxError, match=r"pip install 'helium-agent\[daytona\]'"):
        load_sdk()
    with pytest.raises(SandboxError, match="daytona extra"):
        create_environment("daytona", EnvironmentSpec(), local_root=tmp_path, name="t").start()


def test_the_fake_has_the_real_sdk_names_and_signatures() -> None:
    daytona = pytest.importorskip("daytona", reason="the daytona extra is not installed: nothing to compare with")
    from daytona._sync.filesystem import FileSystem
    from daytona._sync.process import Process

    pairs = [(daytona.Daytona.create, fake_daytona.Daytona.create), (daytona.Daytona.delete, fake_daytona.Daytona.delete),
             (Process.exec, fake_daytona.Process.exec), (FileSystem.upload_file, fake_daytona.FileSystem.upload_file),
             (FileSystem.download_file, fake_daytona.FileSystem.download_file)]
    for real, fake in pairs:
        assert list(inspect.signature(real).parameters) == list(inspect.signature(fake).parameters), real.__qualname__
    for name in ("Daytona", "DaytonaConfig", "DaytonaError", "Resources", "Image", "CreateSandboxFromImageParams",
                 "CreateSandboxFromSnapshotParams"):
        assert hasattr(daytona, name), name
    for params in ("CreateSandboxFromImageParams", "CreateSandboxFromSnapshotParams"):
        fields = set(getattr(daytona, params).model_fields)
        assert set(inspect.signature(getattr(fake_daytona, params)).parameters) <= fields, params
    assert {"cpu", "memory"} <= set(inspect.signature(daytona.Resources).parameters)
    assert "api_key" in daytona.DaytonaConfig.model_fields
    assert list(inspect.signature(daytona.Image.from_dockerfile).parameters) == ["path", "strict_context"]

"""Settings layers: defaults < user config < project config < HELIUM_* env < flags."""

from __future__ import annotations

from pathlib import Path

import pytest

from helium.config import DEFAULT_MODEL, load_settings
from helium.errors import ConfigError


@pytest.fixture
def layers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    home_config = tmp_path / "xdg" / "helium"
    home_config.mkdir(parents=True)
    project = tmp_path / "project"
    (project / ".helium").mkdir(parents=True)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    for var in ("HELIUM_MODEL", "HELIUM_BASE_URL", "HELIUM_API_KEY", "HELIUM_TOOL_CALLING", "HELIUM_APPROVE"):
        monkeypatch.delenv(var, raising=False)
    return home_config / "config.toml", project


def test_defaults_when_nothing_is_configured(layers: tuple[Path, Path]) -> None:
    _, project = layers
    settings = load_settings(project)
    assert settings.model == DEFAULT_MODEL and settings.base_url is None
    assert settings.db_path == project.resolve() / ".helium" / "helium.db"


def test_project_beats_user_env_beats_files_flags_beat_everything(layers, monkeypatch) -> None:
    user_file, project = layers
    user_file.write_text('model = "user-model"\nbase_url = "http://user/v1"\nmax_turns = 7\n')
    (project / ".helium" / "config.toml").write_text('model = "project-model"\n')
    settings = load_settings(project)
    assert (settings.model, settings.base_url, settings.max_turns) == ("project-model", "http://user/v1", 7)
    monkeypatch.setenv("HELIUM_MODEL", "env-model")
    assert load_settings(project).model == "env-model"
    assert load_settings(project, model="flag-model", base_url=None).model == "flag-model"


@pytest.mark.parametrize(("text", "message"), [
    ("model = 3\n", "'model' in"),
    ("tool_calling = \"xml\"\n", "must be one of native, prompt"),
    ("mdoel = \"x\"\n", "unknown setting 'mdoel'"),
    ("model = \n", "is not valid TOML"),
    ("[prices.\"my-model\"]\ninput = 1\n", "needs numeric 'input' and 'output'"),
])
def test_bad_config_names_the_file_and_the_setting(layers, text: str, message: str) -> None:
    _, project = layers
    (project / ".helium" / "config.toml").write_text(text)
    with pytest.raises(ConfigError, match=message) as info:
        load_settings(project)
    assert "config.toml" in str(info.value)


def test_bad_flag_value_is_named(layers) -> None:
    _, project = layers
    with pytest.raises(ConfigError, match="option --approve must be one of ask, auto, deny"):
        load_settings(project, approve="sometimes")

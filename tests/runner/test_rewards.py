"""Reading rewards: reward.txt and reward.json, and every way they can be unusable (an error, not a 0)."""

from __future__ import annotations

from pathlib import Path

import pytest

from helium.runner.verifier import RewardError, parse_reward_json, parse_reward_text, read_reward


def test_reward_txt_is_one_finite_number() -> None:
    assert parse_reward_text("1\n") == 1.0
    assert parse_reward_text(" 0.25 ") == 0.25
    assert parse_reward_text("0") == 0.0
    for bad, why in [("", "empty"), ("  \n", "empty"), ("passed", "not a number"), ("1 2", "not a number"),
                     ("nan", "not a finite"), ("inf", "not a finite")]:
        with pytest.raises(RewardError, match=why):
            parse_reward_text(bad)


def test_reward_json_uses_its_reward_key_else_the_mean() -> None:
    assert parse_reward_json('{"reward": 0.5, "style": 1}') == (0.5, {"reward": 0.5, "style": 1.0})
    assert parse_reward_json('{"lines": 1, "words": 0, "chars": 1}')[0] == pytest.approx(2 / 3)
    # Harbor's form: the reward and any details beside it (only numbers are kept as named rewards).
    assert parse_reward_json('{"reward": 0.75, "passed": 3, "details": {"failed": ["t"]}, "note": "x"}') == (
        0.75, {"reward": 0.75, "passed": 3.0})
    with pytest.raises(RewardError, match="key 'reward' is not a finite number"):
        parse_reward_json('{"reward": "high", "details": {}}')
    for bad, why in [("", "empty"), ("[1]", "non-empty object"), ("{}", "non-empty object"), ("{", "not valid JSON"),
                     ('{"a": "1"}', "key 'a' is not a finite number"), ('{"a": true}', "key 'a'"),
                     ('{"a": NaN}', "key 'a'"), ('{"a": Infinity}', "key 'a'")]:
        with pytest.raises(RewardError, match=why):
            parse_reward_json(bad)


def test_read_reward_prefers_txt_and_reports_a_missing_reward(tmp_path: Path) -> None:
    with pytest.raises(RewardError, match="wrote no reward"):
        read_reward(tmp_path)
    (tmp_path / "reward.json").write_text('{"a": 0.5, "b": 1}')
    assert read_reward(tmp_path) == (0.75, {"a": 0.5, "b": 1.0})
    (tmp_path / "reward.txt").write_text("1")
    assert read_reward(tmp_path) == (1.0, {})

"""URL normalisation and the source policy."""

from __future__ import annotations

import pytest

from helium.config import load_settings
from helium.errors import ConfigError
from helium.nodes.research.settings import research_settings
from helium.tools.web.policy import SourcePolicy
from helium.tools.web.urls import normalise_url, unwrap_redirect


@pytest.mark.parametrize(("raw", "normal"), [
    ("http://www.Example.com/a/b/", "https://example.com/a/b"),
    ("https://example.com/a?utm_source=x&b=2&a=1#part", "https://example.com/a?a=1&b=2"),
    ("https://example.com:443/", "https://example.com"),
    ("https://example.com/page?fbclid=abc&gclid=d", "https://example.com/page"),
    ("//duckduckgo.com/l/?uddg=https%3A%2F%2Fwww.python.org%2Fdoc%2F&rut=abc", "https://python.org/doc"),
    ("http://127.0.0.1:8000/pages/x.html", "https://127.0.0.1:8000/pages/x.html"),
])
def test_the_same_page_spelled_differently_normalises_to_one_url(raw: str, normal: str) -> None:
    assert normalise_url(raw) == normal


def test_a_duckduckgo_redirect_unwraps_to_its_target() -> None:
    wrapped = "https://duckduckgo.com/l/?uddg=https%3A%2F%2Fa.example%2Fx%3Fq%3D1"
    assert unwrap_redirect(wrapped) == "https://a.example/x?q=1"
    assert unwrap_redirect("https://a.example/x") == "https://a.example/x"


def test_policy_ranks_official_sources_above_news_blogs_and_forums() -> None:
    policy = SourcePolicy()
    urls = ["https://www.reddit.com/r/rust/comments/1", "https://someone.medium.com/post",
            "https://unknown.example/article", "https://www.reuters.com/tech/x", "https://doc.rust-lang.org/book/",
            "https://data.europa.eu/x", "https://cs.stanford.edu/paper"]
    tiers = [policy.classify(u) for u in urls]
    assert tiers == ["low", "blog", "unknown", "reputable", "authoritative", "authoritative", "authoritative"]
    # the best search rank and several finders never lift a page above the next class
    assert policy.score("https://someone.medium.com/post", 0, 3) < policy.score("https://unknown.example/a", 9, 1)
    assert policy.score("https://unknown.example/a", 0, 3) < policy.score("https://www.reuters.com/a", 9, 1)


def test_domain_lists_come_from_the_research_table(tmp_path) -> None:
    (tmp_path / ".helium").mkdir()
    (tmp_path / ".helium" / "config.toml").write_text(
        '[research]\nauthoritative = ["unknown.example"]\nblocked = ["spam.example"]\nmax_sources = 3\n')
    research = research_settings(load_settings(tmp_path))
    assert research.max_sources == 3
    assert research.policy.classify("https://docs.unknown.example/x") == "authoritative"
    assert research.policy.classify("https://spam.example/x") == "blocked"
    assert research.policy.classify("https://doc.rust-lang.org/") == "authoritative"  # built-ins stay


@pytest.mark.parametrize(("table", "problem"), [
    ("max_rounds = 0", "max_rounds"),
    ('providers = ["bing"]', "providers"),
    ('searxng_url = "localhost:8888"', "searxng_url"),
    ("colour = 1", "unknown setting 'colour'"),
    ('low = "reddit.com"', "low"),
])
def test_a_bad_research_setting_is_one_clear_error(tmp_path, table: str, problem: str) -> None:
    (tmp_path / ".helium").mkdir()
    (tmp_path / ".helium" / "config.toml").write_text(f"[research]\n{table}\n")
    with pytest.raises(ConfigError, match=problem):
        research_settings(load_settings(tmp_path))


def test_searxng_url_flag_beats_environment_beats_config(tmp_path, monkeypatch) -> None:
    (tmp_path / ".helium").mkdir()
    (tmp_path / ".helium" / "config.toml").write_text('[research]\nsearxng_url = "http://config:1"\n')
    monkeypatch.delenv("HELIUM_SEARXNG_URL", raising=False)
    assert research_settings(load_settings(tmp_path)).searxng_url == "http://config:1"
    monkeypatch.setenv("HELIUM_SEARXNG_URL", "http://env:2")
    assert research_settings(load_settings(tmp_path)).searxng_url == "http://env:2"
    assert research_settings(load_settings(tmp_path), {"searxng_url": "http://flag:3"}).searxng_url == "http://flag:3"

"""URL normalisation and the source policy."""

from __future__ import annotations

from dataclasses import replace

import pytest
from langgraph.runtime import Runtime

from helium.config import load_settings
from helium.errors import ConfigError
from helium.nodes.research.context import ResearchContext
from helium.nodes.research.search import merge_sources
from helium.nodes.research.settings import ResearchSettings, research_settings
from helium.state.research import Hit, SearchRecord
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


def test_merge_dedupes_spellings_ranks_by_policy_and_keeps_the_top_n() -> None:
    def hits(*urls: str) -> list[Hit]:
        return [Hit(url=u, title=u, snippet="", rank=i) for i, u in enumerate(urls)]

    searches = [
        SearchRecord(round=1, query="q", provider="searxng", error=None, hits=hits(
            "https://someone.medium.com/post", "http://www.Example.org/guide/?utm_source=x", "https://spam.example/a",
            "https://www.reddit.com/r/x/comments/1", "https://fetched.example/page")),
        SearchRecord(round=1, query="q", provider="duckduckgo", error=None, hits=hits(
            "https://example.org/guide#intro", "https://docs.python.org/3/library/", "https://news.example/story")),
    ]
    settings = replace(ResearchSettings(), max_sources=4,
                       policy=ResearchSettings().policy.with_extra(blocked=["spam.example"],
                                                                   reputable=["news.example"]))
    # merging uses the settings only: no model, store or network
    context = ResearchContext(run_id="r", model=None, store=None, pages=None, vectors=None,  # type: ignore[arg-type]
                              providers=[], fetcher=None, settings=settings, output_dir=None)  # type: ignore[arg-type]
    update = merge_sources({"round": 1, "searches": searches, "pages": {"https://fetched.example/page": {}}},
                           Runtime(context=context))
    guide = update["sources"]["https://example.org/guide"]
    assert guide["found_by"] == 2 and guide["providers"] == ["duckduckgo", "searxng"] and guide["rank"] == 0
    assert guide["url"] == "http://www.Example.org/guide/?utm_source=x"  # fetched as first found
    assert update["selected"] == ["https://docs.python.org/3/library", "https://news.example/story",
                                  "https://example.org/guide", "https://someone.medium.com/post"]
    assert "warnings" in update and update["warnings"] == []

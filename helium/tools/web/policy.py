"""The source policy: how much a page's origin is trusted, from configurable domain lists.

Official documentation, standards bodies, .gov/.edu and papers rank first, reputable news next,
then blogs, then forums and content farms.  A domain list entry matches the host and its
subdomains (`python.org` matches `docs.python.org`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from helium.tools.web.urls import host_of

TIERS: dict[str, float] = {"authoritative": 1.0, "reputable": 0.75, "unknown": 0.5, "blog": 0.35, "low": 0.1}
"""Score of each class of source."""

AUTHORITATIVE = (
    "w3.org", "ietf.org", "rfc-editor.org", "iso.org", "whatwg.org", "ecma-international.org", "unicode.org",
    "arxiv.org", "doi.org", "acm.org", "ieee.org", "nature.com", "science.org", "nih.gov", "ncbi.nlm.nih.gov",
    "europa.eu", "who.int", "un.org", "oecd.org", "python.org", "rust-lang.org", "mozilla.org",
    "developer.mozilla.org", "kernel.org", "postgresql.org", "wikipedia.org",
)
REPUTABLE = (
    "reuters.com", "apnews.com", "bbc.co.uk", "bbc.com", "nytimes.com", "theguardian.com", "ft.com",
    "economist.com", "washingtonpost.com", "lwn.net", "arstechnica.com", "github.com",
)
BLOGS = ("medium.com", "substack.com", "dev.to", "hashnode.dev", "blogspot.com", "wordpress.com", "tumblr.com")
LOW = (
    "reddit.com", "quora.com", "stackexchange.com", "pinterest.com", "facebook.com", "x.com", "twitter.com",
    "tiktok.com", "answers.com", "ehow.com", "wikihow.com",
)
AUTHORITATIVE_SUFFIXES = (".gov", ".edu", ".int", ".mil")
BLOG_PATH_MARKERS = ("/blog/", "/blogs/", "/posts/")
FORUM_PATH_MARKERS = ("/forum/", "/forums/", "/threads/", "/questions/", "/comments/")


@dataclass(frozen=True)
class SourcePolicy:
    """Domain lists per class; `blocked` domains are never fetched."""

    authoritative: tuple[str, ...] = AUTHORITATIVE
    reputable: tuple[str, ...] = REPUTABLE
    blogs: tuple[str, ...] = BLOGS
    low: tuple[str, ...] = LOW
    blocked: tuple[str, ...] = field(default=())

    def with_extra(self, **lists: Iterable[str]) -> SourcePolicy:
        """This policy with more domains in the named lists (from `[research]` in config.toml)."""
        merged = {name: tuple(dict.fromkeys([*getattr(self, name), *extra])) for name, extra in lists.items()}
        return SourcePolicy(**{**self.__dict__, **merged})

    def classify(self, url: str) -> str:
        """One of TIERS' names, or `blocked`."""
        host = host_of(url)
        path = url.lower()
        if _listed(host, self.blocked):
            return "blocked"
        if _listed(host, self.low) or any(marker in path for marker in FORUM_PATH_MARKERS):
            return "low"
        if _listed(host, self.authoritative) or host.endswith(AUTHORITATIVE_SUFFIXES):
            return "authoritative"
        if _listed(host, self.reputable):
            return "reputable"
        if _listed(host, self.blogs) or any(marker in path for marker in BLOG_PATH_MARKERS):
            return "blog"
        return "unknown"

    def score(self, url: str, rank: int, found_by: int) -> float:
        """The class's score, a little more for a high search rank and for being found by several
        searches; never enough to lift a page above the next class."""
        tier = self.classify(url)
        if tier == "blocked":
            return 0.0
        return round(TIERS[tier] + 0.06 / (1 + rank) + 0.02 * min(found_by - 1, 2), 4)


def _listed(host: str, domains: Iterable[str]) -> bool:
    return any(host == d or host.endswith("." + d) for d in domains)

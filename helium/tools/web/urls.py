"""URL normalisation: one spelling per page, so the same source found twice is fetched once."""

from __future__ import annotations

from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

TRACKING_PARAMETERS = frozenset({
    "fbclid", "gclid", "dclid", "msclkid", "mc_cid", "mc_eid", "igshid", "yclid", "_hsenc", "_hsmi",
    "ref", "ref_src", "spm", "si",
})
TRACKING_PREFIXES = ("utm_",)
DEFAULT_PORTS = {"http": 80, "https": 443}


def unwrap_redirect(url: str) -> str:
    """The target of a search engine's click-tracking link (DuckDuckGo's `/l/?uddg=…`), else `url`."""
    parts = urlsplit(url if "://" in url else "https:" + url if url.startswith("//") else url)
    if parts.netloc.endswith("duckduckgo.com") and parts.path.startswith("/l/"):
        target = dict(parse_qsl(parts.query)).get("uddg")
        if target:
            return unquote(target)
    return url


def normalise_url(url: str) -> str:
    """Lower-case scheme and host, `https` for `http`, no `www.`, default port, fragment, tracking
    parameters or trailing slash; the remaining query parameters sorted."""
    parts = urlsplit(unwrap_redirect(url.strip()))
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        return url.strip()
    host = (parts.hostname or "").lower().removeprefix("www.")
    port = parts.port
    netloc = host if port is None or port == DEFAULT_PORTS.get(scheme) else f"{host}:{port}"
    query = sorted((k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
                   if k.lower() not in TRACKING_PARAMETERS and not k.lower().startswith(TRACKING_PREFIXES))
    path = parts.path.rstrip("/") or ""
    return urlunsplit(("https" if scheme in ("http", "https") else scheme, netloc, path, urlencode(query), ""))


def without_credentials(url: str) -> str:
    """`url` as it may be shown or recorded: a `user:password@` in it (SearxNG behind basic auth) is dropped."""
    parts = urlsplit(url)
    if parts.username is None and parts.password is None:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))


def host_of(url: str) -> str:
    """The host without `www.`, lower-case; '' for something that is not a URL."""
    return (urlsplit(url).hostname or "").lower().removeprefix("www.")

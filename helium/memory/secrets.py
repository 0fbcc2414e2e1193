"""Keeping secrets out of memory: text that looks like an API key is refused, and redacted from summaries.

Memory is persistent and injected into later prompts, so a key that reached it would leak into
every future run; the patterns below cover the common key formats and `key = value` assignments.
"""

from __future__ import annotations

import re

REDACTED = "[redacted secret]"

_SECRET_PATTERNS = [
    re.compile(r"\bsk-(?:ant-|proj-|or-v1-)?[A-Za-z0-9_-]{16,}"),          # OpenAI, Anthropic, OpenRouter
    re.compile(r"\b(?:ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{30,}|\bgithub_pat_[A-Za-z0-9_]{30,}"),  # GitHub
    re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}"),                              # GitLab
    re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"),                           # AWS access key id
    re.compile(r"\bAIza[0-9A-Za-z_-]{35}\b"),                               # Google API key
    re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"),                         # Slack
    re.compile(r"\bhf_[A-Za-z0-9]{30,}"),                                   # Hugging Face
    re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----"),                      # PEM private keys
    re.compile(r"\bBearer\s+[A-Za-z0-9._~+/-]{20,}=*"),                     # bearer tokens
    re.compile(r"(?i)(?:api[_ -]?key|secret(?:[_ -]?key)?|access[_ -]?token|auth[_ -]?token|password|passwd)"
               r"\w*\s*(?:is|[:=])\s*['\"]?[^\s'\"]{8,}"),       # "OPENAI_API_KEY=…", "password: …"
    re.compile(r"\b(?=[A-Za-z0-9_-]*[0-9])(?=[A-Za-z0-9_-]*[a-z])(?=[A-Za-z0-9_-]*[A-Z])[A-Za-z0-9_-]{32,}\b"),
    # a long token mixing digits, lower and upper case: what most generated keys look like
]


def looks_like_secret(text: str, known: tuple[str, ...] = ()) -> bool:
    """True when `text` holds something shaped like a key or token, or one of the `known` secrets."""
    if any(secret and secret in text for secret in known):
        return True
    return any(pattern.search(text) for pattern in _SECRET_PATTERNS)


def redact_secrets(text: str, known: tuple[str, ...] = ()) -> str:
    """`text` with every key-shaped token (and every `known` secret) replaced by a marker."""
    for secret in known:
        if secret:
            text = text.replace(secret, REDACTED)
    for pattern in _SECRET_PATTERNS:
        text = pattern.sub(REDACTED, text)
    return text

"""Route a model id to a provider and build its LangChain chat model.

Routing follows the task-runner docs: `openai/<m>` and any id used with a base URL
go to an OpenAI-compatible endpoint (langchain-openai); `ollama/<m>` to Ollama's
OpenAI-compatible endpoint on loopback; `claude-*` to Anthropic and `gemini/*` to
Gemini, each an optional extra.  Retries with backoff on 429/5xx are the provider
SDK's own (`max_retries`), not a loop of ours.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from helium.config import Settings
from helium.errors import ConfigError, ModelError

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

OLLAMA_BASE_URL = "http://127.0.0.1:11434/v1"

Provider = Literal["openai-compatible", "ollama", "anthropic", "gemini"]


@dataclass(frozen=True)
class ModelRoute:
    """Where a model id goes: provider, the name the provider knows it by, endpoint and key."""

    model_id: str
    provider: Provider
    name: str
    base_url: str | None
    api_key: str | None = field(default=None, repr=False)

    @property
    def key_setting(self) -> str:
        return "--api-key or HELIUM_API_KEY"


def route_model(settings: Settings) -> ModelRoute:
    """Decide the provider for `settings.model`; raise ConfigError naming the setting to fix."""
    model_id = settings.model.strip()
    if not model_id:
        raise ConfigError("no model given: set --model or HELIUM_MODEL")
    key = settings.api_key
    if settings.base_url:
        name = model_id.split("/", 1)[1] if model_id.startswith(("openai/", "ollama/")) else model_id
        return ModelRoute(model_id, "openai-compatible", name, settings.base_url, key or "not-needed")
    if model_id.startswith("ollama/"):
        return ModelRoute(model_id, "ollama", model_id.removeprefix("ollama/"), OLLAMA_BASE_URL, key or "ollama")
    if model_id.startswith("openai/"):
        key = key or os.environ.get("OPENAI_API_KEY")
        if not key:
            raise ConfigError(f"model {model_id} needs an API key: set --api-key or HELIUM_API_KEY (or OPENAI_API_KEY)")
        return ModelRoute(model_id, "openai-compatible", model_id.removeprefix("openai/"), None, key)
    if model_id.startswith(("claude-", "anthropic/")):
        key = key or os.environ.get("ANTHROPIC_API_KEY")
        if not key:
            raise ConfigError(f"model {model_id} needs an API key: set --api-key or HELIUM_API_KEY (or ANTHROPIC_API_KEY)")
        return ModelRoute(model_id, "anthropic", model_id.removeprefix("anthropic/"), None, key)
    if model_id.startswith("gemini/"):
        key = key or os.environ.get("GOOGLE_API_KEY") or os.environ.get("GEMINI_API_KEY")
        if not key:
            raise ConfigError(f"model {model_id} needs an API key: set --api-key or HELIUM_API_KEY (or GOOGLE_API_KEY)")
        return ModelRoute(model_id, "gemini", model_id.removeprefix("gemini/"), None, key)
    raise ConfigError(
        f"cannot tell which provider serves {model_id!r}: prefix it with openai/, ollama/, claude- or gemini/, "
        "or give the endpoint with --base-url / HELIUM_BASE_URL"
    )


def build_chat_model(settings: Settings, route: ModelRoute | None = None) -> BaseChatModel:
    """Build the chat model for `settings`; a missing optional extra names the package to install."""
    route = route or route_model(settings)
    common = {"temperature": settings.temperature, "max_retries": settings.max_retries}
    if route.provider in ("openai-compatible", "ollama"):
        from langchain_openai import ChatOpenAI

        return ChatOpenAI(
            model=route.name,
            base_url=route.base_url,
            api_key=route.api_key,
            timeout=settings.request_timeout,
            stream_usage=True,
            **common,
        )
    if route.provider == "anthropic":
        try:
            from langchain_anthropic import ChatAnthropic
        except ImportError:
            raise ConfigError(
                f"model {route.model_id} needs the anthropic extra: pip install 'helium-agent[anthropic]'"
            ) from None
        return ChatAnthropic(model=route.name, api_key=route.api_key, timeout=settings.request_timeout, **common)
    try:
        from langchain_google_genai import ChatGoogleGenerativeAI
    except ImportError:
        raise ConfigError(f"model {route.model_id} needs the gemini extra: pip install 'helium-agent[gemini]'") from None
    return ChatGoogleGenerativeAI(model=route.name, google_api_key=route.api_key, timeout=settings.request_timeout,
                                  **common)


def describe_model_error(exc: BaseException, route: ModelRoute, retries: int) -> ModelError | None:
    """Turn a provider SDK error into one line naming the setting to fix, or None if it is not one."""
    try:
        import openai
    except ImportError:  # pragma: no cover - langchain-openai always brings it
        return None
    where = route.base_url or "the provider's API"
    if isinstance(exc, openai.APITimeoutError):
        return ModelError(f"the model endpoint at {where} timed out after {retries} retries "
                          "(raise request_timeout in config.toml or check the server)")
    if isinstance(exc, openai.APIConnectionError):
        return ModelError(f"cannot reach the model endpoint at {where}: start the server or set --base-url / HELIUM_BASE_URL")
    if isinstance(exc, openai.AuthenticationError):
        return ModelError(f"the model endpoint at {where} rejected the API key: set --api-key or HELIUM_API_KEY")
    if isinstance(exc, openai.NotFoundError):
        return ModelError(f"the endpoint at {where} does not serve model {route.name!r}: set --model or HELIUM_MODEL")
    if isinstance(exc, openai.RateLimitError):
        return ModelError(f"the model endpoint at {where} kept answering 429 (rate limited) after {retries} retries")
    if isinstance(exc, openai.APIStatusError):
        return ModelError(f"the model endpoint at {where} answered HTTP {exc.status_code} after {retries} retries: "
                          f"{_first_line(exc.message)}")
    return None


def _first_line(text: str) -> str:
    return (text or "").strip().splitlines()[0][:200] if (text or "").strip() else "no message"

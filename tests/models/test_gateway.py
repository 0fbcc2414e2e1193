"""Model routing and provider errors, exercising the real OpenAI client over an httpx mock transport."""

from __future__ import annotations

import json
from pathlib import Path

import httpx
import openai
import pytest

from helium.config import Settings
from helium.errors import ConfigError
from helium.models import build_chat_model, describe_model_error, estimate_cost, route_model
from helium.models.gateway import OLLAMA_BASE_URL


def settings(**kwargs) -> Settings:
    return Settings(workspace=Path("."), **kwargs)


@pytest.fixture(autouse=True)
def no_provider_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "GOOGLE_API_KEY", "GEMINI_API_KEY"):
        monkeypatch.delenv(var, raising=False)


def test_routes_follow_the_model_id() -> None:
    assert route_model(settings(model="ollama/qwen2.5:7b")).base_url == OLLAMA_BASE_URL
    assert route_model(settings(model="ollama/qwen2.5:7b")).name == "qwen2.5:7b"
    openai_route = route_model(settings(model="openai/gpt-4o-mini", api_key="k"))
    assert (openai_route.provider, openai_route.name, openai_route.base_url) == ("openai-compatible", "gpt-4o-mini", None)
    local = route_model(settings(model="any/model-id", base_url="http://127.0.0.1:8080/v1"))
    assert (local.provider, local.name) == ("openai-compatible", "any/model-id")
    assert route_model(settings(model="claude-sonnet-4-20250514", api_key="k")).provider == "anthropic"
    assert route_model(settings(model="gemini/gemini-2.5-flash", api_key="k")).name == "gemini-2.5-flash"


def test_missing_key_and_unknown_provider_name_the_setting() -> None:
    with pytest.raises(ConfigError, match="set --api-key or HELIUM_API_KEY"):
        route_model(settings(model="openai/gpt-4o"))
    with pytest.raises(ConfigError, match="--base-url / HELIUM_BASE_URL"):
        route_model(settings(model="mystery"))


def test_optional_extra_missing_names_the_extra() -> None:
    pytest.importorskip("langchain_openai")
    try:
        import langchain_anthropic  # noqa: F401
        pytest.skip("the anthropic extra is installed here")
    except ImportError:
        pass
    with pytest.raises(ConfigError, match=r"pip install 'helium-agent\[anthropic\]'"):
        build_chat_model(settings(model="claude-sonnet-4-20250514", api_key="k"))


def test_chat_model_speaks_to_the_configured_endpoint() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={
            "id": "x", "object": "chat.completion", "created": 0, "model": "m",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": "pong"}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4},
        })

    model = build_chat_model(settings(model="local-model", base_url="http://llm.test/v1", api_key="secret"))
    model.client._client._client = httpx.Client(transport=httpx.MockTransport(handler))  # type: ignore[attr-defined]
    reply = model.invoke("ping")
    assert reply.text == "pong" and reply.usage_metadata["input_tokens"] == 3
    assert str(seen[0].url) == "http://llm.test/v1/chat/completions"
    assert seen[0].headers["authorization"] == "Bearer secret"
    assert json.loads(seen[0].content)["model"] == "local-model"


def test_provider_errors_become_one_line() -> None:
    route = route_model(settings(model="m", base_url="http://127.0.0.1:9/v1"))
    request = httpx.Request("POST", "http://127.0.0.1:9/v1/chat/completions")
    unreachable = describe_model_error(openai.APIConnectionError(request=request), route, 3)
    assert "cannot reach the model endpoint at http://127.0.0.1:9/v1" in str(unreachable)
    rejected = openai.AuthenticationError("bad key", response=httpx.Response(401, request=request), body=None)
    assert "set --api-key or HELIUM_API_KEY" in str(describe_model_error(rejected, route, 3))
    assert describe_model_error(ValueError("x"), route, 3) is None


def test_cost_from_the_price_table() -> None:
    assert estimate_cost("openai/gpt-4o-mini", 1_000_000, 1_000_000) == pytest.approx(0.75)
    assert estimate_cost("claude-sonnet-4-20250514", 1000, 1000) == pytest.approx(0.018)
    assert estimate_cost("some-local-model", 10, 10) is None
    assert estimate_cost("ollama/qwen", 10, 10) == 0.0
    assert estimate_cost("mine", 1_000_000, 0, {"mine": {"input": 2, "output": 4}}) == pytest.approx(2.0)

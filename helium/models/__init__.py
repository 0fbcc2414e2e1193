"""The model gateway: model id -> chat model, provider errors -> one-line messages, usage -> cost."""

from helium.models.gateway import ModelRoute, build_chat_model, describe_model_error, route_model
from helium.models.pricing import estimate_cost

__all__ = ["ModelRoute", "build_chat_model", "describe_model_error", "estimate_cost", "route_model"]

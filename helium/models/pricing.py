"""Cost estimates from a price table (USD per million tokens); unknown models get tokens only."""

from __future__ import annotations

# Public list prices, USD per 1M tokens (input, output).  Matched on the name without a
# provider prefix, longest key first, so "gpt-4o-mini-2024-07-18" finds "gpt-4o-mini".
PRICES_PER_MILLION: dict[str, tuple[float, float]] = {
    "gpt-4o-mini": (0.15, 0.60),
    "gpt-4o": (2.50, 10.00),
    "gpt-4.1-nano": (0.10, 0.40),
    "gpt-4.1-mini": (0.40, 1.60),
    "gpt-4.1": (2.00, 8.00),
    "gpt-5-nano": (0.05, 0.40),
    "gpt-5-mini": (0.25, 2.00),
    "gpt-5": (1.25, 10.00),
    "o4-mini": (1.10, 4.40),
    "o3": (2.00, 8.00),
    "claude-opus-4": (15.00, 75.00),
    "claude-sonnet-4": (3.00, 15.00),
    "claude-3-5-haiku": (0.80, 4.00),
    "claude-haiku-4": (1.00, 5.00),
    "gemini-2.5-pro": (1.25, 10.00),
    "gemini-2.5-flash": (0.30, 2.50),
    "gemini-2.5-computer-use-preview": (1.25, 10.00),
}


def estimate_cost(model_id: str, tokens_in: int, tokens_out: int,
                  extra_prices: dict[str, dict[str, float]] | None = None) -> float | None:
    """USD cost of a run, or None when the model's price is unknown (local models included)."""
    if model_id.startswith("ollama/"):
        return 0.0
    table = dict(PRICES_PER_MILLION)
    for name, entry in (extra_prices or {}).items():
        table[name] = (float(entry["input"]), float(entry["output"]))
    bare = model_id.split("/", 1)[1] if "/" in model_id else model_id
    for name in sorted(table, key=len, reverse=True):
        if model_id == name or bare.startswith(name):
            price_in, price_out = table[name]
            return (tokens_in * price_in + tokens_out * price_out) / 1_000_000
    return None

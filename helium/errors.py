"""Errors a user can act on.

Every `HeliumError` carries a one-line message that names what to fix; the CLI
prints it as `error: …` and exits non-zero, without a traceback.
"""


class HeliumError(Exception):
    """An error with a message meant for the user, not a developer."""


class ConfigError(HeliumError):
    """A setting is missing or invalid (config file, environment variable or flag)."""


class ModelError(HeliumError):
    """The model endpoint could not be used (unreachable, rejected the key, kept failing)."""


class ToolCallFormatError(ModelError):
    """The model's prompt-mode tool call stayed malformed after one repair re-ask."""


class StoreError(HeliumError):
    """The project store (.helium/helium.db) cannot be opened or written."""


class RunNotFoundError(HeliumError):
    """No run in the project store matches the id the user gave."""

"""Where commands run: one protocol, several places (a local work directory today)."""

from helium.environments.base import Environment, ExecResult
from helium.environments.local import LocalEnvironment

__all__ = ["Environment", "ExecResult", "LocalEnvironment"]

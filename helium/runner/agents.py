"""The agents a trial can run, each as a chat model behind the same agent loop.

- `helium`: the configured model (the coding flow's agent).
- `oracle`: runs the task's solution/solve.sh with bash, then stops; it proves a task solvable.
- `nop`: does nothing; it shows what a task's verifier gives an untouched environment.

Because the oracle and nop are deterministic policies with the chat-model interface, every
trial runs the same checkpointed graph, passes the same gate and leaves the same trajectory.
"""

from __future__ import annotations

import shlex
from typing import Any

from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult

from helium.config import Settings
from helium.errors import ConfigError
from helium.models import build_chat_model

AGENTS = ("helium", "oracle", "nop")
SOLUTION_DIR = "/solution"
ORACLE_CALL_ID = "oracle-solve"


class ScriptPolicy(BaseChatModel):
    """A policy that, if given a command, calls bash with it once, then ends with a summary."""

    policy_name: str
    command: str | None = None
    timeout_sec: int = 600

    @property
    def _llm_type(self) -> str:
        return f"helium-{self.policy_name}"

    def bind_tools(self, tools: Any, **kwargs: Any) -> ScriptPolicy:
        """The policy knows its one call; there is nothing to bind."""
        return self

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> ChatResult:
        results = [m for m in messages if isinstance(m, ToolMessage)]
        if self.command and not results:
            reply = AIMessage("", tool_calls=[{"id": ORACLE_CALL_ID, "name": "bash", "type": "tool_call",
                                               "args": {"command": self.command, "timeout": self.timeout_sec}}])
        elif results:
            reply = AIMessage(f"{self.policy_name}: ran `{self.command}`; {(results[-1].text.splitlines() or [''])[0]}")
        else:
            reply = AIMessage(f"{self.policy_name}: did nothing, by design")
        return ChatResult(generations=[ChatGeneration(message=reply)])


def agent_model(agent: str, settings: Settings, *, timeout_sec: float,
                solution_env: dict[str, str] | None = None) -> BaseChatModel:
    """The chat model that plays `agent` in a trial; an unknown agent or a model that cannot be built fails here.

    The oracle runs solve.sh with the task's `[solution] env` variables set on its command line."""
    if agent == "helium":
        return build_chat_model(settings)
    if agent == "oracle":
        variables = " ".join(f"{name}={shlex.quote(value)}" for name, value in (solution_env or {}).items())
        return ScriptPolicy(policy_name="oracle", command=f"{variables + ' ' if variables else ''}bash "
                            f"{SOLUTION_DIR}/solve.sh", timeout_sec=max(1, int(timeout_sec)))
    if agent == "nop":
        return ScriptPolicy(policy_name="nop")
    raise ConfigError(f"unknown agent {agent!r}; the agents are: {', '.join(AGENTS)}")

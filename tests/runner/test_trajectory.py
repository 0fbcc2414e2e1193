"""ATIF trajectories: the document's shape follows the spec, and the tool steps read back from it."""

from __future__ import annotations

import pydantic
import pytest
from atif import Trajectory
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from helium.runner.trajectory import ATIF_VERSION, atif_document, tool_steps


def test_messages_become_an_atif_document_and_tool_steps() -> None:
    messages = [
        HumanMessage("Create /home/hello.txt"),
        AIMessage("", tool_calls=[{"id": "c1", "name": "bash", "args": {"command": "echo hi > /home/hello.txt"}},
                                  {"id": "c2", "name": "bash", "args": {"command": "cat /home/hello.txt"}}],
                  usage_metadata={"input_tokens": 100, "output_tokens": 20, "total_tokens": 120}),
        ToolMessage("exit code 0\n", tool_call_id="c1", name="bash"),
        ToolMessage("exit code 0\nhi\n", tool_call_id="c2", name="bash"),
        AIMessage("Done.", usage_metadata={"input_tokens": 150, "output_tokens": 5, "total_tokens": 155}),
    ]
    doc = atif_document(session_id="run1", agent_name="helium-helium", agent_version="0.1.0", model_name="m",
                        messages=messages, system_prompt="You are Helium.")
    Trajectory.model_validate(doc)  # the spec's own models accept it
    assert doc["schema_version"] == ATIF_VERSION
    assert doc["agent"] == {"name": "helium-helium", "version": "0.1.0", "model_name": "m"}
    steps = doc["steps"]
    assert [s["step_id"] for s in steps] == [1, 2, 3, 4]
    assert [s["source"] for s in steps] == ["system", "user", "agent", "agent"]
    agent = steps[2]
    assert [c["function_name"] for c in agent["tool_calls"]] == ["bash", "bash"]
    assert [r["source_call_id"] for r in agent["observation"]["results"]] == ["c1", "c2"]
    assert agent["metrics"] == {"prompt_tokens": 100, "completion_tokens": 20}
    assert "tool_calls" not in steps[3] and steps[3]["message"] == "Done."
    for step in steps[:2]:  # agent-only fields appear on agent steps only
        assert not {"model_name", "tool_calls", "metrics", "observation"} & set(step)
    assert doc["final_metrics"] == {"total_prompt_tokens": 250, "total_completion_tokens": 25, "total_steps": 4}

    found = tool_steps(doc)
    assert [(s.tool_name, s.tool_input["command"], s.tool_output) for s in found] == [
        ("bash", "echo hi > /home/hello.txt", "exit code 0\n"), ("bash", "cat /home/hello.txt", "exit code 0\nhi\n")]
    assert found[0].step_id == 3


def test_the_spec_models_reject_what_helium_must_not_write() -> None:
    """The check the runner tests rely on can fail: an observation answering no tool call is refused."""
    doc = atif_document(session_id="s", agent_name="a", agent_version="1", model_name=None,
                        messages=[HumanMessage("go"), AIMessage("", tool_calls=[{"id": "c1", "name": "bash",
                                                                                  "args": {}}])])
    doc["steps"][1]["observation"]["results"][0]["source_call_id"] = "nobody"
    with pytest.raises(pydantic.ValidationError):
        Trajectory.model_validate(doc)

"""The task-runner reference's own examples, verbatim: `from helios import AgentRunner`, the default provider
(docker) and the helium agent, its model ids sent to a scripted OpenAI-compatible endpoint (HELIUM_BASE_URL).
`tasks/my-task` is the reader's own task in the reference; here it is a copy of create-hello-file."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import docker

from tests.runner.conftest import REPO, TASKS, assert_gone, leftover_containers, orphaned_container
from tests.support.scripted_openai import ScriptedOpenAIServer

BASIC_TASK_EXECUTION = '''
import asyncio
from helios import AgentRunner

async def run_task():
    runner = AgentRunner(
        task_path="tasks/create-hello-file",
        model="claude-sonnet-4-20250514"
    )

    result = await runner.run()

    print(f"Success: {result.success}")
    print(f"Reward: {result.reward}")
    print(f"Duration: {result.duration:.1f}s")

asyncio.run(run_task())
'''

ERROR_HANDLING = '''
import asyncio
from helios import AgentRunner

async def run_with_error_handling():
    runner = AgentRunner(
        task_path="tasks/my-task",
        model="claude-sonnet-4-20250514"
    )

    try:
        result = await runner.run()

        if result.success:
            print("Task completed successfully")
        else:
            print(f"Task failed with reward: {result.reward}")
            if result.error:
                print(f"Error: {result.error}")

    except Exception as e:
        print(f"Execution error: {e}")

asyncio.run(run_with_error_handling())
'''

SAVING_RESULTS = '''
import asyncio
import json
from helios import AgentRunner

async def run_and_save():
    runner = AgentRunner(
        task_path="tasks/my-task",
        model="claude-sonnet-4-20250514",
        output_dir="results/experiment-1"
    )

    result = await runner.run()

    # Results are automatically saved to output_dir
    # Additional custom processing:
    summary = {
        "success": result.success,
        "reward": result.reward,
        "duration": result.duration,
        "steps": len(result.trajectory)
    }

    with open(result.output_dir / "summary.json", "w") as f:
        json.dump(summary, f, indent=2)

asyncio.run(run_and_save())
'''

MULTIPLE_MODELS = '''
import asyncio
from helios import AgentRunner

async def compare_models():
    task_path = "tasks/create-hello-file"
    models = [
        "gemini/gemini-2.5-computer-use-preview-10-2025",
        "claude-sonnet-4-20250514",
        "openai/computer-use-preview"
    ]

    results = {}

    for model in models:
        runner = AgentRunner(
            task_path=task_path,
            model=model,
            output_dir=f"results/{model.replace('/', '_')}"
        )

        result = await runner.run()
        results[model] = result.reward

    print("Results by model:")
    for model, reward in results.items():
        print(f"  {model}: {reward}")

asyncio.run(compare_models())
'''

RUN_EACH = "import sys\nfor block in sys.argv[1:]:\n    exec(compile(block, 'example', 'exec'), {'__name__': '__main__'})\n"


def test_reference_examples_run_verbatim_in_docker(tmp_path: Path, model_server: ScriptedOpenAIServer,
                                                   docker_engine: docker.DockerClient) -> None:
    shutil.copytree(TASKS, tmp_path / "tasks")
    shutil.copytree(TASKS / "create-hello-file", tmp_path / "tasks" / "my-task")
    hello = {"tool_calls": [{"id": "c1", "name": "bash",
                             "arguments": {"command": "echo 'Hello World' > /home/hello.txt"}}]}
    model_server.add_turns([hello, {"content": "Done."}] * 6)
    env = {**os.environ, "HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path / ".config"),
           "PYTHONPATH": str(REPO), "HELIUM_BASE_URL": model_server.base_url}
    for name in ("HELIUM_API_KEY", "HELIUM_MODEL", "OPENAI_API_KEY", "ANTHROPIC_API_KEY"):
        env.pop(name, None)
    orphan = orphaned_container(docker_engine)  # a trial started alone removes it too
    done = subprocess.run([sys.executable, "-c", RUN_EACH, BASIC_TASK_EXECUTION, ERROR_HANDLING, SAVING_RESULTS,
                           MULTIPLE_MODELS], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=240)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:2] == ["Success: True", "Reward: 1.0"] and lines[2].startswith("Duration: ")
    assert lines[3:] == ["Task completed successfully", "Results by model:",
                         "  gemini/gemini-2.5-computer-use-preview-10-2025: 1.0",
                         "  claude-sonnet-4-20250514: 1.0", "  openai/computer-use-preview: 1.0"]
    (summary,) = (tmp_path / "results" / "experiment-1").glob("my-task_*/summary.json")
    assert json.loads(summary.read_text())["steps"] == 1
    assert model_server.remaining == 0
    trials = [p.parent for p in tmp_path.glob("**/config.json")]
    assert len(trials) == 6 and all(json.loads((t / "config.json").read_text())["provider"] == "docker"
                                    for t in trials)
    assert leftover_containers(docker_engine, trials) == []
    assert_gone(orphan)

"""The typer application: one function per command, each parsing options and delegating."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from helium import __version__

if TYPE_CHECKING:
    from helium.config import Settings

app = typer.Typer(
    name="helium",
    invoke_without_command=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)
skills_app = typer.Typer(help="SKILL.md skills from ~/.config/helium/skills and .helium/skills.\n\nExamples:\n\n\b\n"
                              "  helium skills list\n  helium skills show caveman\n  helium skills new reviewer",
                         no_args_is_help=True)
run_app = typer.Typer(help="Run a flow once, headless, and exit with its status.\n\nExamples:\n\n\b\n"
                           "  helium run chat \"what is in this repo?\"\n"
                           "  helium run chat \"fix the failing test\" --auto-approve --json\n"
                           "  helium run code \"add a --json flag to cli.py\"\n"
                           "  helium run research \"EU AI act timeline\"",
                      no_args_is_help=True)
task_app = typer.Typer(help="Harbor-format tasks: run one with an agent in a sandbox, or a batch of them.\n\n"
                            "Examples:\n\n\b\n  helium task run tasks/create-hello-file --provider local\n"
                            "  helium task batch tasks/ -n 4 -k 2 --agent oracle\n"
                            "  helium task batch --resume output/batch_20260101-120000-000000",
                       no_args_is_help=True)
app.add_typer(run_app, name="run")
app.add_typer(skills_app, name="skills")
app.add_typer(task_app, name="task")
rag_app = typer.Typer(help="RAG over files: index files, ask questions answered from them with cited line ranges.\n\n"
                           "Examples:\n\n\b\n  helium rag add docs/ src/*.py\n  helium rag ask \"how do I configure it?\"\n"
                           "  helium rag list\n  helium rag remove docs/old.md",
                      no_args_is_help=True)
app.add_typer(rag_app, name="rag")
memory_app = typer.Typer(help="The project's memory: remembered facts, their relations, conversation summaries.\n\n"
                              "Examples:\n\n\b\n  helium memory list\n  helium memory search \"what do I prefer?\"\n"
                              "  helium memory forget 3\n  helium memory export -o memory.jsonl",
                         no_args_is_help=True)
app.add_typer(memory_app, name="memory")

ModelOpt = Annotated[str | None, typer.Option("--model", "-m", help="Model id: openai/<m>, ollama/<m>, claude-*, "
                                                 "gemini/<m>, or any id with --base-url. Env: HELIUM_MODEL.")]
BaseUrlOpt = Annotated[str | None, typer.Option("--base-url", help="OpenAI-compatible endpoint, e.g. "
                                                   "http://127.0.0.1:8080/v1. Env: HELIUM_BASE_URL.")]
ApiKeyOpt = Annotated[str | None, typer.Option("--api-key", help="API key for the endpoint. Env: HELIUM_API_KEY.",
                                                  show_default=False)]
ToolCallingOpt = Annotated[str | None, typer.Option("--tool-calling", help="native (default) or prompt, for "
                                                       "models without native tool calls.")]
ApproveOpt = Annotated[str | None, typer.Option("--approve", help="ask (default on a terminal), auto, or deny "
                                                   "(default without a terminal).")]
AutoApproveOpt = Annotated[bool, typer.Option("--auto-approve", help="Approve every risky call (same as --approve auto).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON document for scripts.")]
RunIdArg = Annotated[str, typer.Argument(help="A run id, or a unique prefix of one (see `helium runs`).")]


def _version(value: bool) -> None:
    if value:
        typer.echo(f"helium {__version__}")
        raise typer.Exit()


@app.callback()
def root(ctx: typer.Context,
         version: Annotated[bool, typer.Option("--version", "-V", callback=_version, is_eager=True,
                                               help="Print the version and exit.")] = False) -> None:
    """Helium: a terminal AI agent whose every run is a durable, resumable LangGraph graph.

    Examples:

    \b
      helium                                   # interactive chat
      helium run chat "what is in this repo?"  # one shot, headless
      helium runs                              # every run in this project
      helium resume 1a2b3c                     # continue a paused or crashed run
    """
    if ctx.invoked_subcommand is None:
        from helium.cli.repl import run_repl

        raise typer.Exit(run_repl(_settings(), resume_id=None))


@run_app.command("chat")
def run_chat(prompt: Annotated[str, typer.Argument(help="What to ask.")],
             model: ModelOpt = None, base_url: BaseUrlOpt = None, api_key: ApiKeyOpt = None,
             tool_calling: ToolCallingOpt = None, approve: ApproveOpt = None, auto_approve: AutoApproveOpt = False,
             json_output: JsonOpt = False) -> None:
    """Ask once and exit. Exit codes: 0 done, 1 failed, 3 a call was denied, 4 waiting for approval, 130 Ctrl-C.

    Examples:

    \b
      helium run chat "summarise README.md"
      helium run chat "run the tests and fix what fails" --auto-approve
      helium run chat "list the TODOs" --model openai/gpt-4o-mini --json
      helium run chat "explain @src/app.py and @docs/*.md"    # @path: index and attach the files
    """
    from helium.cli.memory import save_session_summaries
    from helium.cli.rag import chat_message, check_citations
    from helium.cli.session import open_driver, report

    settings = _settings(model, base_url, api_key, tool_calling, _approval(approve, auto_approve))
    with open_driver(settings, json_output=json_output) as driver:
        outcome = driver.start("chat", prompt, message=chat_message(driver, prompt))
        check_citations(driver, outcome.answer)
        if outcome.status == "done":  # the session ended: its summary goes to memory
            save_session_summaries(driver, [outcome.run_id])
    raise typer.Exit(report(outcome, json_output))


@run_app.command("code")
def run_code(task: Annotated[str, typer.Argument(help="The coding task, in plain words.")],
             env: Annotated[str, typer.Option("--env", help="Where commands run: local (this directory, under "
                                              "bubblewrap where it is installed) or docker (a container with a copy "
                                              "of this directory; changed files come back at the end).")] = "local",
             max_turns: Annotated[int | None, typer.Option("--max-turns", min=1, help="Model turns before "
                                                              "stopping (default 30).")] = None,
             model: ModelOpt = None, base_url: BaseUrlOpt = None, api_key: ApiKeyOpt = None,
             tool_calling: ToolCallingOpt = None, approve: ApproveOpt = None, auto_approve: AutoApproveOpt = False,
             json_output: JsonOpt = False) -> None:
    """Work on the code in this directory until the task is done. Exit codes as for `run chat`.

    Examples:

    \b
      helium run code "add a --json flag to cli.py"
      helium run code "make the tests pass" --auto-approve --max-turns 50
      helium run code "fix the failing test" --env docker --auto-approve
    """
    from helium.cli.session import open_driver, report
    from helium.graphs.coding import open_environment

    settings = _settings(model, base_url, api_key, tool_calling, _approval(approve, auto_approve))
    sandbox = open_environment(env, settings).isolation  # an unknown environment fails before a run is recorded
    with open_driver(settings, json_output=json_output) as driver:
        if not json_output:
            driver.console.print(f"[dim]sandbox: {sandbox}[/]")
        options = {"environment": env} | ({"max_turns": max_turns} if max_turns else {})
        outcome = driver.start("code", task, options)
    raise typer.Exit(report(outcome, json_output))


@run_app.command("research")
def run_research(question: Annotated[str, typer.Argument(help="The question to research.")],
                 searxng_url: Annotated[str | None, typer.Option("--searxng-url", help="SearxNG instance "
                                                                  "(default http://127.0.0.1:8888). Env: "
                                                                  "HELIUM_SEARXNG_URL.")] = None,
                 max_rounds: Annotated[int | None, typer.Option("--max-rounds", min=1, help="Search rounds at "
                                                                 "most (default 2).")] = None,
                 output: Annotated[Path | None, typer.Option("--output", "-o", help="Directory for report.md and "
                                                                "sources.json (default .helium/reports/RUN_ID).")]
                 = None,
                 model: ModelOpt = None, base_url: BaseUrlOpt = None, api_key: ApiKeyOpt = None,
                 json_output: JsonOpt = False) -> None:
    """Research a question on the web (SearxNG and DuckDuckGo) and write a report with verified citations.

    Exit codes: 0 done, 1 failed (resumable with `helium resume ID`), 130 Ctrl-C.

    Examples:

    \b
      helium run research "EU AI act timeline"
      helium run research "how do rust doctests work" --searxng-url http://127.0.0.1:8888 --max-rounds 1
      helium run research "state of WebGPU" --output reports/webgpu --json
    """
    from helium.cli.research import start_research
    from helium.cli.session import open_driver, report

    settings = _settings(model, base_url, api_key)
    with open_driver(settings, json_output=json_output) as driver:
        outcome = start_research(driver, question, searxng_url=searxng_url, max_rounds=max_rounds, output_dir=output)
    raise typer.Exit(report(outcome, json_output))


@run_app.command("skill")
def run_skill(name: Annotated[str, typer.Argument(help="The skill's name or trigger (see `helium skills list`).")],
              arguments: Annotated[str, typer.Argument(help="What to give the skill.")] = "",
              model: ModelOpt = None, base_url: BaseUrlOpt = None, api_key: ApiKeyOpt = None,
              tool_calling: ToolCallingOpt = None, approve: ApproveOpt = None, auto_approve: AutoApproveOpt = False,
              json_output: JsonOpt = False) -> None:
    """Run a skill once: a fresh agent with the skill's instructions and only its allowed tools.

    Examples:

    \b
      helium run skill caveman "explain recursion"
      helium run skill reviewer "src/app.py" --json
    """
    from helium.cli import session

    settings = _settings(model, base_url, api_key, tool_calling, _approval(approve, auto_approve))
    with session.open_driver(settings, json_output=json_output) as driver:
        outcome = session.run_skill(driver, name, arguments)
    raise typer.Exit(session.report(outcome, json_output))


@skills_app.command("list")
def skills_list(json_output: JsonOpt = False) -> None:
    """List the skills: name, type, trigger, allowed tools, description, file.

    Examples:

    \b
      helium skills list
      helium skills list --json
    """
    from helium.cli import views
    from helium.cli.session import warn
    from helium.skills import load_skills

    catalog = load_skills(_settings().workspace)
    warn(catalog.warnings)
    skills = sorted(catalog.skills.values(), key=lambda s: s.name)
    if json_output:
        typer.echo(json.dumps([views.skill_json(s) for s in skills], indent=2))
    else:
        views.print_skills(skills)


@skills_app.command("show")
def skills_show(name: Annotated[str, typer.Argument(help="The skill's name or trigger.")]) -> None:
    """Print a skill's file.

    Examples:

    \b
      helium skills show caveman
    """
    from helium.skills import load_skills

    skill = load_skills(_settings().workspace).get(name)
    typer.echo(f"# {skill.path}\n{skill.path.read_text(encoding='utf-8')}")


@skills_app.command("new")
def skills_new(name: Annotated[str, typer.Argument(help="The new skill's name.")]) -> None:
    """Create .helium/skills/NAME/SKILL.md from a template, ready to edit.

    Examples:

    \b
      helium skills new reviewer
    """
    from helium.skills import new_skill

    typer.echo(f"created {new_skill(_settings().workspace, name)}")


@app.command("chat")
def chat(resume: Annotated[str | None, typer.Option("--resume", help="Continue the conversation of this run.")] = None,
         model: ModelOpt = None, base_url: BaseUrlOpt = None, api_key: ApiKeyOpt = None,
         tool_calling: ToolCallingOpt = None, approve: ApproveOpt = None,
         auto_approve: AutoApproveOpt = False) -> None:
    """Interactive chat (the same as `helium` alone): history, multi-line input, /help, /runs, /resume, /exit.

    Examples:

    \b
      helium chat
      helium chat --resume 1a2b3c
      helium chat --model openai/gpt-4o-mini --auto-approve
    """
    from helium.cli.repl import run_repl

    settings = _settings(model, base_url, api_key, tool_calling, _approval(approve, auto_approve))
    raise typer.Exit(run_repl(settings, resume_id=resume))


@app.command("runs")
def runs(json_output: JsonOpt = False,
         flow: Annotated[str | None, typer.Option("--flow", help="Only runs of this flow.")] = None,
         limit: Annotated[int, typer.Option("--limit", "-n", help="At most this many, newest first.")] = 50) -> None:
    """List the runs in this project: id, flow, title, status, model, tokens, cost, updated.

    Examples:

    \b
      helium runs
      helium runs --flow chat -n 10
      helium runs --json | jq '.[0].id'
    """
    from helium.cli import views
    from helium.state.store import ProjectStore

    with ProjectStore(_settings().db_path) as store:
        records = store.runs.list(flow=flow, limit=limit)
    if json_output:
        typer.echo(json.dumps([r.to_json() for r in records], indent=2))
    else:
        views.print_runs(records)


@app.command("resume")
def resume(run_id: RunIdArg,
           message: Annotated[str | None, typer.Option("--message", help="Continue a finished conversation "
                                                          "with this message.")] = None,
           model: ModelOpt = None, base_url: BaseUrlOpt = None, api_key: ApiKeyOpt = None,
           tool_calling: ToolCallingOpt = None, approve: ApproveOpt = None, auto_approve: AutoApproveOpt = False,
           json_output: JsonOpt = False) -> None:
    """Continue a run that waits for approval, was stopped with Ctrl-C, failed, or was killed.

    Finished tool calls are not run again; a call cut off mid-way is reported to the model, not repeated.

    Examples:

    \b
      helium resume 1a2b3c
      helium resume 1a2b3c --auto-approve
      helium resume 1a2b3c --message "now add tests"
    """
    from helium.cli.session import open_driver, report, resume_run

    settings = _settings(model, base_url, api_key, tool_calling, _approval(approve, auto_approve))
    with open_driver(settings, json_output=json_output) as driver:
        outcome = resume_run(driver, run_id, message)
    raise typer.Exit(report(outcome, json_output))


@app.command("history")
def history(run_id: RunIdArg, json_output: JsonOpt = False) -> None:
    """List a run's checkpoints: step, node, time, checkpoint id and a one-line summary.

    Examples:

    \b
      helium history 1a2b3c
      helium history 1a2b3c --json
    """
    from helium.cli import views
    from helium.cli.session import checkpoint_history
    from helium.state.store import ProjectStore

    with ProjectStore(_settings().db_path) as store:
        steps = checkpoint_history(store, run_id)
    if json_output:
        typer.echo(json.dumps(steps, indent=2))
    else:
        views.print_history(steps)


@app.command("fork")
def fork(run_id: RunIdArg,
         at: Annotated[str, typer.Option("--at", help="Checkpoint id (or prefix), or step number, from `helium history`.")],
         message: Annotated[str | None, typer.Option("--message", help="Replace the user's message at that step "
                                                        "(or add one) before continuing.")] = None,
         model: ModelOpt = None, base_url: BaseUrlOpt = None, api_key: ApiKeyOpt = None,
         tool_calling: ToolCallingOpt = None, approve: ApproveOpt = None, auto_approve: AutoApproveOpt = False,
         json_output: JsonOpt = False) -> None:
    """Start a new run from a step of an old one (time travel); the old run is left as it was.

    Examples:

    \b
      helium fork 1a2b3c --at 3
      helium fork 1a2b3c --at 1f1e69 --message "use Python instead"
    """
    from helium.cli.session import fork_run, open_driver, report

    settings = _settings(model, base_url, api_key, tool_calling, _approval(approve, auto_approve))
    with open_driver(settings, json_output=json_output) as driver:
        outcome = fork_run(driver, run_id, at, message)
    raise typer.Exit(report(outcome, json_output))


@app.command("show")
def show(run_id: RunIdArg, json_output: JsonOpt = False) -> None:
    """Print a run's transcript: messages, tool calls and their results.

    Examples:

    \b
      helium show 1a2b3c
      helium show 1a2b3c --json
    """
    from helium.cli import views
    from helium.cli.session import recalled_context, transcript
    from helium.state.store import ProjectStore

    with ProjectStore(_settings().db_path) as store:
        run, messages = transcript(store, run_id)
        recalled = recalled_context(store, run)
    if json_output:
        typer.echo(json.dumps({"run": run.to_json(), "messages": messages, "recalled": recalled}, indent=2))
    else:
        views.print_transcript(run, messages, recalled)


@app.command("audit")
def audit(run_id: RunIdArg, json_output: JsonOpt = False) -> None:
    """Print every permission decision of a run: checkpoint, tool, arguments, decision, who decided.

    Examples:

    \b
      helium audit 1a2b3c
      helium audit 1a2b3c --json
    """
    from dataclasses import asdict

    from helium.cli import views
    from helium.state.store import ProjectStore

    with ProjectStore(_settings().db_path) as store:
        run = store.runs.get(run_id)
        entries = store.audit.entries(run.id)
    if json_output:
        typer.echo(json.dumps([asdict(e) for e in entries], indent=2))
    else:
        views.print_audit(run, entries)


@app.command("graph")
def graph(name: Annotated[str, typer.Argument(help="The flow: chat or code.")] = "chat",
          fmt: Annotated[str, typer.Option("--format", "-f", help="ascii, mermaid, dot or png.")] = "ascii",
          output: Annotated[Path | None, typer.Option("--output", "-o", help="Write to this file "
                                                         "(png defaults to NAME.png).")] = None) -> None:
    """Draw a flow's graph, offline (no online renderer is called).

    Examples:

    \b
      helium graph chat
      helium graph chat --format mermaid
      helium graph chat --format png -o chat.png
    """
    from helium.errors import HeliumError
    from helium.graphs import flow_module
    from helium.graphs.drawing import render

    if fmt not in ("ascii", "mermaid", "dot", "png"):
        raise HeliumError(f"unknown format {fmt!r}: use ascii, mermaid, dot or png")
    drawing = render(flow_module(name).build_graph(), fmt)  # type: ignore[arg-type]
    if fmt == "png" or output is not None:
        target = output or Path(f"{name}.png")
        target.write_bytes(drawing if isinstance(drawing, bytes) else drawing.encode())
        typer.echo(f"wrote {target}")
    else:
        typer.echo(drawing)


@app.command("view")
def view(port: Annotated[int, typer.Option("--port", "-p", help="Port to listen on (0: any free port).")] = 8080,
         host: Annotated[str, typer.Option("--host", help="Address to listen on; anything but loopback needs "
                                               "--allow-remote.")] = "127.0.0.1",
         allow_remote: Annotated[bool, typer.Option("--allow-remote", help="Allow a non-loopback --host: other "
                                                       "machines could see runs and approve calls.")] = False) -> None:
    """Serve the web viewer of this project: runs, their steps live, approvals and forks.

    Examples:

    \b
      helium view
      helium view --port 9000
      helium view --host 0.0.0.0 --allow-remote
    """
    from helium.viewer.server import serve_forever

    serve_forever(Path.cwd(), host, port, allow_remote=allow_remote)


ProviderOpt = Annotated[str, typer.Option("--provider", help="Where the task runs: docker, local (a work directory "
                                              "under bubblewrap) or daytona.")]
AgentOpt = Annotated[str, typer.Option("--agent", "-a", help="helium (the model), oracle (the task's "
                                          "solution/solve.sh) or nop (does nothing).")]
OutputOpt = Annotated[Path, typer.Option("--output", "-o", help="Folder for the trial outputs.")]


@task_app.command("run")
def task_run(path: Annotated[Path, typer.Argument(help="The task folder (instruction.md, task.toml, tests/).")],
             model: ModelOpt = None, output: OutputOpt = Path("output"), provider: ProviderOpt = "docker",
             agent: AgentOpt = "helium",
             watch: Annotated[bool, typer.Option("--watch", help="Serve the web viewer while it runs.")] = False,
             port: Annotated[int, typer.Option("--port", help="The viewer's port with --watch (0: any free "
                                                  "port).")] = 8080,
             base_url: BaseUrlOpt = None, api_key: ApiKeyOpt = None, json_output: JsonOpt = False) -> None:
    """Run one task: agent, then verifier; outputs in OUTPUT/<task>_<time>/. Exit 0 passed, 1 failed or error.

    Examples:

    \b
      helium task run tasks/create-hello-file
      helium task run tasks/fix-failing-test --provider local --agent oracle
      helium task run tasks/create-hello-file -m openai/gpt-4o-mini -o results --json
      helium task run tasks/create-hello-file --watch
    """
    from helium.cli.tasks import run_task

    raise typer.Exit(run_task(_settings(model, base_url, api_key), path, output, provider, agent, watch=watch,
                              port=port, json_output=json_output))


@task_app.command("batch")
def task_batch(directory: Annotated[Path | None, typer.Argument(help="A folder of tasks (searched with --pattern).")] = None,
               n_concurrent: Annotated[int | None, typer.Option("--n-concurrent", "-n", min=1, help="Trials at once "
                                                                   "(default 2).")] = None,
               attempts: Annotated[int, typer.Option("--attempts", "-k", min=1, help="Attempts per task (pass@k).")] = 1,
               pattern: Annotated[str, typer.Option("--pattern", "-p", help="Glob for task files.")] = "**/task.toml",
               quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No progress bar or table, only the "
                                                   "summary line.")] = False,
               resume: Annotated[Path | None, typer.Option("--resume", help="Finish the unfinished trials of this "
                                                              "batch folder.")] = None,
               model: ModelOpt = None, output: OutputOpt = Path("output"), provider: ProviderOpt = "docker",
               agent: AgentOpt = "helium", base_url: BaseUrlOpt = None, api_key: ApiKeyOpt = None,
               json_output: JsonOpt = False) -> None:
    """Run every task in a folder, N at a time, K attempts each, with a live bar of passed/failed.

    Exit 0 when every trial passed, 1 otherwise. The batch folder is printed; after a kill,
    --resume runs only the trials that had not finished.

    Examples:

    \b
      helium task batch tasks/ -n 4
      helium task batch tasks/ -k 3 --agent oracle --provider local -q
      helium task batch --resume output/batch_20260101-120000-000000
    """
    from helium.cli.tasks import run_batch

    raise typer.Exit(run_batch(_settings(model, base_url, api_key), directory, n_concurrent=n_concurrent,
                               attempts=attempts, pattern=pattern, quiet=quiet, resume=resume, output_dir=output,
                               provider=provider, agent=agent, json_output=json_output))


PathsArg = Annotated[list[str], typer.Argument(help="Files, directories or globs (quote globs for **).")]


@rag_app.command("add")
def rag_add(paths: PathsArg, json_output: JsonOpt = False) -> None:
    """Index files for `rag ask`, `@path` and search_files; only new or changed files are read again.

    Binary, unreadable and empty files are skipped with the reason. Exit code 1 if a path named nothing.

    Examples:

    \b
      helium rag add README.md docs/
      helium rag add 'src/**/*.py' --json
    """
    from helium.cli import rag

    raise typer.Exit(rag.add(_settings(), paths, json_output))


@rag_app.command("ask")
def rag_ask(question: Annotated[str, typer.Argument(help="The question.")],
            k: Annotated[int, typer.Option("-k", min=1, max=50, help="How many passages to retrieve.")] = 5,
            model: ModelOpt = None, base_url: BaseUrlOpt = None, api_key: ApiKeyOpt = None,
            json_output: JsonOpt = False) -> None:
    """Answer from the indexed files, citing file:start-end; every citation is checked against the index.

    Examples:

    \b
      helium rag ask "how do I install it?"
      helium rag ask "which options does the parser take?" -k 8 --json
    """
    from helium.cli import rag

    raise typer.Exit(rag.ask(_settings(model, base_url, api_key), question, k, json_output))


@rag_app.command("list")
def rag_list(json_output: JsonOpt = False) -> None:
    """List the indexed files: kind, chunks, lines (pages for PDFs), when indexed.

    Examples:

    \b
      helium rag list
      helium rag list --json
    """
    from helium.cli import rag

    rag.list_files(_settings(), json_output)


@rag_app.command("show")
def rag_show(citation: Annotated[str, typer.Argument(help="A citation: path:start-end, or file.pdf:pN.")],
             json_output: JsonOpt = False) -> None:
    """Print the indexed text a citation points to, with line (or page) numbers; for HTML and PDF files this is
    the extracted text that their citations count in.

    Examples:

    \b
      helium rag show docs/guide.md:12-30
      helium rag show docs/page.html:40-52 --json
      helium rag show manual.pdf:p3
    """
    from helium.cli import rag

    rag.show(_settings(), citation, json_output)


@rag_app.command("remove")
def rag_remove(paths: PathsArg, json_output: JsonOpt = False) -> None:
    """Drop files (or everything under directories, or matching globs) from the index.

    Examples:

    \b
      helium rag remove docs/old.md
      helium rag remove docs/
    """
    from helium.cli import rag

    raise typer.Exit(rag.remove(_settings(), paths, json_output))


@memory_app.command("list")
def memory_list(json_output: JsonOpt = False,
                limit: Annotated[int, typer.Option("--limit", "-n", help="At most this many of each, newest first.")]
                = 100) -> None:
    """List remembered facts (with their relations) and conversation summaries.

    Examples:

    \b
      helium memory list
      helium memory list --json | jq '.facts[].text'
    """
    from helium.cli.memory import list_memory

    list_memory(_settings(), json_output=json_output, limit=limit)


@memory_app.command("search")
def memory_search(query: Annotated[str, typer.Argument(help="Words or a question; naming an entity (\"what do I "
                                                          "prefer?\") also lists its relations.")],
                  json_output: JsonOpt = False,
                  limit: Annotated[int, typer.Option("--limit", "-n", help="At most this many facts.")] = 5) -> None:
    """Search memory by keyword and by meaning; show the relations of the entities the query names.

    Examples:

    \b
      helium memory search "database"
      helium memory search "what do I prefer?" --json
    """
    from helium.cli.memory import search_memory

    search_memory(_settings(), query, json_output=json_output, limit=limit)


@memory_app.command("forget")
def memory_forget(memory_id: Annotated[str, typer.Argument(metavar="ID", help="A fact's id (from `helium memory "
                                                              "list`), or summary:RUN_ID for a run's summary.")]) -> None:
    """Forget a fact (and its relations), or a conversation summary.

    Examples:

    \b
      helium memory forget 3
      helium memory forget summary:1a2b3c
    """
    from helium.cli.memory import forget_memory

    typer.echo(forget_memory(_settings(), memory_id))


@memory_app.command("export")
def memory_export(json_output: Annotated[bool, typer.Option("--json", help="One JSON document with facts and "
                                                            "summaries, instead of JSON lines.")] = False,
                  output: Annotated[Path | None, typer.Option("--output", "-o", help="Write to this file instead "
                                                                 "of standard output.")] = None) -> None:
    """Export all of memory: JSON lines (one fact or summary a line, facts with their triples), or --json.

    Examples:

    \b
      helium memory export > memory.jsonl
      helium memory export --json -o memory.json
    """
    from helium.cli.memory import export_memory

    export_memory(_settings(), json_output=json_output, output=output)


def _settings(model: str | None = None, base_url: str | None = None, api_key: str | None = None,
              tool_calling: str | None = None, approve: str | None = None) -> Settings:
    """Settings for this directory with the command's flags on top (a flag left out is None)."""
    from helium.config import load_settings

    return load_settings(model=model, base_url=base_url, api_key=api_key, tool_calling=tool_calling, approve=approve)


def _approval(approve: str | None, auto_approve: bool) -> str | None:
    return "auto" if auto_approve else approve


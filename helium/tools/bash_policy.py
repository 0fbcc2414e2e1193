"""Classify a bash command as read-only (runs without asking) or risky (needs approval).

The command is parsed with bashlex, never guessed at with regular expressions.  It is
safe only when every simple command in it (across pipelines, lists, subshells and
compound commands) is a known read-only command and nothing writes a file, runs in
the background or substitutes another command's output.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

import bashlex
import bashlex.errors

READ_ONLY = frozenset({
    "ls", "cat", "pwd", "echo", "printf", "head", "tail", "wc", "grep", "egrep", "fgrep", "rg", "find", "tree",
    "file", "stat", "du", "df", "which", "whoami", "id", "date", "uname", "env", "printenv", "basename", "dirname",
    "realpath", "readlink", "sort", "uniq", "cut", "tr", "diff", "cmp", "true", "false", "test", "[",
    "sha256sum", "sha1sum", "md5sum", "nl", "column", "jq", "sed", "cd", "git", "python", "python3", "node",
})
RISKY_REASONS = {
    "rm": "rm deletes files", "rmdir": "rmdir deletes directories", "mv": "mv moves or overwrites files",
    "cp": "cp writes files", "chmod": "chmod changes permissions", "chown": "chown changes owners",
    "chgrp": "chgrp changes groups", "sudo": "sudo runs as another user", "su": "su switches user",
    "doas": "doas runs as another user", "dd": "dd writes devices and files", "shred": "shred destroys files",
    "truncate": "truncate changes file sizes", "ln": "ln creates links", "tee": "tee writes files",
    "touch": "touch creates files", "mkdir": "mkdir creates directories", "kill": "kill stops processes",
    "pkill": "pkill stops processes", "killall": "killall stops processes", "reboot": "reboot restarts the machine",
    "shutdown": "shutdown stops the machine", "curl": "curl uses the network", "wget": "wget uses the network",
    "pip": "pip installs packages", "pip3": "pip installs packages", "npm": "npm installs packages and runs scripts",
    "apt": "apt installs packages", "apt-get": "apt-get installs packages", "eval": "eval runs arbitrary code",
    "exec": "exec replaces the shell", "source": "source runs a script", ".": "source runs a script",
    "xargs": "xargs runs other commands", "bash": "runs a shell", "sh": "runs a shell", "zsh": "runs a shell",
    "perl": "perl runs arbitrary code", "less": "less is interactive", "more": "more is interactive",
    "vi": "vi is interactive", "vim": "vim is interactive", "nano": "nano is interactive",
}
DOWNLOADERS = frozenset({"curl", "wget"})
INTERPRETERS = frozenset({"sh", "bash", "zsh", "dash", "python", "python3", "perl", "ruby", "node"})
HARMLESS_TARGETS = frozenset({"/dev/null", "/dev/stdout", "/dev/stderr"})
OUTPUT_REDIRECTS = frozenset({">", ">>", ">|", "&>", "&>>", ">&"})
GIT_READ_ONLY = frozenset({"status", "diff", "log", "show", "rev-parse", "ls-files", "blame", "describe",
                           "shortlog", "grep", "ls-tree", "cat-file"})
GIT_LISTING_FLAGS = {
    "branch": frozenset({"-a", "-r", "-v", "-vv", "--list", "--all", "--remotes", "--show-current"}),
    "tag": frozenset({"-l", "--list"}),
    "remote": frozenset({"-v", "--verbose"}),
}
GIT_OPTIONS_WITH_VALUE = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace"})
FIND_ACTIONS = frozenset({"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls"})


@dataclass(frozen=True)
class CommandVerdict:
    safe: bool
    reason: str
    """One short line for the user: what makes it risky, or which read-only commands it runs."""


class _Risky(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def classify_command(command: str) -> CommandVerdict:
    if not command.strip():
        return CommandVerdict(False, "empty command")
    try:
        trees = bashlex.parse(command)
    except (bashlex.errors.ParsingError, IndexError, AttributeError, TypeError):
        return CommandVerdict(False, "could not parse the command")
    except NotImplementedError:  # bashlex's word for `case`, `select` and $((arithmetic))
        return CommandVerdict(False, "uses shell syntax the classifier cannot check (case, select, arithmetic)")
    names: list[str] = []
    try:
        for tree in trees:
            _check_node(tree, names)
    except _Risky as risky:
        return CommandVerdict(False, risky.reason)
    return CommandVerdict(True, "read-only: " + ", ".join(dict.fromkeys(names)) if names else "only assignments")


def _check_node(node: Any, names: list[str]) -> None:
    kind = node.kind
    if kind == "commandsubstitution":
        raise _Risky("uses command substitution")
    if kind == "processsubstitution":
        raise _Risky("uses process substitution")
    if kind == "operator" and node.op == "&":
        raise _Risky("runs a command in the background")
    if kind == "function":
        raise _Risky("defines a shell function")
    if kind == "pipeline":
        _check_pipeline(node)
    if kind == "command":
        _check_command(node, names)
    for child in [*getattr(node, "parts", []), *getattr(node, "list", [])]:
        _check_node(child, names)


def _check_pipeline(node: Any) -> None:
    programs = {_program(part) for part in node.parts if part.kind == "command"}
    if programs & DOWNLOADERS and programs & INTERPRETERS:
        raise _Risky("pipes downloaded content into a shell")


def _program(command: Any) -> str:
    words = [p.word for p in command.parts if p.kind == "word"]
    return os.path.basename(words[0]) if words else ""


def _check_command(node: Any, names: list[str]) -> None:
    for part in node.parts:
        if part.kind == "redirect" and part.type in OUTPUT_REDIRECTS:
            target = part.output
            if not (isinstance(target, int) or getattr(target, "word", None) in HARMLESS_TARGETS):
                raise _Risky("redirects output into a file")
    words = [p.word for p in node.parts if p.kind == "word"]
    if not words:
        return
    name, args = os.path.basename(words[0]), words[1:]
    if name in RISKY_REASONS:
        raise _Risky(RISKY_REASONS[name])
    if name not in READ_ONLY:
        raise _Risky(f"unknown command: {name}")
    problem = _argument_problem(name, args)
    if problem:
        raise _Risky(problem)
    names.append(f"git {_git_subcommand(args)[0]}" if name == "git" and _git_subcommand(args) else name)


def _argument_problem(name: str, args: list[str]) -> str | None:
    """Read-only commands that some arguments turn into writers or launchers."""
    if name == "find" and FIND_ACTIONS.intersection(args):
        return "find with -exec or -delete runs commands or deletes files"
    if name == "sort" and any(a in ("-o", "--output") or a.startswith(("-o", "--output=")) for a in args):
        return "sort -o writes a file"
    if name == "sed" and any(a == "-i" or a.startswith(("-i", "--in-place")) for a in args):
        return "sed -i edits files in place"
    if name == "env" and args:
        return "env with arguments runs another command"
    if name in ("python", "python3", "node") and args not in (["--version"], ["-V"]):
        return f"{name} runs a program"
    if name == "git":
        return _git_problem(args)
    return None


def _git_subcommand(args: list[str]) -> list[str]:
    """The arguments from git's subcommand on, skipping global options such as -C DIR or --no-pager."""
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in GIT_OPTIONS_WITH_VALUE else 1
    return args[i:]


def _git_problem(args: list[str]) -> str | None:
    rest = _git_subcommand(args)
    if not rest:
        return None
    sub, sub_args = rest[0], rest[1:]
    if sub in GIT_READ_ONLY:
        return None
    if sub in GIT_LISTING_FLAGS and all(a in GIT_LISTING_FLAGS[sub] for a in sub_args):
        return None
    return f"git {sub} can change the repository"

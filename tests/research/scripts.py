"""The scripted model's side of a research run, shared by the graph tests, the CLI tests and benchmarks.

Turns are matched by a phrase of each prompt (`when`), so they serve whatever order the run asks in.
The local web answers each planned query with the page named in its comment (`max_results=1`), so the
sources are numbered, best score then URL: [1] documentation-tests, [2] lint-levels, [3] what-is-rustc,
[4] what-is-rustdoc.
"""

from __future__ import annotations

import json

QUESTION = "How does rustdoc test documentation, and what does rustc check?"

PLAN = {"sub_questions": [
    {"question": "What is rustdoc?", "queries": ["what is rustdoc"]},                        # what-is-rustdoc
    {"question": "How does rustdoc run documentation tests?",
     "queries": ["rustdoc documentation tests examples"]},                                    # documentation-tests
    {"question": "What is rustc?", "queries": ["what is rustc compiler"]},                   # what-is-rustc
]}
FOLLOW_UP = "rustc lint levels allow warn deny"                                              # lint-levels

GOOD_CLAIMS = [
    "Rustdoc is the documentation generator that ships with the Rust distribution [4].",
    "rustdoc supports executing your documentation examples as tests, which makes sure the examples are up to "
    "date and working [1].",
    "rustc is the compiler for the Rust programming language, provided by the project itself [3].",
    "The deny lint level produces an error if you violate the lint [2].",
]
PLANTED = "The Rust compiler was first written in OCaml and later ported to the Java virtual machine [1]."
"""Cites a real source that says nothing of the kind: the verifier must catch it."""
NO_SUCH_SOURCE = "Every crate must have a logo [7]."

REPORT = f"""# Rustdoc and rustc

Rustdoc turns documentation comments into documentation and runs the examples in them as tests.

## What rustdoc is
{GOOD_CLAIMS[0]}

## Documentation tests
{GOOD_CLAIMS[1]}

## rustc
{GOOD_CLAIMS[2]} {GOOD_CLAIMS[3]} {PLANTED} {NO_SUCH_SOURCE}
"""


def research_turns(*, rounds: int = 2, plan: dict | None = None) -> list[dict]:
    """Plan, (a reflection asking for one more round,) and the report."""
    turns = [{"when": "You plan web research", "content": json.dumps(plan or PLAN)}]
    if rounds > 1:
        turns.append({"when": "You judge whether research evidence",
                      "content": json.dumps({"enough": False, "follow_up_queries": [FOLLOW_UP]})})
    turns.append({"when": "You write a research report", "content": REPORT})
    return turns


def research_config(web_base_url: str, **extra: object) -> str:
    """A project's .helium/config.toml pointing both providers at the local web."""
    lines = ["[research]", f'searxng_url = "{web_base_url}"', f'duckduckgo_url = "{web_base_url}/html/"']
    lines += [f"{key} = {json.dumps(value)}" for key, value in extra.items()]
    return "\n".join(lines) + "\n"

"""The `research` tool: the chat model hands a question to the research flow and gets back a cited
report and its sources.  The flow itself is given as a function (the chat graph builds it), so this
module imports nothing above tools."""

from __future__ import annotations

from collections.abc import Callable

from langchain_core.tools import BaseTool, StructuredTool

from helium.tools.tiers import Tier

RESEARCH = "research"


def research_tool(run_research: Callable[[str], str]) -> BaseTool:
    def research(question: str) -> str:
        """Research a question on the web: searches, reads and cites pages, and returns a Markdown report with
        numbered citations (each checked against its source) and the list of sources. Takes a minute or more;
        use it for questions that need current or external facts, not for questions about local files."""
        return run_research(question)

    return StructuredTool.from_function(research, name=RESEARCH, metadata={"tier": Tier.SAFE})

"""The rag flow, `helium rag ask`: retrieve -> model -> cite, checkpointed like every run.

A question is a run (`helium runs`, `helium show`, `helium history`); `helium resume ID --message "…"`
asks a follow-up, retrieved afresh, with the earlier questions and answers in the model's context.
"""

from __future__ import annotations

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph
from langgraph.graph.state import CompiledStateGraph

from helium.config import ApprovalMode, Settings
from helium.graphs.instructions import with_project_instructions
from helium.models import build_chat_model
from helium.nodes.rag import RagContext, RagState, answer, check_citations, retrieve
from helium.rag.index import DEFAULT_K, open_rag_index
from helium.rag.prompts import ANSWER_SYSTEM_PROMPT
from helium.state.runs import RunRecord
from helium.state.store import ProjectStore

FLOW = "rag"


def build_graph(checkpointer: BaseCheckpointSaver | None = None) -> CompiledStateGraph:
    builder = StateGraph(RagState, context_schema=RagContext)
    builder.add_node("retrieve", retrieve)
    builder.add_node("model", answer)  # named like the agent loop's model node, so the driver streams its tokens
    builder.add_node("cite", check_citations)
    builder.add_edge(START, "retrieve")
    builder.add_edge("retrieve", "model")
    builder.add_edge("model", "cite")
    builder.add_edge("cite", END)
    return builder.compile(checkpointer=checkpointer, name=FLOW)


def build_context(settings: Settings, store: ProjectStore, run: RunRecord, approval: ApprovalMode) -> RagContext:
    """No tools, so nothing to approve; `k` is stored with the run, so a follow-up retrieves as many."""
    return RagContext(run_id=run.id, index=open_rag_index(settings, store), model=build_chat_model(settings),
                      k=run.extra.get("k", DEFAULT_K),
                      system_prompt=with_project_instructions(ANSWER_SYSTEM_PROMPT, settings.workspace))


graph = build_graph()
"""For LangGraph's dev server and Studio (langgraph.json)."""

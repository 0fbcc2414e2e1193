"""Plan: the question becomes 3-6 sub-questions, each with its web search queries."""

from __future__ import annotations

from langgraph.runtime import Runtime
from pydantic import BaseModel, Field, field_validator

from helium.nodes.research.context import ResearchContext
from helium.nodes.research.progress import emit
from helium.nodes.research.prompts import PLAN_PROMPT
from helium.nodes.research.settings import MAX_QUERIES
from helium.nodes.research.structured import ask_structured
from helium.state.research import ResearchState, SubQuestion


class PlannedQuestion(BaseModel):
    question: str = Field(min_length=3)
    queries: list[str] = Field(min_length=1, max_length=3)

    @field_validator("queries")
    @classmethod
    def _not_blank(cls, queries: list[str]) -> list[str]:
        cleaned = [" ".join(q.split()) for q in queries if q.strip()]
        if not cleaned:
            raise ValueError("queries are blank")
        return cleaned


class Plan(BaseModel):
    sub_questions: list[PlannedQuestion] = Field(min_length=3, max_length=6)


def question_of(state: ResearchState) -> str:
    """The research question: the run's first message."""
    return state["messages"][0].text


def plan_research(state: ResearchState, runtime: Runtime[ResearchContext]) -> dict:
    emit("stage", stage="plan")
    plan, usage = ask_structured(runtime.context.model, PLAN_PROMPT.format(question=question_of(state)), Plan,
                                 "research plan")
    sub_questions = [SubQuestion(question=q.question, queries=q.queries) for q in plan.sub_questions]
    queries = list(dict.fromkeys(q for sub in sub_questions for q in sub["queries"]))[:MAX_QUERIES]
    emit("plan", sub_questions=[s["question"] for s in sub_questions], queries=queries)
    return {"plan": sub_questions, "queries": queries, "round": 1, "usage": usage,
            "providers": list(runtime.context.settings.providers)}

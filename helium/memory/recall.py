"""What a new run's system prompt gets from memory and contextual skills, and how it is written.

The model node asks a `ContextChooser` once per run, with the run's first user message: the facts
closest in meaning (above the `memory_threshold` setting), the latest conversation summaries, and
the contextual skills whose description is close to the message (above `skill_threshold`).  The
choice is kept in the run's state, so resuming, continuing or forking the run keeps its prompt.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from helium.memory.prompts import MEMORY_SECTION, SKILLS_SECTION
from helium.memory.secrets import redact_secrets
from helium.memory.store import MemoryStore
from helium.skills import load_skills, relevant_skills
from helium.state.schema import FiredSkill, Recalled, RecalledFact, RecalledSummary
from helium.state.vectors import VectorStore

MAX_FACTS = 5
MAX_SUMMARIES = 3
SUMMARY_CHARS = 600


@dataclass
class ContextChooser:
    """Chooses, for one run, what memory and skills add to its prompt; embeds only when there is
    something to compare (facts in memory, or contextual skills)."""

    workspace: Path
    run_id: str
    vectors: VectorStore
    memory: MemoryStore | None
    """None when memory is switched off (`memory = false`): contextual skills still apply."""
    memory_threshold: float
    skill_threshold: float

    def choose(self, message: str) -> Recalled:
        skills = load_skills(self.workspace).contextual()
        has_facts = self.memory is not None and self.memory.count() > 0
        vector, described, facts, warning = None, [], [], None
        try:  # recalling is a bonus: an embeddings or vector store failure is a warning, never a failed run
            if message.strip() and (skills or has_facts):  # one embedding call: the message and skill descriptions
                vector, *described = self.vectors.embed([message, *(s.description for s in skills)])
            if vector is not None and has_facts and self.memory is not None:
                facts = self._similar_facts(self.memory, vector)
        except Exception as exc:  # noqa: BLE001 - the endpoint, the model or Chroma: say which, go on without
            vector, facts, warning = None, [], redact_secrets(f"no facts or contextual skills recalled: {exc}")
            print(f"warning: memory: {warning}", file=sys.stderr)
        fired = relevant_skills(skills, described, vector, self.skill_threshold) if vector is not None else []
        summaries = [RecalledSummary(run_id=s.run_id, text=s.text[:SUMMARY_CHARS])
                     for s in (self.memory.summaries(limit=MAX_SUMMARIES, exclude=self.run_id)
                               if self.memory is not None else [])]
        recalled = Recalled(facts=facts, summaries=summaries,
                            skills=[FiredSkill(name=s.name, similarity=round(score, 3), body=s.body)
                                    for s, score in fired])
        if warning:
            recalled["warning"] = warning
        return recalled

    def _similar_facts(self, memory: MemoryStore, vector: list[float]) -> list[RecalledFact]:
        facts = []
        for fact_id, similarity in memory.similar(embedding=vector, k=MAX_FACTS, threshold=self.memory_threshold):
            fact = memory.fact(fact_id)
            if fact is not None:
                facts.append(RecalledFact(id=fact.id, text=fact.text, similarity=round(similarity, 3)))
        return facts


def with_recalled(system_prompt: str, recalled: Recalled | None) -> str:
    """The flow's prompt followed by the run's fired skills and remembered facts and summaries."""
    if not recalled:
        return system_prompt
    sections = [system_prompt]
    if recalled["skills"]:
        sections.append(SKILLS_SECTION + "".join(f"\n\n## Skill: {s['name']}\n{s['body']}" for s in recalled["skills"]))
    if recalled["facts"] or recalled["summaries"]:
        lines = [MEMORY_SECTION]
        if recalled["facts"]:
            lines.append("\nFacts:")
            lines += [f"- [{f['id']}] {f['text']}" for f in recalled["facts"]]
        if recalled["summaries"]:
            lines.append("\nRecent conversations:")
            lines += [f"- (run {s['run_id']}) {' '.join(s['text'].split())}" for s in recalled["summaries"]]
        sections.append("\n".join(lines))
    return "\n\n".join(sections)


def describe_recalled(recalled: Recalled | None) -> list[str]:
    """One line each for what was injected, as `helium show` and `helium history` print it."""
    if not recalled:
        return []
    lines = []
    if recalled["facts"] or recalled["summaries"]:
        facts = "; ".join(f"[{f['id']}] {f['text']}" for f in recalled["facts"])
        parts = [f"{len(recalled['facts'])} fact(s)" + (f" ({facts})" if facts else "")]
        if recalled["summaries"]:
            parts.append(f"{len(recalled['summaries'])} summary(ies) of runs "
                         + ", ".join(s["run_id"] for s in recalled["summaries"]))
        lines.append("memory: " + ", ".join(parts))
    if recalled.get("warning"):
        lines.append(f"memory: {recalled['warning']}")
    if recalled["skills"]:
        lines.append("skills: " + ", ".join(f"{s['name']} ({s['similarity']:.2f})" for s in recalled["skills"]))
    return lines

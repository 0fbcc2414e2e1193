"""One line per research step for `helium history` and the viewer: what the step found or decided."""

from __future__ import annotations

from typing import Any

RESEARCH_NODES = frozenset({"plan", "search", "merge", "fetch", "extract", "index", "evidence", "reflect",
                            "synthesise", "verify", "write"})


def describe_research_step(node: str, before: dict[str, Any], after: dict[str, Any]) -> str | None:
    """What `node` changed between the state `before` it and `after` it; None for other flows' nodes."""
    if node not in RESEARCH_NODES or "round" not in after:  # another flow's node, or not a research state
        return None
    round_ = after.get("round", 1)
    pages_before, pages_after = before.get("pages", {}), after.get("pages", {})
    new_pages = [p for key, p in pages_after.items() if pages_before.get(key) != p]
    if node == "plan":
        return f"plan: {len(after.get('plan', []))} sub-questions, {len(after.get('queries', []))} queries"
    if node == "search":
        searches = after.get("searches", [])[len(before.get("searches", [])):]
        failed = sum(1 for s in searches if s["error"])
        hits = sum(len(s["hits"]) for s in searches)
        return f"search (round {round_}): {len(searches)} searches, {hits} hits, {failed} failed"
    if node == "merge":
        return (f"merge: {len(after.get('selected', []))} pages selected of {len(after.get('sources', {}))} "
                "sources found")
    if node in ("fetch", "extract"):
        skipped = sum(1 for p in new_pages if not p.get("ok"))
        return f"{node}: {len(new_pages) - skipped} pages read, {skipped} skipped"
    if node == "index":
        return f"index: {sum(p.get('chunks', 0) for p in new_pages)} chunks from {len(new_pages)} pages"
    if node == "evidence":
        chunks = sum(len(e["chunks"]) for e in after.get("evidence", []))
        return f"evidence: {chunks} chunks for {len(after.get('evidence', []))} sub-questions"
    if node == "reflect":
        if after.get("round", 1) > before.get("round", 1):
            return f"reflect: another round: {'; '.join(after.get('queries', []))}"
        return "reflect: no further round"
    if node == "synthesise":
        return f"synthesise: {len(after.get('draft', ''))} characters from {len(after.get('cited', []))} sources"
    if node == "verify":
        checks = after.get("citations", [])
        return f"verify: {sum(c['verified'] for c in checks)} of {len(checks)} citations verified"
    return f"write: {after.get('report_path', '')}"

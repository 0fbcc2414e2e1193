"""Write: the verified report with its Sources list and citation count to `report.md`, the sources to
`sources.json`, both in the run's output directory; the report also becomes the run's last message."""

from __future__ import annotations

import json

from langchain_core.messages import AIMessage
from langgraph.runtime import Runtime

from helium.errors import HeliumError
from helium.nodes.research.context import ResearchContext
from helium.nodes.research.plan import question_of
from helium.nodes.research.progress import emit
from helium.state.pages import PageStore
from helium.state.research import CitationCheck, ResearchState


def write_report(state: ResearchState, runtime: Runtime[ResearchContext]) -> dict:
    ctx = runtime.context
    emit("stage", stage="write")
    checks = state.get("citations", [])
    verified = sum(c["verified"] for c in checks)
    report = "\n\n".join(part for part in (
        state["report"].rstrip(),
        sources_section(state),
        citation_section(checks),
        f"{verified} of {len(checks)} citations verified.",
    ) if part) + "\n"
    report_path = ctx.output_dir / "report.md"
    sources_path = ctx.output_dir / "sources.json"
    sources = json.dumps(sources_document(state, ctx.run_id, ctx.pages), indent=2, ensure_ascii=False) + "\n"
    try:
        ctx.output_dir.mkdir(parents=True, exist_ok=True)
        report_path.write_text(report, encoding="utf-8")
        sources_path.write_text(sources, encoding="utf-8")
    except OSError as exc:
        raise HeliumError(f"cannot write the report to {ctx.output_dir} ({exc.strerror or exc}); fix that, then "
                          "resume the run: it only writes the report again") from None
    extra = ctx.store.runs.get(ctx.run_id).extra
    ctx.store.runs.set_extra(ctx.run_id, {**extra, "report_path": str(report_path), "sources_path": str(sources_path)})
    pages = state.get("pages", {}).values()
    result = {"report_path": str(report_path), "sources_path": str(sources_path),
              "citations_verified": verified, "citations_total": len(checks),
              "pages_read": sum(1 for p in pages if p.get("ok")),
              "pages_skipped": sum(1 for p in pages if not p.get("ok")),
              "warnings": state.get("warnings", [])}
    emit("done", report=report, **result)
    return {"report_path": str(report_path), "sources_path": str(sources_path), "result": result,
            "messages": [AIMessage(report, name="research")]}


def sources_section(state: ResearchState) -> str:
    lines = ["## Sources", ""]
    for number, key in enumerate(state.get("cited", []), start=1):
        page = state["pages"][key]
        date = f" ({page['date']})" if page.get("date") else ""
        lines.append(f"[{number}] {page.get('title') or key}. <{page['url']}>{date}")
    return "\n".join(lines)


def citation_section(checks: list[CitationCheck]) -> str:
    failed = [c for c in checks if not c["verified"]]
    if not failed:
        return ""
    lines = ["## Citation check", "", "These citations were removed because their source does not support them:", ""]
    lines += [f"- [{c['number']}] \"{c['sentence']}\": {c['reason']}" for c in failed]
    return "\n".join(lines)


def sources_document(state: ResearchState, run_id: str, pages: PageStore) -> dict:
    """Every source the report cites, and every page that was selected but could not be read."""
    sources = state.get("sources", {})
    cited = []
    for number, key in enumerate(state.get("cited", []), start=1):
        page, source = state["pages"][key], sources.get(key, {})
        stored = pages.get(run_id, page["url"])
        cited.append({"number": number, "url": page["url"], "title": page.get("title"), "author": page.get("author"),
                      "date": page.get("date"), "final_url": stored.final_url if stored else None,
                      "found_by": source.get("providers", []), "tier": source.get("tier"),
                      "score": source.get("score"), "chunks": page.get("chunks", 0)})
    skipped = [{"url": p["url"], "reason": p.get("reason")} for p in state.get("pages", {}).values() if not p.get("ok")]
    return {"question": question_of(state), "run_id": run_id, "sources": cited, "skipped": skipped,
            "citations": state.get("citations", []), "warnings": state.get("warnings", [])}

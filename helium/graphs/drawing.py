"""Draw a flow's graph offline: ASCII (grandalf), Mermaid source, or PNG through Graphviz's `dot`.

Nothing here calls an online renderer (LangGraph's `draw_mermaid_png()` would).
"""

from __future__ import annotations

import shutil
import subprocess
from typing import Literal

from langgraph.graph.state import CompiledStateGraph

from helium.errors import HeliumError

GraphFormat = Literal["ascii", "mermaid", "dot", "png"]


def to_dot(graph: CompiledStateGraph) -> str:
    """Graphviz source: conditional edges dashed, start and end drawn as small circles."""
    drawable = graph.get_graph()
    lines = [f'digraph "{graph.name}" {{', '  rankdir=TB; node [shape=box, style="rounded,filled", '
             'fillcolor="#eef2ff", fontname="Helvetica"];']
    for node_id in drawable.nodes:
        if node_id in ("__start__", "__end__"):
            label = "start" if node_id == "__start__" else "end"
            lines.append(f'  "{node_id}" [label="{label}", shape=circle, fillcolor="#d1d5db", fontsize=10];')
        else:
            lines.append(f'  "{node_id}";')
    for edge in drawable.edges:
        style = ' [style=dashed]' if edge.conditional else ""
        lines.append(f'  "{edge.source}" -> "{edge.target}"{style};')
    lines.append("}")
    return "\n".join(lines)


def render(graph: CompiledStateGraph, fmt: GraphFormat) -> str | bytes:
    if fmt == "ascii":
        return graph.get_graph().draw_ascii()
    if fmt == "mermaid":
        return graph.get_graph().draw_mermaid()
    source = to_dot(graph)
    if fmt == "dot":
        return source
    dot = shutil.which("dot")
    if dot is None:
        raise HeliumError("PNG needs Graphviz's `dot`: install it (apt-get install graphviz), "
                          "or use --format ascii / mermaid / dot")
    result = subprocess.run([dot, "-Tpng"], input=source.encode(), capture_output=True, check=False)
    if result.returncode != 0:
        raise HeliumError(f"dot failed: {result.stderr.decode(errors='replace').strip()}")
    return result.stdout

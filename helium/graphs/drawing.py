"""Draw a flow's graph offline: ASCII (grandalf), Mermaid source, or PNG through Graphviz's `dot`.

Nothing here calls an online renderer (LangGraph's `draw_mermaid_png()` would).
"""

from __future__ import annotations

import shutil
import subprocess
from typing import Literal

from langgraph.graph.state import CompiledStateGraph

from helium.errors import HeliumError

GraphFormat = Literal["ascii", "mermaid", "dot", "png", "svg"]


def to_dot(graph: CompiledStateGraph, highlight: tuple[str, ...] = ()) -> str:
    """Graphviz source: conditional edges dashed, start and end drawn as small circles, the
    `highlight` nodes (where a run is) filled amber with a thick border."""
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
    lines += [f'  "{node_id}" [fillcolor="#fbbf24", penwidth=3];' for node_id in highlight]
    lines.append("}")
    return "\n".join(lines)


def render(graph: CompiledStateGraph, fmt: GraphFormat, highlight: tuple[str, ...] = ()) -> str | bytes:
    """The drawing in `fmt`; PNG and SVG come from Graphviz's `dot`, the rest needs no program."""
    if fmt == "ascii":
        return graph.get_graph().draw_ascii()
    if fmt == "mermaid":
        return graph.get_graph().draw_mermaid()
    source = to_dot(graph, highlight)
    if fmt == "dot":
        return source
    dot = shutil.which("dot")
    if dot is None:
        raise HeliumError(f"{fmt.upper()} needs Graphviz's `dot`: install it (apt-get install graphviz), "
                          "or use --format ascii / mermaid / dot")
    result = subprocess.run([dot, f"-T{fmt}"], input=source.encode(), capture_output=True, check=False)
    if result.returncode != 0:
        raise HeliumError(f"dot failed: {result.stderr.decode(errors='replace').strip()}")
    return result.stdout

"""The import structure: layers import downward only, and no module imports itself round a circle.

Every import counts, those inside functions too; only ``if TYPE_CHECKING:`` blocks are left out,
since they never run. The layers, bottom first: ``docgraph.errors``, ``docgraph.records`` and
``docgraph.process_folders``, then ``models``, ``ingest``, ``app`` and ``ui``.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "docgraph"
LAYERS = (
    "docgraph.errors",
    "docgraph.records",
    "docgraph.process_folders",
    "docgraph.models",
    "docgraph.ingest",
    "docgraph.app",
    "docgraph.ui",
)


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def python_files() -> Iterator[Path]:
    yield from PACKAGE.glob("*.py")
    for link in ("app", "ingest", "models", "ui"):
        yield from (PACKAGE / link).rglob("*.py")


def run_time_imports(tree: ast.Module) -> Iterator[str]:
    """Every module named by an import that can run (``TYPE_CHECKING`` blocks left out)."""
    type_only = {
        id(node)
        for block in ast.walk(tree)
        if isinstance(block, ast.If) and "TYPE_CHECKING" in ast.unparse(block.test)
        for node in ast.walk(block)
    }
    for node in ast.walk(tree):
        if id(node) in type_only:
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)


def import_graph() -> dict[str, set[str]]:
    sources = {module_name(path): ast.parse(path.read_text(encoding="utf-8")) for path in python_files()}
    return {
        name: {dep for dep in run_time_imports(tree) if dep in sources and dep != name}
        for name, tree in sources.items()
    }


def layer_of(module: str) -> int:
    if module == "docgraph":  # the public API, loaded lazily from the layers below
        return len(LAYERS)
    return next(index for index, layer in enumerate(LAYERS) if module == layer or module.startswith(layer + "."))


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for dep in sorted(graph[node]):
            if dep not in index:
                visit(dep)
                low[node] = min(low[node], low[dep])
            elif dep in stack:
                low[node] = min(low[node], index[dep])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_code_is_imported_under_one_root() -> None:
    graph = import_graph()
    assert len(graph) > 150
    bare = sorted(
        f"{module} imports {dep}"
        for module, tree in ((module_name(p), ast.parse(p.read_text(encoding="utf-8"))) for p in python_files())
        for dep in run_time_imports(tree)
        if dep.split(".")[0] in ("app", "ingest", "models", "ui")
    )
    assert bare == []


def test_layers_import_downward_only() -> None:
    upward = sorted(
        f"{module} -> {dep}"
        for module, deps in import_graph().items()
        for dep in deps
        if layer_of(dep) > layer_of(module)
    )
    assert upward == []


def test_no_module_imports_itself_round_a_circle() -> None:
    assert circles(import_graph()) == []


def test_no_two_stages_of_ingest_import_each_other() -> None:
    def stage(module: str) -> str:
        return ".".join(module.split(".")[:3])

    edges = {
        (stage(module), stage(dep))
        for module, deps in import_graph().items()
        for dep in deps
        if module.startswith("docgraph.ingest.") and dep.startswith("docgraph.ingest.") and stage(module) != stage(dep)
    }
    assert sorted((a, b) for a, b in edges if (b, a) in edges) == []


def test_the_circle_finder_finds_a_circle() -> None:
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]

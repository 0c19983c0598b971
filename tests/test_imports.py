"""The house as drawn from its imports: the modules of games/models/ form a ladder, the one
docs/architecture.md writes down, each importing only modules below it, none inside a
function."""

import ast
import graphlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "games" / "models"
PACKAGE = "games.models"


def _modules() -> dict[str, ast.Module]:
    return {
        path.stem: ast.parse(path.read_text(), str(path))
        for path in sorted(MODELS.glob("*.py"))
        if path.stem != "__init__"
    }


def _is_type_checking(node: ast.stmt) -> bool:
    return isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"


def _to(node: ast.ImportFrom | ast.Import) -> list[str]:
    """The modules of the package an import names ("__init__" for the package itself)."""
    names = (
        [node.module or ""]
        if isinstance(node, ast.ImportFrom)
        else [alias.name for alias in node.names]
    )
    found = []
    for name in names:
        if name == PACKAGE:
            found.append("__init__")
        elif name.startswith(PACKAGE + "."):
            found.append(name.removeprefix(PACKAGE + ".").split(".")[0])
    return found


def _arrows(tree: ast.Module) -> tuple[set[str], set[str]]:
    """(the modules of the package it imports when it runs, wherever the import stands, a
    function included; those it names for its types alone, under `if TYPE_CHECKING:`)."""
    typing_only = [node for node in tree.body if _is_type_checking(node)]
    typing = {
        to
        for block in typing_only
        for node in ast.walk(block)
        if isinstance(node, ast.Import | ast.ImportFrom)
        for to in _to(node)
    }
    hidden = {id(node) for block in typing_only for node in ast.walk(block)}
    run = {
        to
        for node in ast.walk(tree)
        if isinstance(node, ast.Import | ast.ImportFrom) and id(node) not in hidden
        for to in _to(node)
    }
    return run, typing


def _ladder() -> list[str]:
    """The ladder as docs/architecture.md writes it, from the bottom up."""
    text = (ROOT / "docs" / "architecture.md").read_text()
    found = re.search(r"^models ladder, from the bottom: (.+)$", text, re.MULTILINE)
    assert found, "docs/architecture.md says the ladder of games/models/"
    return [name.strip() for name in found.group(1).split("→")]


def test_no_module_of_the_models_imports_inside_a_function_or_a_class():
    inside = []
    for name, tree in _modules().items():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                inside += [
                    f"{name}.py:{inner.lineno}"
                    for inner in ast.walk(node)
                    if isinstance(inner, ast.Import | ast.ImportFrom)
                ]
    assert inside == []


def test_the_models_import_each_other_in_no_circle():
    graph = {name: _arrows(tree)[0] for name, tree in _modules().items()}
    assert all("__init__" not in arrows for arrows in graph.values())  # none goes round by it
    order = list(graphlib.TopologicalSorter(graph).static_order())  # CycleError for a circle
    assert set(order) == set(graph)


def test_every_import_of_the_models_points_down_the_ladder_the_docs_write():
    modules = _modules()
    ladder = _ladder()
    assert sorted(ladder) == sorted(modules)
    up = [
        f"{name} → {to}"
        for name, tree in modules.items()
        for to in sorted(_arrows(tree)[0])
        if ladder.index(to) >= ladder.index(name)
    ]
    assert up == []


def test_no_module_of_the_models_names_one_above_it_even_for_its_types():
    """Not even for its annotations alone (under `if TYPE_CHECKING:`, which never runs): a
    write that takes the models of two modules is a function of the higher one, or of one
    above both (a member's player: `players`; a payment's players and night: `paying`)."""
    modules = _modules()
    ladder = _ladder() + ["__init__"]  # the package itself sits above every module of it
    up = sorted(
        f"{name} → {to}"
        for name, tree in modules.items()
        for to in _arrows(tree)[1]
        if ladder.index(to) >= ladder.index(name)
    )
    assert up == []

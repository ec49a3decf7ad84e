"""The shape the code keeps: every import statement (module level, inside functions, under TYPE_CHECKING,
relative ones resolved) points to the same or an earlier stage, no two modules import each other even
indirectly, kernel estimators know nothing of engines, and engine knowledge stays in its engine's folder.
docs/ARCHITECTURE.md describes exactly what this file enforces."""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

DOCTOR = Path(__file__).resolve().parent.parent / "doctor"

# The stages, first to last; a module belongs to the stage of its longest matching prefix and may import only
# modules of its own stage or an earlier one.
STAGES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("foundation", ("doctor", "doctor.errors", "doctor.output", "doctor.cache", "doctor.specifiers",
                    "doctor.launch", "doctor.topology", "doctor.validation", "doctor.validation.reader",
                    "doctor.data_tables", "doctor.raise_site_table")),
    ("facts", ("doctor.pipeline.facts", "doctor.validation.facts", "doctor.validation.model", "doctor.hardware",
               "doctor.versions", "doctor.unified_memory", "doctor.jit_memory")),
    ("binaries", ("doctor.binaries", "doctor.buildargs", "doctor.wheel_archs")),
    ("kernels", ("doctor.kernels",)),
    ("probe", ("doctor.probe",)),
    ("plan", ("doctor.plan", "doctor.cluster.nodes", "doctor.cluster.layouts", "doctor.cluster.plan")),
    ("findings", ("doctor.findings", "doctor.fix.patches", "doctor.fix.journal", "doctor.engines.pysource",
                  "doctor.engines.derived_tables", "doctor.engines.pins", "doctor.engines.pin_check",
                  "doctor.engines.model_support",
                  "doctor.engines.parsers", "doctor.engines.quant_support")),
    ("logs", ("doctor.diagnose.logfacts", "doctor.diagnose.formats.base", "doctor.diagnose.stream",
              "doctor.diagnose.markdown", "doctor.diagnose.gpus")),
    ("engines", ("doctor.engines", "doctor.cluster.node_commands")),
    ("gather", ("doctor.pipeline.gather",)),
    ("analysis", ("doctor.pipeline.analysis",)),
    ("context", ("doctor.pipeline.context",)),
    ("rules", ("doctor.pipeline.conditions", "doctor.pipeline.unconfirmed", "doctor.pipeline.rules")),
    ("report", ("doctor.pipeline.report", "doctor.pipeline.upgrades", "doctor.located")),
    ("check", ("doctor.pipeline.check", "doctor.pipeline")),
    ("diagnose", ("doctor.diagnose",)),
    ("outputs", ("doctor.formats", "doctor.fix", "doctor.lint", "doctor.rule_docs", "doctor.baseline",
                 "doctor.config", "doctor.gate")),
    ("cluster", ("doctor.cluster",)),
    ("commands", ("doctor.commands", "doctor.cli", "doctor.__main__")),
)
RANK = {name: rank for rank, (name, _) in enumerate(STAGES)}


def module_of(root: Path, path: Path) -> str:
    return ".".join(path.relative_to(root.parent).with_suffix("").parts).removesuffix(".__init__")


@functools.cache
def imported(root: Path, path: Path) -> frozenset[str]:
    """Every name a file imports, at any depth (function-local and TYPE_CHECKING imports included), made
    absolute: `from a.b import c` names both `a.b` (its __init__ runs) and `a.b.c`."""
    module = module_of(root, path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return frozenset(found)


def import_graph(root: Path) -> dict[str, set[str]]:
    """Module → the package modules it imports (a name resolves to the longest module it starts with)."""
    files = {module_of(root, p): p for p in root.rglob("*.py")}
    graph: dict[str, set[str]] = {}
    for module, path in files.items():
        targets = set()
        for name in imported(root, path):
            while name and name not in files:
                name = name.rpartition(".")[0]
            if name and name != module:
                targets.add(name)
        graph[module] = targets
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for start in graph:
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                group = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    group.append(member)
                    if member == node:
                        break
                if len(group) > 1:
                    found.append(sorted(group))
    return found


def stage_of(module: str) -> str | None:
    best: tuple[int, str] | None = None
    for name, prefixes in STAGES:
        for prefix in prefixes:
            inside = module.startswith(prefix + ".") and prefix != "doctor"  # the bare package is its __init__ only
            if (module == prefix or inside) and (best is None or len(prefix) > best[0]):
                best = (len(prefix), name)
    return best[1] if best else None


def upward(graph: dict[str, set[str]]) -> list[str]:
    return sorted(f"{m} ({stage_of(m)}) -> {t} ({stage_of(t)})" for m, targets in graph.items() for t in targets
                  if RANK[stage_of(t)] > RANK[stage_of(m)])  # type: ignore[index]


def test_no_import_circles():
    assert circles(import_graph(DOCTOR)) == []


def test_no_library_module_imports_the_cli_layer():
    """Implied by the stage order (commands come last), kept as its own check: the message names the module."""
    cli = ("doctor.cli", "doctor.commands", "doctor.__main__")
    offenders = {m: sorted(t for t in targets if t.startswith(cli)) for m, targets in import_graph(DOCTOR).items()
                 if not m.startswith(cli)}
    assert {m: t for m, t in offenders.items() if t} == {}


def test_every_module_has_a_stage():
    assert [m for m in import_graph(DOCTOR) if stage_of(m) is None] == []


def test_no_import_reaches_a_later_stage():
    assert upward(import_graph(DOCTOR)) == []


def test_the_runtime_package_never_imports_the_generators_in_tools():
    offenders = {module_of(DOCTOR, p): sorted(n for n in imported(DOCTOR, p) if n.split(".")[0] == "tools")
                 for p in DOCTOR.rglob("*.py")}
    assert {m: names for m, names in offenders.items() if names} == {}


def test_the_architecture_page_has_the_same_stages():
    """docs/ARCHITECTURE.md's stage table: the stages of STAGES in order, each row naming its modules."""
    page = (DOCTOR.parent / "docs" / "ARCHITECTURE.md").read_text(encoding="utf-8")
    rows = [line.split("|")[1:3] for line in page.split("## The pipeline")[1].split("\n## ")[0].splitlines()
            if line.startswith("| ") and not line.startswith("| stage")]
    assert [name.strip() for name, _ in rows] == [name for name, _ in STAGES]
    for (_, modules), (_, prefixes) in zip(rows, STAGES, strict=True):
        for prefix in prefixes:
            path = prefix.removeprefix("doctor").removeprefix(".").replace(".", "/") or "__init__"
            assert any(f"{path}{end}`" in modules for end in (".py", "/", "/__init__.py")), prefix


def test_the_walker_sees_circles_and_upward_imports(tmp_path):
    root = tmp_path / "doctor"
    (root / "kernels").mkdir(parents=True)
    (root / "engines").mkdir()
    (root / "__init__.py").write_text("")
    (root / "kernels" / "__init__.py").write_text("")
    (root / "engines" / "__init__.py").write_text("")
    (root / "kernels" / "bad.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from ..engines.base import Engine\n"
        "def f():\n    from doctor.commands.options import console\n")
    (root / "engines" / "base.py").write_text("def g():\n    import doctor.kernels.bad\n")
    graph = import_graph(root)
    assert "doctor.engines.base" in graph["doctor.kernels.bad"]
    assert "doctor.commands.options" in imported(root, root / "kernels" / "bad.py")
    assert circles(graph) == [["doctor.engines.base", "doctor.kernels.bad"]]
    assert "doctor.kernels.bad (kernels) -> doctor.engines.base (engines)" in upward(graph)


def test_kernel_estimators_know_nothing_of_engines_or_the_cli():
    for path in (DOCTOR / "kernels").glob("*.py"):
        engine_imports = [i for i in imported(DOCTOR, path) if i.startswith(("doctor.engines", "doctor.commands",
                                                                             "doctor.cli"))]
        assert not engine_imports, (path.name, engine_imports)


def test_engine_knowledge_stays_in_its_folder():
    """Outside engines/sglang/ at most a dozen modules name SGLang (rules and data are not modules)."""
    naming = sorted(module_of(DOCTOR, p) for p in DOCTOR.rglob("*.py")
                    if not module_of(DOCTOR, p).startswith("doctor.engines.sglang")
                    and re.search(r"sglang", p.read_text(encoding="utf-8"), re.IGNORECASE))
    assert len(naming) <= 12, naming


def test_no_module_grows_past_400_lines_without_a_reason():
    long = {module_of(DOCTOR, p): n for p in DOCTOR.rglob("*.py") if (n := len(p.read_text().splitlines())) > 400}
    assert long == {}


BUILTIN_ENGINES = ("sglang", "vllm", "tensorrt_llm", "llama_cpp")
INTERFACE = "doctor.engines.spi"


def _allowed(name: str, toolkit: tuple[str, ...], own: str) -> bool:
    return any(name == ok or name.startswith(ok + ".") for ok in (INTERFACE, *toolkit, own))


def outside_interface(root: Path, engine: str, toolkit: tuple[str, ...]) -> list[str]:
    """Every `doctor` import (module level, in functions, under TYPE_CHECKING, relative ones resolved) in the
    engine's folder that is neither the plug-in interface, a toolkit library nor the engine's own package."""
    own = f"doctor.engines.{engine}"
    found = []
    for path in sorted((root / "engines" / engine).rglob("*.py")):
        module = module_of(root, path)
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [(alias.name, alias.name) for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
                names = [(base, f"{base}.{alias.name}") for alias in node.names]  # `from doctor import kernels`
            else:
                continue
            found += [f"{module}: {name}" for base, name in names if base.split(".")[0] == "doctor"
                      and not (_allowed(base, toolkit, own) or _allowed(name, toolkit, own))]
    return found


def test_builtin_engines_import_only_the_plugin_interface_the_toolkit_and_their_own_package():
    """Issue 28: the built-in engines use the plug-in interface and nothing more (docs/PLUGINS.md, section 8)."""
    from doctor.engines.spi import TOOLKIT

    assert {engine: outside_interface(DOCTOR, engine, TOOLKIT) for engine in BUILTIN_ENGINES} == {
        engine: [] for engine in BUILTIN_ENGINES}


def test_the_toolkit_knows_nothing_of_engines():
    """What `spi.TOOLKIT` names imports, however indirectly, only modules of stages before the engines'."""
    from doctor.engines.spi import TOOLKIT

    graph = import_graph(DOCTOR)
    for library in TOOLKIT:
        reached = {m for m in graph if m == library or m.startswith(library + ".")}
        assert reached, library
        todo = list(reached)
        while todo:
            for target in graph[todo.pop()] - reached:
                reached.add(target)
                todo.append(target)
        late = sorted(m for m in reached if RANK[stage_of(m)] >= RANK["engines"])  # type: ignore[index]
        assert late == [], (library, late)


def test_the_interface_walker_sees_every_kind_of_import(tmp_path):
    root = tmp_path / "doctor"
    (root / "engines" / "toy").mkdir(parents=True)
    (root / "engines" / "toy" / "engine.py").write_text(
        "from typing import TYPE_CHECKING\nfrom doctor.engines.spi import Engine\nfrom doctor.kernels import tiles\n"
        "from . import memory\nfrom doctor import kernels\nif TYPE_CHECKING:\n    from doctor.findings import Action\n"
        "def f():\n    from ..other import engine\n    import doctor.launch\n    from doctor.engines import spi\n")
    assert outside_interface(root, "toy", ("doctor.kernels",)) == [
        "doctor.engines.toy.engine: doctor.findings.Action", "doctor.engines.toy.engine: doctor.engines.other.engine",
        "doctor.engines.toy.engine: doctor.launch"]

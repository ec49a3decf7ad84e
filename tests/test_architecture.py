"""The shape the code keeps: data flows one way, library packages never reach up into the CLI layer,
kernel estimators know nothing of engines, and engine knowledge stays in its engine's folder."""

from __future__ import annotations

import ast
import re
from pathlib import Path

DOCTOR = Path(__file__).resolve().parent.parent / "doctor"
CLI_LAYER = ("doctor.cli", "doctor.commands")


def _module(path: Path) -> str:
    return ".".join(path.relative_to(DOCTOR.parent).with_suffix("").parts).removesuffix(".__init__")


def _imports(path: Path) -> set[str]:
    """Every module a file imports, at any depth (function-local imports included), made absolute."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = _module(path) if path.name == "__init__.py" else _module(path).rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            found.add(base)
            found.update(f"{base}.{alias.name}" for alias in node.names)
    return found


def _library_modules() -> list[Path]:
    return [p for p in DOCTOR.rglob("*.py")
            if not _module(p).startswith(CLI_LAYER) and _module(p) != "doctor.__main__"]


def test_no_library_module_imports_the_cli_layer():
    offenders = {_module(p): sorted(i for i in _imports(p) if i.startswith(CLI_LAYER)) for p in _library_modules()}
    assert {m: i for m, i in offenders.items() if i} == {}


def test_the_walker_sees_a_violation(tmp_path):
    bad = tmp_path / "doctor" / "kernels" / "bad.py"
    bad.parent.mkdir(parents=True)
    bad.write_text("def f():\n    from doctor.commands.options import console\n    from ..cli import main\n")
    global DOCTOR
    saved, DOCTOR = DOCTOR, tmp_path / "doctor"
    try:
        assert {"doctor.commands.options", "doctor.cli", "doctor.cli.main"} <= _imports(bad)
    finally:
        DOCTOR = saved


def test_kernel_estimators_know_nothing_of_engines_or_the_cli():
    for path in (DOCTOR / "kernels").glob("*.py"):
        engine_imports = [i for i in _imports(path) if i.startswith(("doctor.engines", *CLI_LAYER))]
        assert not engine_imports, (path.name, engine_imports)


def test_engine_knowledge_stays_in_its_folder():
    """Outside engines/sglang/ at most a dozen modules name SGLang (rules and data are not modules)."""
    naming = sorted(_module(p) for p in DOCTOR.rglob("*.py")
                    if not _module(p).startswith("doctor.engines.sglang")
                    and re.search(r"sglang", p.read_text(encoding="utf-8"), re.IGNORECASE))
    assert len(naming) <= 12, naming


def test_no_module_grows_past_400_lines_without_a_reason():
    long = {_module(p): n for p in DOCTOR.rglob("*.py") if (n := len(p.read_text().splitlines())) > 400}
    assert long == {}

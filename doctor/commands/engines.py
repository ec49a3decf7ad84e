"""`sm120-doctor engines`: every engine the doctor knows (built-in or plug-in), the releases its knowledge
covers, where that knowledge ends, and which are installed here."""

from __future__ import annotations

import argparse
from typing import Any

from doctor.commands.options import add_format_option, console, environment


def register(p: argparse.ArgumentParser) -> None:
    add_format_option(p)
    p.add_argument("--tables", action="store_true",
                   help="text output: only the wheel-derived data tables and the newest release each covers")


def rows() -> list[dict[str, Any]]:
    from doctor.engines import registry
    from doctor.engines.run import parse_version
    from doctor.probe.libraries import probe_libraries

    installed = probe_libraries(environment(), registry.engine_distributions())
    out = []
    for engine in registry.engines().values():
        known = engine.knowledge_range()
        library = installed.get(engine.package)
        version = parse_version(library.version) if library else None
        out.append({
            "name": engine.name, "display_name": engine.display_name, "package": engine.package,
            "plugin": type(engine).__module__.split(".")[0] != "doctor",
            "first_known": known[0] if known else None, "newest_known": known[1] if known else None,
            "every_release": engine.releases_complete, "installed": library.version if library else None,
            "knowledge_note": engine.knowledge_note(version) if version else None,
        })
    return out


def run(args: argparse.Namespace) -> int:
    from doctor.data_tables import coverage, derived_coverage

    if args.format == "json":  # one document: the engines and the tables (--tables changes the text output only)
        from doctor.formats.document import document, dumps

        print(dumps(document(engines=rows(), tables=coverage(), derived_tables=derived_coverage())))
        return 0
    if args.tables:
        return _print_tables(coverage(), derived_coverage())
    data = rows()
    from rich.table import Table

    table = Table(title="Engines (check analyses each one installed, or the one you name with --engine)",
                  title_justify="left")
    for column in ("engine", "package", "knowledge", "installed", "note"):
        table.add_column(column)
    for r in data:
        span = f"{r['first_known']} .. {r['newest_known']}" if r["newest_known"] else "no per-version knowledge"
        if r["newest_known"]:
            span += " (every release)" if r["every_release"] else " (the releases it has facts for)"
        table.add_row(r["display_name"] + (" (plug-in)" if r["plugin"] else ""), r["package"], span,
                      r["installed"] or "-", r["knowledge_note"] or "")
    console(width=160).print(table)
    return _print_tables(coverage(), derived_coverage())


def _print_tables(tables: list[dict[str, Any]], derived: list[dict[str, Any]]) -> int:
    from rich.table import Table

    table = Table(title="Wheel-derived tables (`tools/refresh` adds every newer PyPI release)", title_justify="left")
    for column in ("table", "file", "releases", "newest release covered"):
        table.add_column(column)
    for r in tables:
        table.add_row(r["table"], r["file"], str(r["releases"]), r["newest"] or "-")
    console(width=160).print(table)
    dispatch = Table(title="Derived dispatch tables (`python -m tools.engine_oracle ENGINE RELEASE`; check's derived "
                           "findings read exactly these releases)", title_justify="left")
    for column in ("engine", "file", "releases tabulated", "newest"):
        dispatch.add_column(column)
    for r in derived:
        dispatch.add_row(r["engine"], r["file"], ", ".join(r["releases"]), r["newest"] or "-")
    console(width=160).print(dispatch)
    return 0

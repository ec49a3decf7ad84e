"""`sm120-doctor engines`: every engine the doctor knows (built-in or plug-in), the releases its knowledge
covers, where that knowledge ends, and which are installed here."""

from __future__ import annotations

import argparse
from typing import Any

from doctor.commands.options import add_format_option, console, environment


def register(p: argparse.ArgumentParser) -> None:
    add_format_option(p)


def rows() -> list[dict[str, Any]]:
    from doctor.engines import registry
    from doctor.engines.base import parse_version
    from doctor.engines.versions import engine_distributions
    from doctor.probe.libraries import probe_libraries

    installed = probe_libraries(environment(), engine_distributions())
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
    from rich.table import Table

    data = rows()
    if args.format == "json":
        from doctor.formats.document import document, dumps

        print(dumps(document(engines=data)))
        return 0
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
    return 0

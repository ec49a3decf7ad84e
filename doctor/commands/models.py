"""`sm120-doctor models`: the model configs bundled with the doctor."""

from __future__ import annotations

import argparse

from doctor.commands.options import add_format_option, console


def register(p: argparse.ArgumentParser) -> None:
    add_format_option(p)


def run(args: argparse.Namespace) -> int:
    from rich.table import Table

    from doctor.probe.model import bundled_models

    index = bundled_models()
    if args.format == "json":
        from doctor.formats.document import document, dumps

        print(dumps(document(models=index)))
        return 0
    table = Table(title="Model configs bundled with the doctor (used when the hub is unreachable)",
                  title_justify="left")
    table.add_column("model id")
    table.add_column("provenance")
    for model_id, entry in sorted(index.items()):
        table.add_row(model_id, entry["provenance"])
    console().print(table)
    return 0

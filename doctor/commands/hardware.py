"""`sm120-doctor hardware`: the built-in hardware profiles."""

from __future__ import annotations

import argparse

from doctor.commands.options import add_format_option, console


def register(p: argparse.ArgumentParser) -> None:
    add_format_option(p)


def run(args: argparse.Namespace) -> int:
    from rich.table import Table

    from doctor.hardware import load_profile, profile_names

    rows = []
    for name in profile_names():
        facts = load_profile(name)
        gpu = facts.gpus[0]
        rows.append({"name": name, "gpus": len(facts.gpus), "gpu": gpu.name, "capability": gpu.compute_capability,
                     "memory_bytes": gpu.memory_total_bytes, "smem_per_block_optin": gpu.smem_per_block_optin,
                     "links": sorted({link.kind for link in facts.topology}), "notes": list(facts.source.notes)})
    if args.format == "json":
        from doctor.formats.document import document, dumps

        print(dumps(document(profiles=rows)))
        return 0
    table = Table(title="Built-in hardware profiles (use with --hardware NAME)", title_justify="left")
    for column in ("name", "GPUs", "GPU", "CC", "memory", "smem/block", "links"):
        table.add_column(column)
    for r in rows:
        memory = f"{r['memory_bytes'] / (1 << 30):.0f} GiB" if r["memory_bytes"] else "n/a"
        table.add_row(r["name"], str(r["gpus"]), r["gpu"], r["capability"], memory,
                      str(r["smem_per_block_optin"]), " ".join(r["links"]) or "-")
    console().print(table)
    console().print("N cards of a one-GPU profile in one machine: `--hardware PROFILE-xN` (e.g. rtx-5090-x8; the "
                    "links between them are then not stated). Several DGX Sparks: `--hardware dgx-spark --nodes N`.")
    return 0

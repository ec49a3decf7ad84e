"""`binaries` subcommand: audit the compiled archs of installed CUDA binaries against a target GPU.

Exit codes: 0 everything can run (natively or through PTX JIT) or nothing to check; 1 some file has
nothing the GPU can run (deliberate builds for other GPUs, such as FA3's sm_90a, excepted);
2 bad usage (unparseable --arch, missing path).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TextIO

from doctor.binaries.archs import capability_name, parse_capability
from doctor.binaries.payload import missing_codecs
from doctor.binaries.scan import FileEntry, ScanReport, scan_environment
from doctor.binaries.verdict import NATIVE, NONE, PTX_JIT

EXIT_OK, EXIT_NO_IMAGE, EXIT_USAGE = 0, 1, 2
MAX_LISTED = 20


def register(parser: argparse.ArgumentParser) -> None:
    parser.description = ("Read the fatbins of installed CUDA libraries (no cuobjdump, nothing loaded) and say "
                          "whether each runs natively, through PTX JIT, or not at all on the target GPU.")
    parser.add_argument("paths", nargs="*", type=Path, metavar="PATH",
                        help="files or directories to scan (default: this interpreter's site-packages)")
    parser.add_argument("--arch", default="sm120",
                        help="target GPU: sm120, sm121, sm_120, 12.0 ... (default: sm120)")
    parser.add_argument("--format", choices=("text", "json"), default="text")
    parser.add_argument("--packages", nargs="+", default=None, metavar="NAME",
                        help="only these distributions or top-level packages (comma or space separated)")
    parser.add_argument("--all-files", action="store_true", help="text output: list every CUDA file")


def run(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    try:
        capability = parse_capability(args.arch)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    missing = [str(p) for p in args.paths if not p.exists() and not p.is_symlink()]
    if missing:
        print(f"error: no such file or directory: {', '.join(missing)}", file=sys.stderr)
        return EXIT_USAGE
    packages = _split(args.packages)
    report = scan_environment(list(args.paths) or None, packages, capability)
    if args.format == "json":
        from doctor.formats.document import document

        json.dump(document(**report.to_dict()), out, indent=2)
        out.write("\n")
    else:
        write_text(report, out, all_files=getattr(args, "all_files", False))
    return EXIT_NO_IMAGE if report.failures else EXIT_OK


def _split(values: list[str] | None) -> list[str] | None:
    if not values:
        return None
    return [v for value in values for v in value.split(",") if v.strip()]


def write_text(report: ScanReport, out: TextIO, all_files: bool = False) -> None:
    target = capability_name(report.capability)
    groups = report.packages
    gb = report.bytes_scanned / 1e9
    out.write(f"Compiled-arch audit for {target} ({report.capability[0]}.{report.capability[1]}): "
              f"{len(report.files)} CUDA files in {len(groups)} packages "
              f"({gb:.2f} GB read in {report.elapsed_s:.2f} s)\n")
    if not report.files:
        out.write("  nothing to check: no CUDA binaries found\n")
        _skipped(out, report)
        return
    for group in groups:
        data = group.to_dict()
        archs = " ".join([*data["sass"], *data["ptx"], *data["lto"]])
        version = f" {group.version}" if group.version else ""
        out.write(f"  {group.verdict:8} {group.name}{version}: {data['files']} files, "
                  f"{group.size / 1e6:.0f} MB; {archs}\n")
    _section(out, "No image for this GPU", report.failures)
    _section(out, "PTX JIT at first launch", [f for f in report.files if f.verdict.verdict == PTX_JIT])
    deliberate = [f for f in report.files if f.deliberate_none]
    if deliberate:
        names = ", ".join(Path(f.path).name for f in deliberate[:MAX_LISTED])
        out.write(f"Built only for other GPUs on purpose (engines skip these on {target}): {names}"
                  f"{' ...' if len(deliberate) > MAX_LISTED else ''}\n")
    errors = [f for f in report.files if f.info.error]
    _section(out, "Unreadable", errors, show_reason=False)
    _families(out, report.files, target)
    unread = sum(f.info.unread_entries for f in report.files)
    if unread and missing_codecs():
        out.write(f"Note: {unread} compressed images were not decoded ({' and '.join(missing_codecs())} not "
                  f"installed: pip install 'sm120-doctor[binaries]'); their archs are counted, their kernels "
                  f"are missing from the family verdicts\n")
    _skipped(out, report)
    if all_files:
        _section(out, "All CUDA files", report.files, limit=None)


def _skipped(out: TextIO, report: ScanReport) -> None:
    if not report.skipped:
        return
    out.write("Skipped, not opened:\n")
    for path, why in report.skipped[:MAX_LISTED]:
        out.write(f"  - {path}: {why}\n")
    if len(report.skipped) > MAX_LISTED:
        out.write(f"  ... and {len(report.skipped) - MAX_LISTED} more (use --format json for all)\n")


def _families(out: TextIO, files: list[FileEntry], target: str) -> None:
    """One line per file that holds known kernel families: each family's verdict for the target."""
    with_families = [f for f in files if f.verdict.families]
    if not with_families:
        return
    out.write(f"Kernel families on {target} (kernels with a usable image / kernels):\n")
    for entry in with_families:
        parts = []
        for family in entry.verdict.families:
            usable = family.native if family.verdict == NATIVE else family.jit
            detail = "on purpose" if family.deliberate else f"{usable}/{family.kernels}"
            parts.append(f"{family.family} {family.verdict} ({detail})")
        out.write(f"  - {entry.path}\n      {', '.join(parts)}\n")


def _section(out: TextIO, title: str, entries: list[FileEntry], show_reason: bool = True,
             limit: int | None = MAX_LISTED) -> None:
    if not entries:
        return
    out.write(f"{title}:\n")
    for entry in entries[:limit]:
        line = entry.verdict.reason if show_reason else entry.info.error
        marker = "!" if entry.verdict.verdict == NONE else "-"
        out.write(f"  {marker} {entry.path}\n      {line}\n")
    if limit is not None and len(entries) > limit:
        out.write(f"  ... and {len(entries) - limit} more (use --format json for all)\n")

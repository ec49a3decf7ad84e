"""scan_environment: every CUDA binary under the site-packages roots, grouped by distribution."""

from __future__ import annotations

import errno
import os
import re
import site
import stat
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from doctor.binaries.archs import capability_name, sort_tokens
from doctor.binaries.dists import DistIndex, normalize, package_matches
from doctor.binaries.info import BinaryInfo
from doctor.binaries.reader import read_cuda_archs, special_kind
from doctor.binaries.verdict import NATIVE, NONE, Verdict, verdict_for, worst

_BINARY_NAME = re.compile(r"\.(?:so(?:\.\d+)*|cubin|fatbin)$")
_SKIP_DIRS = {"__pycache__", ".git", "node_modules"}
LARGEST = 3
_CUDA_VARIANT = re.compile(r"^(.*?)(cuda|cu)(\d{2,3})(\..*)$")


@dataclass
class FileEntry:
    path: str
    package: str
    version: str | None
    info: BinaryInfo
    verdict: Verdict

    @property
    def deliberate_none(self) -> bool:
        return self.verdict.verdict == NONE and self.verdict.deliberate

    def to_dict(self) -> dict:
        return {**self.info.to_dict(), "path": self.path, "package": self.package, "version": self.version,
                **self.verdict.to_dict()}


@dataclass
class PackageGroup:
    """`verdict` is the worst over files, leaving out deliberate arch-specific builds for other GPUs
    (unless every file is one)."""

    name: str
    version: str | None
    files: list[FileEntry] = field(default_factory=list)

    @property
    def size(self) -> int:
        return sum(f.info.size for f in self.files)

    @property
    def verdict(self) -> str:
        counted = [f for f in self.files if not f.deliberate_none] or self.files
        return worst(f.verdict.verdict for f in counted)

    def to_dict(self) -> dict:
        counts: dict[str, int] = {}
        for entry in self.files:
            counts[entry.verdict.verdict] = counts.get(entry.verdict.verdict, 0) + 1
        largest = sorted(self.files, key=lambda f: -f.info.size)[:LARGEST]
        return {
            "name": self.name, "version": self.version, "files": len(self.files), "size": self.size,
            "sass": sort_tokens({t for f in self.files for t in f.info.sass}),
            "ptx": sort_tokens({t for f in self.files for t in f.info.ptx}),
            "lto": sort_tokens({t for f in self.files for t in f.info.lto}),
            "verdict": self.verdict, "verdict_counts": counts,
            "deliberate_none": sum(f.deliberate_none for f in self.files),
            "errors": sum(f.info.error is not None for f in self.files),
            "largest": [{"path": f.path, "size": f.info.size, "verdict": f.verdict.verdict} for f in largest],
        }


@dataclass
class ScanReport:
    capability: tuple[int, int]
    roots: list[str]
    files: list[FileEntry] = field(default_factory=list)
    candidates: int = 0
    skipped_non_cuda: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (path, why) never opened
    bytes_scanned: int = 0
    elapsed_s: float = 0.0

    @property
    def packages(self) -> list[PackageGroup]:
        groups: dict[str, PackageGroup] = {}
        for entry in self.files:
            group = groups.setdefault(entry.package, PackageGroup(entry.package, entry.version))
            group.files.append(entry)
        return sorted(groups.values(), key=lambda g: g.name)

    @property
    def failures(self) -> list[FileEntry]:
        """Files with nothing this GPU can run, other than deliberate builds for other GPUs."""
        return [f for f in self.files if f.verdict.verdict == NONE and not f.verdict.deliberate]

    @property
    def verdict(self) -> str:
        """Worst verdict, deliberate builds left out unless all files are; native when nothing to check."""
        counted = [f for f in self.files if not f.deliberate_none] or self.files
        return worst(f.verdict.verdict for f in counted)

    def to_dict(self) -> dict:
        return {
            "target": capability_name(self.capability), "capability": list(self.capability),
            "roots": self.roots, "verdict": self.verdict,
            "packages": [g.to_dict() for g in self.packages],
            "files": [f.to_dict() for f in self.files],
            "skipped": [{"path": path, "why": why} for path, why in self.skipped],
            "stats": {"candidates": self.candidates, "cuda_files": len(self.files),
                      "skipped_non_cuda": self.skipped_non_cuda, "bytes_scanned": self.bytes_scanned,
                      "elapsed_s": round(self.elapsed_s, 4)},
        }


def default_roots() -> list[Path]:
    """This interpreter's site-packages directories (system, user, and any on sys.path)."""
    dirs = [*site.getsitepackages(), site.getusersitepackages()]
    dirs += [p for p in sys.path if Path(p).name in ("site-packages", "dist-packages")]
    seen: dict[str, Path] = {}
    for d in dirs:
        path = Path(d)
        if path.is_dir():
            seen.setdefault(os.path.realpath(path), path)
    return list(seen.values())


def is_candidate(name: str) -> bool:
    return _BINARY_NAME.search(name) is not None


def iter_candidates(root: Path, skipped: list[tuple[str, str]] | None = None):
    """Regular binary-looking files under `root` (or `root` itself), not following directory links.
    A link loop, a dangling link or a special file (a FIFO would block the read forever) is never
    opened: it goes to `skipped` as (path, why)."""
    skipped = skipped if skipped is not None else []
    kind = _path_kind(root)
    if kind != "dir":
        if kind == "file":
            yield root
        else:
            skipped.append((str(root), kind))
        return
    stack = [str(root)]
    while stack:
        current = stack.pop()
        try:
            with os.scandir(current) as it:
                entries = list(it)
        except OSError as exc:
            skipped.append((current, f"cannot list: {exc.strerror or exc}"))
            continue
        for entry in entries:
            name = entry.name
            if entry.is_dir(follow_symlinks=False):
                if name not in _SKIP_DIRS and not name.endswith(".dist-info"):
                    stack.append(entry.path)
            elif _BINARY_NAME.search(name) is not None:
                kind = _path_kind(Path(entry.path))
                if kind == "file":
                    yield Path(entry.path)
                elif kind != "dir":  # a link to a directory is left alone, like other directory links
                    skipped.append((entry.path, kind))


def _path_kind(path: Path) -> str:
    """"file", "dir", or why the path is not read: a link loop, a dangling link, a special file."""
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "symlink loop (not followed)"
        if os.path.islink(path):
            return f"dangling symlink to {os.readlink(path)}"
        return f"cannot stat: {exc.strerror or exc}"
    if stat.S_ISDIR(mode):
        return "dir"
    if stat.S_ISREG(mode):
        return "file"
    return f"not a regular file ({special_kind(mode)}): not opened"


def scan_environment(roots: list[Path] | None = None, packages: list[str] | None = None,
                     capability: tuple[int, int] = (12, 0), kernel_names: bool = True) -> ScanReport:
    """Read every CUDA binary under `roots` (default: this interpreter's site-packages).

    `packages` keeps only distributions or top-level dirs named so (normalized; `flashinfer` also
    matches `flashinfer-cubin`). Files without device code are counted, not listed; files that cannot
    be read are listed with their error; paths that are not regular files are noted in `skipped`.
    `kernel_names`: read kernel names too, for per-family verdicts.
    """
    started = time.perf_counter()
    roots = [Path(r) for r in roots] if roots is not None else default_roots()
    report = ScanReport(capability, [str(r) for r in roots])
    wanted = [normalize(p) for p in packages] if packages else None
    seen: set[tuple[int, int]] = set()
    verdicts: dict[tuple, Verdict] = {}  # thousands of cubins share a handful of arch sets
    for root in roots:
        index = DistIndex.for_root(root)
        for path in iter_candidates(root, report.skipped):
            key = _file_key(path)
            if key is None or key in seen:
                continue
            seen.add(key)
            package, version = index.owner(path)
            if wanted is not None and not package_matches(package, index.top_level(path), wanted):
                continue
            report.candidates += 1
            _add(report, path, package, version, root.is_file(), verdicts, kernel_names)
    _mark_alternative_builds(report.files)
    report.files.sort(key=lambda f: (f.package, f.path))
    report.elapsed_s = time.perf_counter() - started
    return report


def _add(report: ScanReport, path: Path, package: str, version: str | None, explicit: bool,
         verdicts: dict[tuple, Verdict], kernel_names: bool) -> None:
    info = read_cuda_archs(path, kernel_names)
    report.bytes_scanned += info.size
    if not info.has_device_code and info.error is None and not explicit:
        report.skipped_non_cuda += 1
        return
    if info.families:  # kernel names make files unique: nothing to share
        verdict = verdict_for(info, report.capability)
    else:
        key = (tuple(info.sass), tuple(info.ptx), tuple(info.lto), info.format, info.error, info.modules,
               info.lto_only_modules, tuple(sorted(info.entry_counts.items())),
               tuple((tuple(tokens), count) for tokens, count in info.module_archs))
        verdict = verdicts.get(key)
        if verdict is None:
            verdict = verdicts[key] = verdict_for(info, report.capability)
    report.files.append(FileEntry(str(path), package, version, info, verdict))


def _mark_alternative_builds(files: list[FileEntry]) -> None:
    """Per-CUDA-version builds of one library (libbitsandbytes_cuda118.so ... _cuda130.so): the package
    loads the one matching torch's CUDA, so a variant that cannot run is not a failure while a sibling can."""
    groups: dict[tuple[str, str, str], list[FileEntry]] = {}
    for entry in files:
        match = _CUDA_VARIANT.match(os.path.basename(entry.path))
        if match:
            key = (os.path.dirname(entry.path), match.group(1) + match.group(2), match.group(4))
            groups.setdefault(key, []).append(entry)
    for variants in groups.values():
        runnable = sorted((v for v in variants if v.verdict.verdict == NATIVE), key=_cuda_version)
        if len(variants) < 2 or not runnable:
            continue
        good = os.path.basename(runnable[-1].path)
        for entry in variants:
            if entry.verdict.verdict == NONE and not entry.verdict.deliberate:
                reason = f"{entry.verdict.reason}; an alternative build: {good} runs natively"
                entry.verdict = replace(entry.verdict, reason=reason, deliberate=True)


def _cuda_version(entry: FileEntry) -> int:
    match = _CUDA_VARIANT.match(os.path.basename(entry.path))
    return int(match.group(3)) if match else 0


def _file_key(path: Path) -> tuple[int, int] | None:
    try:
        stat = path.stat()
    except OSError:
        return None
    return stat.st_dev, stat.st_ino

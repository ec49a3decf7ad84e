"""What the user states about a profile's host on the command line (`--driver`, `--wsl`): the NVIDIA driver release,
its kernel-module flavour (`580.126.20-open`, `595.71.05-proprietary`) and WSL2, which a built-in profile cannot
know. The driver's CUDA driver API version follows from NVIDIA's "CUDA Toolkit and Corresponding Driver Versions"
table (doctor/data/nvidia_driver_cuda.json), so a stated driver reads exactly as a facts file with the same driver
and CUDA version would."""

from __future__ import annotations

import dataclasses
import json
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from doctor.errors import UsageError
from doctor.pipeline.facts import Facts

TABLE = Path(__file__).resolve().parents[1] / "data" / "nvidia_driver_cuda.json"
# nvidia-smi's "Driver Version": 580.105.08, 570.26 (Linux); 581.57 (Windows, and what WSL2 shows)
DRIVER = re.compile(r"(?P<major>\d{3})\.\d{1,3}(\.\d{1,3})?")
# the release, its module flavour, or both (`595.71.05-proprietary`): the flavour is what Ubuntu's package names
# say (nvidia-driver-580 vs nvidia-driver-580-open) and what /proc/driver/nvidia/version shows on a probed machine
MODULES = ("open", "proprietary")
DRIVER_SPEC = re.compile(rf"(?P<version>{DRIVER.pattern})?(?:(?<=\d)-)?(?P<module>{'|'.join(MODULES)})?")


@dataclass(frozen=True)
class HostWhatIf:
    """`--driver` and `--wsl` as given (driver None, module None, wsl False: nothing stated)."""

    driver: str | None = None
    wsl: bool = False
    module: str | None = None  # the kernel module's flavour: open | proprietary

    def __bool__(self) -> bool:
        return self.driver is not None or self.wsl or self.module is not None


NOTHING_STATED = HostWhatIf()


def split_driver(text: str) -> tuple[str | None, str | None]:
    """`--driver`'s release and kernel-module flavour (`595.71.05-proprietary`, `580.126.20-open`, `open`); at
    least one of them, else one line."""
    match = DRIVER_SPEC.fullmatch(text.strip().lower())
    if not match or not (match["version"] or match["module"]):
        raise UsageError(f"--driver {text}: expected the NVIDIA driver release as nvidia-smi prints it (e.g. "
                         f"580.105.08, or 581.57 for a Windows driver under WSL2), optionally with its kernel "
                         f"module flavour (580.105.08-open, 580.105.08-proprietary), or the flavour alone")
    return match["version"], match["module"]


def cuda_for_driver(driver: str, windows: bool = False) -> str | None:
    """The CUDA driver API version (`13.0`) of this driver release; None where the table names no row of its
    branch. `windows`: the Windows column (a WSL2 guest sees the Windows host's driver)."""
    parts = _numbers(driver)
    best: tuple[tuple[int, ...], str] | None = None
    for row in _rows():
        minimum = row.get("windows" if windows else "linux")
        if not minimum:
            continue
        floor = _numbers(minimum)
        if floor[0] == parts[0] and floor <= parts and (best is None or floor > best[0]):
            best = (floor, row["cuda"])
    return best[1] if best else None


def apply_host_what_if(facts: Facts, stated: HostWhatIf) -> Facts:
    """The profile's facts with the stated driver (and its CUDA version) and WSL2, and a note saying so."""
    if not stated:
        return facts
    notes = []
    if stated.wsl:
        facts = facts.replace(host=dataclasses.replace(facts.host, wsl=True))
        notes.append("host: WSL2 (stated with --wsl)")
    if stated.module is not None:
        facts = facts.replace(host=dataclasses.replace(facts.host, nvidia_module=stated.module))
        notes.append(f"host: the {stated.module} NVIDIA kernel module (stated with --driver)")
    if stated.driver is not None:
        cuda = cuda_for_driver(stated.driver, windows=stated.wsl)
        driver = dataclasses.replace(facts.driver, present=True, driver_version=stated.driver,
                                     cuda_driver_version=cuda)
        facts = facts.replace(driver=driver)
        notes.append(_driver_note(stated.driver, cuda, stated.wsl))
    source = dataclasses.replace(facts.source, notes=(*facts.source.notes, *notes))
    return facts.replace(source=source)


def _driver_note(driver: str, cuda: str | None, windows: bool) -> str:
    column = "Windows" if windows else "Linux"
    if cuda:
        return (f"driver: {driver} (stated with --driver), CUDA driver API {cuda} as NVIDIA's toolkit/driver "
                f"table gives for that {column} release")
    return (f"driver: {driver} (stated with --driver); its CUDA driver API version is not known: NVIDIA's "
            f"toolkit/driver table names no {column} release of its branch, so the rules that read it stay silent "
            f"(a --facts file can state it)")


def _numbers(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


@lru_cache(maxsize=1)
def _rows() -> tuple[dict[str, Any], ...]:
    return tuple(json.loads(TABLE.read_text(encoding="utf-8"))["rows"])

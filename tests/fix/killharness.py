"""Kill `check --fix --unsafe-fixes` with SIGKILL at random moments and check what it leaves behind:
the file is byte-identical to the original or to the fully patched version, no temp file survives the
next run, and the journal (after reconcile) agrees with the file."""

from __future__ import annotations

import hashlib
import random
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from doctor.fix.journal import Journal

KIMI = ["check", "moonshotai/Kimi-K2.5", "--hardware", "rtx-pro-6000-x8", "--fix", "--unsafe-fixes",
        "--format", "json"]


@dataclass
class TrialResult:
    killed_after_s: float
    outcome: str  # original | patched
    journal: list[str]


def sha(path: Path) -> str:
    return sha_bytes(path.read_bytes())


def sha_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def run_trials(site, trials: int, seed: int, step_delay_s: float = 0.05) -> list[TrialResult]:
    """`site` is tests.fix.conftest.Site. Each trial starts from the original file and a fresh journal.

    A quarter of the kills land anywhere in the run, a quarter just after the patched file appears (so the far
    side of the commit point is hit however loaded the machine is), the rest inside the write phase (from the
    first journal line to the end), where a kill can actually do harm."""
    rng = random.Random(seed)
    target = site.extend_file
    pristine = target.read_bytes()
    original = sha(target)
    env = site.env(SM120_DOCTOR_FIX_STEP_DELAY_S=str(step_delay_s))
    duration, write_window = _calibrate(site, env, target, pristine)
    patched = sha(target)
    results = []
    for trial in range(trials):
        _reset(site, target, pristine)
        proc = subprocess.Popen([sys.executable, "-m", "doctor", *KIMI], env=env, cwd=site.root,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        started = time.perf_counter()
        if trial % 4 == 0:
            time.sleep(rng.uniform(0, duration))
        elif trial % 4 == 1:  # right after the commit point, whatever the machine's load makes of the timing
            _wait_for_change(target, pristine, proc)
            time.sleep(rng.uniform(0, 0.05))
        else:
            _wait_for(site.state / "journal.jsonl", proc)
            time.sleep(rng.uniform(0, write_window))
        delay = time.perf_counter() - started
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        results.append(_inspect(site, target, original, patched, delay))
    target.write_bytes(pristine)
    return results


def _reset(site, target: Path, pristine: bytes) -> None:
    target.write_bytes(pristine)
    shutil.rmtree(site.state, ignore_errors=True)
    shutil.rmtree(site.root / "sm120-doctor-fix", ignore_errors=True)


def _wait_for(path: Path, proc: subprocess.Popen) -> None:
    while not path.exists() and proc.poll() is None:
        time.sleep(0.002)


def _wait_for_change(path: Path, pristine: bytes, proc: subprocess.Popen) -> None:
    while proc.poll() is None:
        try:
            if path.read_bytes() != pristine:
                return
        except OSError:
            pass  # between the rename and the next read: look again
        time.sleep(0.002)


def _calibrate(site, env, target: Path, pristine: bytes) -> tuple[float, float]:
    """(whole run, write phase) in seconds, from one uninterrupted run; leaves the file patched."""
    _reset(site, target, pristine)
    proc = subprocess.Popen([sys.executable, "-m", "doctor", *KIMI], env=env, cwd=site.root,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    started = time.perf_counter()
    _wait_for(site.state / "journal.jsonl", proc)
    first_write = time.perf_counter()
    _, stderr = proc.communicate()
    ended = time.perf_counter()
    if sha(target) == sha_bytes(pristine):
        raise AssertionError(f"the uninterrupted --fix run did not patch the file: {stderr.decode()[-500:]}")
    shutil.rmtree(site.state, ignore_errors=True)
    return ended - started, ended - first_write


def _inspect(site, target: Path, original: str, patched: str, delay: float) -> TrialResult:
    current = sha(target)
    if current not in (original, patched):
        raise AssertionError(f"corrupt file after a kill at {delay:.3f}s: sha {current}")
    journal = Journal(site.state)
    if site.state.exists():
        with journal.locked():  # reconciles pending entries and removes stray temp files
            pass
    strays = list(target.parent.glob(f".{target.name}.*.sm120-doctor.tmp"))
    if strays:
        raise AssertionError(f"temp files left after reconcile: {strays}")
    entries = [e for e in journal.entries() if e.path == str(target)]
    statuses = [e.status for e in entries]
    applied = [e for e in entries if e.status == "applied"]
    if current == patched and len(applied) != 1:
        raise AssertionError(f"file patched but journal says {statuses}")
    if current == original and applied:
        raise AssertionError(f"file original but journal says {statuses}")
    if "pending" in statuses:
        raise AssertionError("pending entry survived reconcile")
    return TrialResult(delay, "patched" if current == patched else "original", statuses)

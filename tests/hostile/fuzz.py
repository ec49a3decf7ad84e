"""A fuzzer over every input the doctor reads: model configs, facts, MoE tuned configs, safetensors headers,
fix journals and argv. Each input is written to a scratch directory and run through the real CLI entry
(doctor.cli.main, in this process); the outcome is classified:

- internal: an "internal error" line or a traceback on stderr (a bug: bad input must be a clear error);
- multiline: exit 2 with more or less than one line on stderr;
- hang: no answer within HANG_S (SIGALRM);
- bad_exit: an exit code other than 0, 1, 2;
- left_patched: `revert` exited 0 while a file the journal calls applied still holds the fix.

Used briefly by tests/hostile/test_fuzz.py and at length (>= 10,000 inputs) by bench/bench_fuzz.py.
"""

from __future__ import annotations

import contextlib
import copy
import io
import json
import os
import signal
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from doctor.cli import main
from doctor.fix.journal import Journal, sha256_file
from doctor.fix.writer import write_with_journal

HANG_S = 30
BUNDLED = resources.files("doctor") / "data" / "models"
MODELS = sorted(p.name for p in BUNDLED.iterdir() if (p / "config.json").is_file())
PROFILES = ["rtx-pro-6000-x8", "dgx-spark", "rtx-5090-x2", "h100-sxm-x8"]
KINDS = ("config", "facts", "moe_config", "safetensors", "journal", "argv")

TEXT = st.text(st.characters(codec="utf-8"), max_size=30) | st.sampled_from(
    ["", " ", "\n", "a\nb", "\x00", "\u2028", "é", "x" * 5000, "../..", "/", "~", "-", "--", "=", "*", "abc",
     "12.0", "sm120", "1e400", "NaN", "-1"])
NUMBERS = st.integers(-(2 ** 70), 2 ** 70) | st.sampled_from([0, -1, 1, 2 ** 31, 2 ** 63, 2 ** 64]) | st.floats()
JSON = st.recursive(st.none() | st.booleans() | NUMBERS | TEXT,
                    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(TEXT, inner, max_size=4),
                    max_leaves=10)


@dataclass
class Outcome:
    kind: str
    code: int | None
    stderr: str
    problem: str | None = None  # internal | multiline | hang | bad_exit | left_patched
    detail: dict[str, Any] = field(default_factory=dict)


class _Hang(BaseException):
    """Raised by SIGALRM; a BaseException so the CLI's own `except Exception` cannot swallow it."""


def run_cli(argv: list[str], cwd: Path, environ: dict[str, str]) -> tuple[int | None, str, bool]:
    """(exit code, stderr, hung) of doctor.cli.main(argv) run here, with `environ` and `cwd`."""
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    os.environ.update(environ)
    os.chdir(cwd)
    out, err = io.StringIO(), io.StringIO()

    def alarm(signum, frame):
        raise _Hang()

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(HANG_S)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code: int | None = main(argv)
            except SystemExit as exc:  # argparse --help / --version
                code = exc.code if isinstance(exc.code, int) else 0
        return code, err.getvalue(), False
    except _Hang:
        return None, err.getvalue(), True
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)


def classify(kind: str, code: int | None, stderr: str, hung: bool, **detail: Any) -> Outcome:
    problem = None
    if hung:
        problem = "hang"
    elif "internal error" in stderr or "Traceback (most recent call last)" in stderr:
        problem = "internal"
    elif code not in (0, 1, 2):
        problem = "bad_exit"
    elif code == 2 and len(stderr.rstrip("\n").split("\n")) != 1:
        problem = "multiline"
    return Outcome(kind, code, stderr[-2000:], problem, detail)


# --- building blocks ---------------------------------------------------------------------------

def _paths(value: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value[:6]):
            out += _paths(v, (*prefix, i))
    return out


def _mutate(draw: Callable, doc: Any, rounds: int = 3) -> Any:
    """Replace, delete or add values at random paths of a real document (what a corrupt or hand-edited file
    looks like), a few times over."""
    doc = copy.deepcopy(doc)
    for _ in range(draw(st.integers(1, rounds))):
        path = draw(st.sampled_from(_paths(doc)))
        if not path:
            doc = draw(JSON) if draw(st.integers(0, 9)) == 0 else doc
            continue
        parent = doc
        for key in path[:-1]:
            parent = parent[key]
        action = draw(st.sampled_from(["replace", "replace", "delete", "add"]))
        if action == "delete" and isinstance(parent, dict):
            del parent[path[-1]]
        elif action == "add" and isinstance(parent[path[-1]], dict):
            parent[path[-1]][draw(TEXT)] = draw(JSON)
        else:
            parent[path[-1]] = draw(JSON)
    return doc


def _as_bytes(draw: Callable, doc: Any) -> bytes:
    """JSON text, now and then cut short, not UTF-8, or with Infinity/NaN literals."""
    text = json.dumps(doc, allow_nan=True).encode("utf-8", "surrogatepass")
    choice = draw(st.integers(0, 19))
    if choice == 0 and text:
        return text[: draw(st.integers(0, len(text) - 1))]
    if choice == 1:
        return text.replace(b'"', b"\xff", 1)
    if choice == 2:
        return text.replace(b"1", b"Infinity", 1)
    return text


def _model_dir(root: Path, config: bytes, quant: bytes | None = None) -> Path:
    folder = root / "model"
    folder.mkdir(exist_ok=True)
    (folder / "config.json").write_bytes(config)
    if quant is not None:
        (folder / "hf_quant_config.json").write_bytes(quant)
    return folder


def _bundled(name: str, file: str = "config.json") -> Any:
    return json.loads((BUNDLED / name / file).read_text(encoding="utf-8"))


def _base_env(root: Path) -> dict[str, str]:
    return {"HF_HUB_OFFLINE": "1", "HF_HOME": str(root / "hf"), "SM120_DOCTOR_STATE_DIR": str(root / "state"),
            "SM120_DOCTOR_CACHE": str(root / "cache"), "XDG_CACHE_HOME": str(root / "xdg")}


# --- one case per input type ---------------------------------------------------------------------

def case_config(draw: Callable, root: Path) -> Outcome:
    name = draw(st.sampled_from(MODELS))
    config = _mutate(draw, _bundled(name))
    quant = None
    if (BUNDLED / name / "hf_quant_config.json").is_file():
        quant = _as_bytes(draw, _mutate(draw, _bundled(name, "hf_quant_config.json")))
    folder = _model_dir(root, _as_bytes(draw, config), quant)
    argv = ["check", str(folder), "--hardware", draw(st.sampled_from(PROFILES)), "--engine", "sglang==0.5.8",
            "--format", draw(st.sampled_from(["json", "console"]))]
    return classify("config", *run_cli(argv, root, _base_env(root)))


def case_facts(draw: Callable, root: Path) -> Outcome:
    profile = json.loads((resources.files("doctor.hardware") / "profiles" /
                          f"{draw(st.sampled_from(PROFILES))}.json").read_text(encoding="utf-8"))
    profile["source"]["kind"] = "snapshot"
    facts = root / "facts.json"
    facts.write_bytes(_as_bytes(draw, _mutate(draw, profile)))
    argv = [draw(st.sampled_from(["check", "plan", "kernels"])), draw(st.sampled_from(MODELS)).replace("--", "/", 1),
            "--facts", str(facts), "--engine", "sglang==0.5.8", "--offline"]
    return classify("facts", *run_cli(argv, root, _base_env(root)))


MOE_SEED = {"1": {"BLOCK_SIZE_M": 16, "BLOCK_SIZE_N": 64, "BLOCK_SIZE_K": 128, "GROUP_SIZE_M": 1, "num_warps": 4,
                  "num_stages": 3},
            "64": {"BLOCK_SIZE_M": 64, "BLOCK_SIZE_N": 128, "BLOCK_SIZE_K": 128, "GROUP_SIZE_M": 16, "num_warps": 8,
                   "num_stages": 4}}


def case_moe_config(draw: Callable, root: Path) -> Outcome:
    path = root / "moe.json"
    path.write_bytes(_as_bytes(draw, _mutate(draw, MOE_SEED)))
    argv = ["smem", "--moe-config", str(path), "--arch", draw(st.sampled_from(["sm120", "sm90", "12.1"])),
            "--dtype", draw(st.sampled_from(["fp8_w8a8", "bf16", "int4_w4a16"]))]
    return classify("moe_config", *run_cli(argv, root, _base_env(root)))


def case_safetensors(draw: Callable, root: Path) -> Outcome:
    header = {"model.layers.0.mlp.gate_proj.weight": {"dtype": "BF16", "shape": [14336, 4096],
                                                      "data_offsets": [0, 117440512]},
              "lm_head.weight": {"dtype": "F8_E4M3", "shape": [128256, 4096], "data_offsets": [0, 1]},
              "__metadata__": {"format": "pt"}}
    body = _as_bytes(draw, _mutate(draw, header))
    length = draw(st.sampled_from([len(body), len(body), 0, 1, 7, len(body) + 5, 2 ** 40, 2 ** 64 - 1]))
    folder = _model_dir(root, json.dumps(_bundled("meta-llama--Llama-3.1-8B-Instruct")).encode())
    (folder / "model-00001-of-00001.safetensors").write_bytes(length.to_bytes(8, "little") + body)
    argv = [draw(st.sampled_from(["check", "plan"])), str(folder), "--hardware", "rtx-5090-x2", "--format", "json"]
    return classify("safetensors", *run_cli(argv, root, _base_env(root)))


def case_journal(draw: Callable, root: Path) -> Outcome:
    env = _base_env(root)
    files = [root / "launch.sh", root / "extend_attention.py"]
    for i, path in enumerate(files):
        path.write_text(f"original {i}\n")
    journal = Journal(root / "state")
    with journal.locked():
        for i, path in enumerate(files):
            write_with_journal(journal, path, f"patched {i}\n".encode(), "SGL101", "write", lambda _p: None)
    data = journal.file.read_bytes()
    journal.file.write_bytes(_mangle_journal(draw, data))
    argv = ["revert", *draw(st.lists(TEXT, max_size=1))] if draw(st.booleans()) else ["revert", "--list"]
    code, err, hung = run_cli(argv, root, env)
    outcome = classify("journal", code, err, hung)
    if outcome.problem is None and code == 0 and argv == ["revert"]:
        with contextlib.suppress(Exception):
            left = [e.path for e in Journal(root / "state").entries()
                    if e.status == "applied" and sha256_file(Path(e.path)) == e.sha256_after]
            if left:
                outcome.problem, outcome.detail = "left_patched", {"files": left}
    return outcome


def _mangle_journal(draw: Callable, data: bytes) -> bytes:
    lines = data.split(b"\n")[:-1]
    how = draw(st.sampled_from(["cut", "cut", "line", "bytes", "append", "field"]))
    if how == "cut":
        return data[: draw(st.integers(0, len(data)))]
    if how == "line":
        i = draw(st.integers(0, len(lines) - 1))
        lines[i] = json.dumps(draw(JSON)).encode()
    elif how == "bytes":
        i = draw(st.integers(0, len(lines) - 1))
        lines[i] = draw(st.binary(max_size=60))
    elif how == "append":
        lines.append(draw(st.binary(max_size=60)))
    else:
        i = draw(st.integers(0, len(lines) - 1))
        entry = json.loads(lines[i])
        entry[draw(st.sampled_from(sorted(entry)))] = draw(JSON)
        lines[i] = json.dumps(entry).encode()
    return b"\n".join(lines) + (b"\n" if draw(st.booleans()) else b"")


COMMANDS = {
    "check": ["MODEL", "--hardware", "--facts", "--engine", "--tp", "--format", "--fail-on", "--offline", "--output",
              "--fix", "--dry-run", "--fix-dir"],
    "plan": ["MODEL", "--hardware", "--tp", "--pp", "--ep", "--context-length", "--kv-cache-dtype", "--format",
             "--mem-fraction-static", "--offline"],
    "kernels": ["MODEL", "--hardware", "--engine", "--format", "--offline"],
    "smem": ["fused-moe", "extend-attention", "--arch", "--dtype", "--block-m", "--block-n", "--block-k", "--warps",
             "--stages", "--group-m", "--format", "--moe-config", "--lq", "--lv"],
    "moe-config": ["MODEL", "--hardware", "--engine", "--output", "--all", "--force", "--offline"],
    "explain": ["RULE", "--format"], "rules": ["--area", "--format"], "hardware": ["--format"],
    "models": ["--format"], "revert": ["--list", "RULE", "--force"],
}
WRITES = {"--output", "--fix-dir"}  # their values stay inside the scratch directory
VALUES = st.sampled_from(["moonshotai/Kimi-K2.5", "zai-org/GLM-4.7-FP8", "rtx-pro-6000-x8", "dgx-spark", "json",
                          "console", "sglang==0.5.8", "sglang==9.9", "8", "0", "-1", "sm120", "fp8_w8a8", "SGL101",
                          "128", "3"]) | TEXT


@st.composite
def argv_strategy(draw: Callable) -> list[str]:
    command = draw(st.sampled_from(sorted(COMMANDS)))
    argv = [command]
    for token in draw(st.lists(st.sampled_from(COMMANDS[command]), max_size=8)):
        if token in WRITES:
            argv += [token, draw(st.sampled_from(["out/report.json", "out", "fixdir", ""]))]
        elif token.isupper():
            argv.append(draw(VALUES))
        elif token.startswith("--"):
            argv += [token, draw(VALUES)] if draw(st.integers(0, 4)) else [token]
        else:
            argv.append(token)
    if draw(st.integers(0, 5)) == 0:
        argv += ["--", *draw(st.lists(VALUES | st.sampled_from(["--tp-size", "--attention-backend"]), max_size=4))]
    return argv


def case_argv(draw: Callable, root: Path) -> Outcome:
    argv = draw(argv_strategy())
    if "--fix" in argv and "--unsafe-fixes" in argv:
        argv.remove("--unsafe-fixes")
    return classify("argv", *run_cli(argv, root, _base_env(root)), argv=argv)


CASES: dict[str, Callable[[Callable, Path], Outcome]] = {
    "config": case_config, "facts": case_facts, "moe_config": case_moe_config, "safetensors": case_safetensors,
    "journal": case_journal, "argv": case_argv,
}


def run_case(kind: str, draw: Callable) -> Outcome:
    with tempfile.TemporaryDirectory(prefix="sm120-fuzz-") as tmp:
        return CASES[kind](draw, Path(tmp))

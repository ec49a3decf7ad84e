"""`check --fix` against a real SGLang wheel installed into a temporary site-packages."""

import hashlib
import json

import pytest

from doctor.fix.journal import Journal

pytestmark = pytest.mark.wheel
KIMI = ["check", "moonshotai/Kimi-K2.5", "--hardware", "rtx-pro-6000-x8"]


def sha(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def finding_ids(result):
    return {f["id"] for f in json.loads(result.stdout)["findings"]}


def test_installed_058_is_seen_and_flagged(sglang_058):
    result = sglang_058.run(*KIMI, "--format", "json")
    assert result.returncode == 1, result.stderr
    report = json.loads(result.stdout)
    assert report["facts"]["libraries"]["sglang"]["version"] == "0.5.8"
    absorbed = next(k for k in report["analysis"]["kernels"] if k["path"] == "mla-absorbed")
    assert absorbed["details"]["tiles_from"].startswith("installed source")
    assert "SGL101" in finding_ids(result)


def test_safe_fix_does_not_touch_installed_packages(sglang_058):
    before = sha(sglang_058.extend_file)
    result = sglang_058.run(*KIMI, "--fix", "--format", "json")
    assert result.returncode == 1
    assert "pass --unsafe-fixes" in result.stderr
    assert sha(sglang_058.extend_file) == before


def test_dry_run_prints_the_diff_and_changes_nothing(sglang_058):
    before = sha(sglang_058.extend_file)
    result = sglang_058.run(*KIMI, "--fix", "--unsafe-fixes", "--dry-run", "--format", "json")
    assert sha(sglang_058.extend_file) == before
    assert "+        if _is_cuda and CUDA_CAPABILITY[0] == 12:" in result.stderr
    assert "-        if _is_cuda and CUDA_CAPABILITY[0] >= 9:" in result.stderr
    assert "+        elif _is_cuda and CUDA_CAPABILITY[0] >= 9:" in result.stderr
    assert not (sglang_058.state / "journal.jsonl").exists()


def test_unsafe_fix_patches_rechecks_reverts(sglang_058):
    original = sha(sglang_058.extend_file)
    fixed = sglang_058.run(*KIMI, "--fix", "--unsafe-fixes", "--format", "json")
    assert "cleared SGL101" in fixed.stderr, fixed.stderr
    assert "SGL101" not in finding_ids(fixed)
    patched = sha(sglang_058.extend_file)
    assert patched != original
    report = json.loads(fixed.stdout)
    absorbed = next(k for k in report["analysis"]["kernels"] if k["path"] == "mla-absorbed")
    assert (absorbed["config"]["block_m"], absorbed["config"]["block_n"], absorbed["bytes"]) == (32, 32, 71680)

    again = sglang_058.run(*KIMI, "--fix", "--unsafe-fixes", "--format", "json")
    assert f"wrote {sglang_058.site}" not in again.stderr and sha(sglang_058.extend_file) == patched
    entries = Journal(sglang_058.state).entries()
    patches = [e for e in entries if e.path == str(sglang_058.extend_file)]
    assert [e.status for e in patches] == ["applied"]
    assert patches[0].sha256_before == original and patches[0].sha256_after == patched

    reverted = sglang_058.run("revert")
    assert reverted.returncode == 0, reverted.stderr
    assert sha(sglang_058.extend_file) == original
    assert {e.status for e in Journal(sglang_058.state).entries()} == {"reverted"}


def test_revert_refuses_a_file_changed_since(sglang_058):
    sglang_058.run(*KIMI, "--fix", "--unsafe-fixes")
    sglang_058.extend_file.write_text(sglang_058.extend_file.read_text() + "\n# edited by hand\n")
    edited = sha(sglang_058.extend_file)
    result = sglang_058.run("revert")
    assert result.returncode == 2 and "changed since" in result.stderr
    assert sha(sglang_058.extend_file) == edited
    assert sglang_058.run("revert", "--force").returncode == 0


def test_hand_mutated_file_is_refused_untouched(sglang_058):
    text = sglang_058.extend_file.read_text().replace("if _is_cuda and CUDA_CAPABILITY[0] >= 9:",
                                                      "if _is_cuda and CUDA_CAPABILITY[0] > 8:")
    sglang_058.extend_file.write_text(text)
    before = sha(sglang_058.extend_file)
    result = sglang_058.run(*KIMI, "--fix", "--unsafe-fixes")
    assert result.returncode == 2
    assert "changed by hand or is an unknown version" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert sha(sglang_058.extend_file) == before


def test_nothing_to_patch_on_059(sglang_059):
    before = sha(sglang_059.extend_file)
    result = sglang_059.run(*KIMI, "--fix", "--unsafe-fixes", "--format", "json")
    assert "SGL101" not in finding_ids(result) and f"wrote {sglang_059.site}" not in result.stderr
    assert sha(sglang_059.extend_file) == before
    assert not [e for e in Journal(sglang_059.state).entries() if e.path.startswith(str(sglang_059.site))]


def test_permission_denied_changes_nothing(sglang_058, monkeypatch):
    """Read-only site-packages: refused before any backup or journal line (os.access is what decides,
    so as root the read-only case is simulated through it)."""
    import os

    from doctor.errors import DoctorError
    from doctor.fix.actions import plan_fixes
    from doctor.fix.apply import apply_actions
    from doctor.pipeline.check import CheckRequest, run_check

    monkeypatch.syspath_prepend(str(sglang_058.site))
    import importlib

    importlib.invalidate_caches()
    env = {"HF_HUB_OFFLINE": "1", "SM120_DOCTOR_STATE_DIR": str(sglang_058.state)}
    report = run_check(CheckRequest(model="moonshotai/Kimi-K2.5", hardware="rtx-pro-6000-x8", environ=env))
    actions = plan_fixes(report, unsafe=True)
    real_access = os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if "triton_ops" in str(p) else real_access(p, mode))
    before = sha(sglang_058.extend_file)
    with pytest.raises(DoctorError, match="permission denied"):
        apply_actions(actions, env)
    assert sha(sglang_058.extend_file) == before
    assert not (sglang_058.state / "journal.jsonl").exists()


def test_concurrent_fix_is_locked_out(sglang_058):
    journal = Journal(sglang_058.state)
    with journal.locked():
        result = sglang_058.run(*KIMI, "--fix", "--unsafe-fixes")
    assert result.returncode == 2 and "another sm120-doctor" in result.stderr


@pytest.mark.slow
def test_patched_kernel_fits_by_exact_compile_for_every_lq_kimi_uses(sglang_058):
    """After --fix, the installed kernel's tiles for sm_120 (read from the patched source) compile, for
    every Lq/Lv the model reaches, to shared memory within the limit — Triton's own number."""

    from doctor.engines.sglang.attention import extend_paths
    from doctor.engines.sglang.source import extend_tiles_from_source
    from doctor.kernels import smem_limit
    from doctor.kernels.exact import Job, compile_many
    from doctor.probe.model import load_model
    from tests.wheels import cache_root, triton_site

    assert sglang_058.run(*KIMI, "--fix", "--unsafe-fixes").returncode in (0, 1)
    jobs = []
    for path in extend_paths(load_model("moonshotai/Kimi-K2.5", {}), tp=8):
        tiles = extend_tiles_from_source(sglang_058.extend_file, (12, 0), path.lq, path.lv)
        jobs.append(Job("extend_attention", 120, {"lq": path.lq, "lv": path.lv, "block_m": tiles.block_m,
                                                  "block_n": tiles.block_n, "num_warps": tiles.num_warps,
                                                  "num_stages": 1, "kv_group": path.kv_group}))
    results = compile_many(jobs, sglang_058.site, triton_site("3.5.1"), workers=2, cache_dir=cache_root() / "smem")
    shared = [r["shared"] for r in results]
    assert all(s <= smem_limit((12, 0)) for s in shared), shared
    assert shared == [49152, 71680]  # 192/128 at (64,64); 576/512 at (32,32)


def test_revert_undoes_several_writes_to_one_file_newest_first(tmp_path, monkeypatch):
    """Writes to one file within one second get ids whose sort order is not their journal order (here:
    descending); `revert` must undo them newest first by journal order."""
    import subprocess
    import sys
    import time
    import uuid

    from doctor.fix.journal import Journal
    from doctor.fix.writer import write_with_journal
    from tests.conftest import cli_env

    suffixes = iter(["f" * 32, "8" * 32, "0" * 32])  # ids sort opposite to write order
    monkeypatch.setattr(time, "strftime", lambda *_: "20260101T000000")
    monkeypatch.setattr(uuid, "uuid4", lambda: uuid.UUID(next(suffixes)))
    target = tmp_path / "launch.sh"
    state = tmp_path / "state"
    journal = Journal(state)
    with journal.locked():
        for text in (b"one\n", b"two\n", b"three\n"):
            write_with_journal(journal, target, text, "X", "write", lambda _p: None)
    ids = [e.id for e in journal.entries()]
    assert ids == sorted(ids, reverse=True)
    result = subprocess.run([sys.executable, "-m", "doctor", "revert"], capture_output=True, text=True,
                            env=cli_env(SM120_DOCTOR_STATE_DIR=str(state)), timeout=60)
    assert result.returncode == 0, result.stderr
    assert not target.exists()
    assert {e.status for e in Journal(state).entries()} == {"reverted"}


@pytest.mark.wheel
def test_the_vision_finding_reaches_the_prefill_patch_through_unsafe_fixes(sglang_058, tmp_path):
    """SGL106 (vision prefill overflow) calls for sglang-prefill-attention-sm12x: --fix --unsafe-fixes applies
    it through the journal, and the re-analysed kernel fits."""
    import dataclasses

    from doctor.findings import Safety
    from doctor.fix.actions import plan_fixes
    from doctor.fix.apply import apply_actions
    from doctor.pipeline.check import check_facts
    from tests.rules.builders import build

    facts = build("rtx-5090", "moonshotai/Kimi-K2.5", ("sglang==0.5.8",), vision_head_dim=256)
    installed = dataclasses.replace(facts.libraries["sglang"], location=str(sglang_058.site), what_if=False)
    facts = facts.replace(libraries={**facts.libraries, "sglang": installed})
    report = check_facts(facts, [])
    assert "SGL106" in {f.id for f in report.findings}
    actions = [a for a in plan_fixes(report, unsafe=True) if a.patch_id == "sglang-prefill-attention-sm12x"]
    assert len(actions) == 1 and actions[0].rule_id == "SGL106" and actions[0].safety is Safety.UNSAFE
    assert actions[0].skipped is None
    outcome = apply_actions(actions, {"SM120_DOCTOR_STATE_DIR": str(sglang_058.state)})
    assert len(outcome.written) == 1
    after = check_facts(facts, [])
    vision = next(k for k in after.analysis.kernels if k.kernel == "prefill_attention")
    assert vision.fits and "SGL106" not in {f.id for f in after.findings}

"""The version facts the rules rely on, and every SGLang flag they print, checked in the real wheels."""

from __future__ import annotations

import re

import pytest
from packaging.specifiers import SpecifierSet
from packaging.version import Version

from doctor.engines import registry as engines
from doctor.engines.sglang import flags as registry
from doctor.pipeline.analysis import engine_runs
from tests.rules.builders import RULES, build, findings
from tests.rules.sglang_source import server_args

pytestmark = pytest.mark.wheel
RELEASES = registry.CHECKED_RELEASES


def files(version: str, contains: str) -> list[str]:
    return server_args(version).text(contains=contains)


@pytest.mark.parametrize(("version", "present"), [("0.5.8", False), ("0.5.9", True), ("0.5.13", True),
                                                  ("0.5.16", True), ("0.5.23", True)])
def test_extend_attention_capability_12_branch(version, present):
    """SGL101's boundary: PR #14311's `CUDA_CAPABILITY[0] == 12` branch is first in 0.5.9."""
    extend = [f for f in files(version, "def _get_block_sizes_for_extend_attention")
              if f.endswith("extend_attention.py")]
    assert len(extend) == 1
    text = server_args(version).texts[extend[0]]
    assert ("CUDA_CAPABILITY[0] == 12" in text) is present
    assert "CUDA_CAPABILITY[0] >= 9" in text


@pytest.mark.parametrize(("version", "present"), [("0.5.8", True), ("0.5.9", True), ("0.5.13", False),
                                                  ("0.5.23", False)])
def test_disable_cudnn_check_escape(version, present):
    """SGL115/SGL116: SGLANG_DISABLE_CUDNN_CHECK exists in 0.5.7-0.5.9 only (absent from 0.5.10 on)."""
    assert bool(files(version, "SGLANG_DISABLE_CUDNN_CHECK")) is present
    assert bool(files(version, "check_torch_2_9_1_cudnn_compatibility")) is present


@pytest.mark.parametrize("version", RELEASES)
def test_disable_cuda_graph_deprecated_from_0_5_14(version):
    """SGL111's boundary."""
    deprecated = files(version, "Deprecated. Use --cuda-graph-backend-{decode,prefill}=disabled instead.")
    assert bool(deprecated) is (Version(version) >= Version("0.5.14"))
    assert "--disable-cuda-graph" in server_args(version).flags


@pytest.mark.parametrize("version", RELEASES)
def test_moe_config_triton_fallback_list(version):
    """SGL105: <= 0.5.11 hard-codes the fallback Triton versions, without 3.5.1; later releases scan."""
    hard_coded = files(version, "supported_triton_versions")
    if Version(version) < Version("0.5.12"):
        text = server_args(version).texts[hard_coded[0]]
        listed = re.search(r"supported_triton_versions\s*=\s*\[([^\]]*)\]", text)
        assert listed is not None
        assert '"3.4.0"' in listed.group(1) and "3.5.1" not in listed.group(1)
    else:
        assert hard_coded == []


@pytest.mark.parametrize("version", RELEASES)
def test_low_smem_fp8_moe_default_from_0_5_14(version):
    """SGL102's upgrade target: PR #25665's `_use_low_smem_fp8_default` is first in 0.5.14."""
    assert bool(files(version, "def _use_low_smem_fp8_default")) is (Version(version) >= Version("0.5.14"))
    assert files(version, "SGLANG_MOE_CONFIG_DIR")


def _printed(fix: dict, version: str) -> list[tuple[str, str | None]]:
    tokens = [t for t in fix.get("flags", []) if "{" not in t]
    pairs, i = [], 0
    while i < len(tokens):
        value = tokens[i + 1] if i + 1 < len(tokens) and not tokens[i + 1].startswith("--") else None
        pairs.append((tokens[i], value))
        i += 2 if value is not None else 1
    return pairs


@pytest.mark.parametrize("version", RELEASES)
def test_every_flag_a_rule_prints_exists_in_that_release(version):
    source = server_args(version)
    checked = 0
    for rule in RULES:
        for fix in rule.fixes:
            if fix.get("engine") != "sglang" or ("versions" in fix and
                                                 not SpecifierSet(fix["versions"]).contains(version)):
                continue
            for flag, value in _printed(fix, version):
                assert flag in source.flags, f"{rule.id} prints {flag}, absent from SGLang {version}"
                choices = source.choices.get(flag)
                if value is not None and choices is not None:
                    assert value in choices, f"{rule.id} prints {flag} {value}; SGLang {version}: {choices}"
                elif value is not None and flag in source.choices:  # an enum's .ALL: the literal is in the text
                    assert files(version, f'"{value}"'), f"{rule.id}: {flag} {value} in SGLang {version}"
                checked += 1
    assert checked >= 8


@pytest.mark.parametrize("version", RELEASES)
def test_replacements_exist_where_the_old_flag_is_gone_or_deprecated(version):
    source = server_args(version)
    for flag in registry.FLAGS.values():
        v = Version(version)
        if flag.replacement and (flag.is_deprecated(v) or not flag.exists(v)) and (flag.added is None or v >= Version(
                flag.added)):
            for token in flag.replacement:
                if token.startswith("--"):
                    assert token in source.flags, f"{flag.name} → {token} in SGLang {version}"


USER_FLAGS = ["--tp", "8", "--disable-cuda-graph", "--cuda-graph-max-bs", "16", "--pp", "1", "--trust-remote-code",
              "--attention-backend", "trtllm_mla", "--mm-attention-backend", "triton_attn",
              "--moe-runner-backend", "flashinfer_trtllm", "--enable-dp-attention", "--dp-size", "8"]


@pytest.mark.parametrize("version", RELEASES)
def test_the_composed_command_uses_only_flags_that_release_accepts(version):
    facts = build("rtx-pro-6000-x8", "moonshotai/Kimi-K2.5", (f"sglang=={version}",), vision_head_dim=256)
    found = tuple(f for fs in findings(facts, *USER_FLAGS).values() for f in fs)
    plan = engines.get("sglang").compose(engine_runs(facts, USER_FLAGS)[0], found)
    assert plan.engine == "sglang"
    source = server_args(version)
    argv = plan.argv[3:]
    for token in argv:
        if token.startswith("--"):
            assert token in source.flags, f"composed {token} is not a SGLang {version} flag: {plan.shell()}"
    assert "--pp" not in argv and "--tp" not in argv and "--tp-size" in argv
    assert argv[argv.index("--attention-backend") + 1] == "triton"
    assert argv[argv.index("--mm-attention-backend") + 1] == "sdpa"
    assert "--moe-runner-backend" not in argv
    if Version(version) >= Version("0.5.23"):
        assert argv[argv.index("--attn-dp-size") + 1] == "8" and "--enable-dp-attention" not in argv
    assert not [n for n in plan.notes if n.startswith("still wrong")], plan.notes

"""`diagnose` on a whole GitHub issue body (tests/diagnose/bodies.toml): the environment dump's facts become the
deployment's, each with its line; markdown (quotes, fences, escapes, headings, checklists, CRLF) does not break
reading; a non-SM12x machine's dump gets no finding of a rule gated on capability 12.x."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from bench.diagnose_bodies import recovered
from doctor.diagnose.diagnosis import diagnose
from doctor.diagnose.markdown import normalise
from tests.diagnose.corpus import diagnose_text, empty_base, profile_base

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

HERE = Path(__file__).resolve().parent
BODIES = tomllib.loads((HERE / "bodies.toml").read_text(encoding="utf-8"))["body"]


def _diagnose_body(entry: dict):
    data = (HERE / "bodies" / entry["file"]).read_bytes()
    return diagnose(io.BufferedReader(io.BytesIO(data)), entry["file"], empty_base(), "nothing (test)", {},
                    judge_on_log_only=True)


def _sm12x_gated() -> set[str]:
    from doctor.pipeline.rules import load_rules

    return {rule.id for rule in load_rules()
            if any(c.get("fact") == "gpu.capability_major" and c.get("eq") == 12 for c in rule.when)}


@pytest.mark.parametrize("entry", BODIES, ids=[b["file"] for b in BODIES])
def test_a_body_is_read_and_diagnosed(entry):
    diagnosis = _diagnose_body(entry)
    first = diagnosis.explanations[0].rule if diagnosis.explanations else ""
    assert first == entry["expect"], (entry["url"], [e.rule for e in diagnosis.explanations])
    facts = recovered(diagnosis)
    assert {k: facts.get(k) for k in entry["facts"]} == entry["facts"], (entry["url"], facts)
    if entry.get("control"):
        claimed = {e.rule for e in diagnosis.explanations} | {f.id for f in diagnosis.report.findings}
        assert not claimed & _sm12x_gated(), (entry["url"], sorted(claimed & _sm12x_gated()))


def test_the_bodies_are_public_and_listed():
    assert len(BODIES) >= 25 and len({b["url"] for b in BODIES}) == len(BODIES)
    assert {b["file"] for b in BODIES} == {p.name for p in (HERE / "bodies").glob("*.md")}
    assert sum(1 for b in BODIES if b.get("control")) >= 5


VLLM_DUMP = """### Your current environment

<details>
<summary>The output of <code>python collect_env.py</code></summary>

```text
OS                           : Ubuntu 24.04.2 LTS (x86_64)
PyTorch version              : 2.7.1+cu128
CUDA used to build PyTorch   : 12.8
GPU models and configuration : GPU 0: NVIDIA GeForce RTX 5090
Nvidia driver version        : 575.57.08
[pip3] flashinfer-python==0.2.9
[pip3] torch==2.7.1+cu128
[pip3] transformers==4.55.0
[pip3] triton==3.3.1
vLLM Version                 : 0.10.1
```

</details>
"""


def test_a_dump_is_checked_at_the_releases_it_states():
    """vLLM 0.10.1 + RTX 5090 + FlashInfer 0.2.9 in a body: the findings `check --hardware rtx-5090 --engine
    vllm==0.10.1 --engine flashinfer-python==0.2.9 ...` gives, each version sourced from its dump line."""
    from doctor.pipeline.check import check_facts
    from doctor.pipeline.rules import load_rules

    diagnosis = diagnose_text(VLLM_DUMP)
    sources = diagnosis.deployment.sources
    assert sources["vllm version"] == "log line 16" and sources["flashinfer-python version"] == "log line 12"
    assert sources["gpu 0"].startswith("log line 10") and sources["driver"] == "log line 11"
    base = profile_base("rtx-5090", "vllm==0.10.1", "flashinfer-python==0.2.9", "torch==2.7.1+cu128",
                        "transformers==4.55.0", "triton==3.3.1")
    checked = check_facts(base, [], load_rules(), {}, pinned=False)
    assert {f.id for f in diagnosis.report.findings} == {f.id for f in checked.findings}
    assert {f.id for f in checked.findings}  # the check names something for this deployment


def test_the_same_dump_on_a_b200_gets_no_sm12x_finding():
    diagnosis = diagnose_text(VLLM_DUMP.replace("NVIDIA GeForce RTX 5090", "NVIDIA B200"))
    assert diagnosis.deployment.facts.gpus[0].compute_capability == "10.0"
    assert not {f.id for f in diagnosis.report.findings} & _sm12x_gated()


def test_normalise_keeps_every_line_in_its_place():
    body = (b"> > RuntimeError: CUDA error: no kernel image\r\n"
            b"### Ollama version\r\n\r\n0.12.11\r\n"
            b"- [x] I searched related issues\n"
            b"flashinfer\\_python: 0.5.2 &gt; **GPU**: RTX 5090\n"
            b"```text RuntimeError: x```\n"
            b"PS C:\\Users\\<me> nvidia-smi\n")
    out = normalise(body)
    assert out.count(b"\n") == body.count(b"\n")
    lines = out.split(b"\n")
    assert lines[0] == b"RuntimeError: CUDA error: no kernel image"
    assert lines[1] == b"" and lines[3] == b"Ollama version: 0.12.11"
    assert lines[4] == b""  # a form's checklist is not log text
    assert lines[5] == b"flashinfer_python: 0.5.2 > GPU: RTX 5090"
    assert lines[6] == b"text RuntimeError: x"
    assert lines[7] == b"PS C:\\Users\\<me> nvidia-smi"  # a Windows path keeps its backslashes
    assert normalise(b"INFO 05-01 12:00:00 plain log line\n") == b"INFO 05-01 12:00:00 plain log line\n"


@pytest.mark.parametrize(("line", "expected"), [
    ("- **GPU Driver**: 580.95.05", "580.95.05"),
    ("NVIDIA driver version: 575.57.08", "575.57.08"),
    ("on Windows with an RTX 5090, driver 595.97, CUDA reported by driver 13.2", "595.97"),
    ("CUDA Driver Version: 580.173.02", "580.173.02"),
    ("CUDA driver 12.8", None),  # a CUDA version, not a driver release
    ("driver=13.0", None),
])
def test_driver_lines(line, expected):
    driver = diagnose_text(line + "\n").reading.facts.driver
    assert (driver.value if driver else None) == expected


@pytest.mark.parametrize(("line", "engine", "version"), [
    ("vLLM Version: 0.11.0", "vllm", "0.11.0"),
    ("- SGLang version: 0.5.9", "sglang", "0.5.9"),
    ("- TensorRT-LLM branch or tag (e.g., main, v0.7.1): v1.2.0rc1", "tensorrt-llm", "1.2.0rc1"),
    ("- Ollama version: 0.13.1", "ollama", "0.13.1"),
    ("ollama version is 0.12.3", "ollama", "0.12.3"),
    ("[pip3] vllm==0.9.2", None, "0.9.2"),  # a package list names no engine
    ("sglang: 0.5.9", None, "0.5.9"),  # nor does check_env's package line alone
])
def test_labelled_engine_versions(line, engine, version):
    facts = diagnose_text(line + "\n").reading.facts
    assert (facts.engine.value if facts.engine else None) == engine
    name = engine or line.split("]")[-1].split("==")[0].split(":")[0].strip()
    assert facts.versions[name].value == version


@pytest.mark.parametrize(("line", "name", "count"), [
    ("- **GPU**: NVIDIA GeForce RTX 5070 Ti (16GB VRAM)", "NVIDIA GeForce RTX 5070 Ti", 1),
    ("GPU name: NVIDIA RTX PRO 6000 Blackwell Server Edition", "NVIDIA RTX PRO 6000 Blackwell Server Edition", 1),
    ("Hardware: 2x RTX 5090", "RTX 5090", 2),
    ("- GPU: RTX PRO 6000 Blackwell x 4, driver 580.95.05", "RTX PRO 6000 Blackwell", 4),
    ("Hardware: 2x DGX Spark", "DGX Spark", 1),  # two machines, one GB10 each
    ("GPU: Nvidia", None, 0),  # Ollama's form answer names no model
    ("GPU KV cache size: 1,234 tokens", None, 0),
])
def test_labelled_gpus(line, name, count):
    gpus = diagnose_text(line + "\n").reading.facts.labelled_gpus
    assert len(gpus) == count and (gpus[0].name if gpus else None) == name


def test_a_labelled_gpu_yields_to_a_dump_and_to_the_stated_hardware():
    dump = "- **GPU**: RTX 4090\nGPU 0: NVIDIA GeForce RTX 5090\n"
    assert diagnose_text(dump).deployment.facts.gpus[0].name == "NVIDIA GeForce RTX 5090"
    on_h100 = diagnose_text("- **GPU**: RTX 5090\n", profile_base("h100-sxm-x8"))
    assert {gpu.compute_capability for gpu in on_h100.deployment.facts.gpus} == {"9.0"}
    alone = diagnose_text("- **GPU**: RTX 5090\n")
    assert alone.deployment.sources["gpu 0"] == "log line 1 (capability from its name) (the report's own words)"


def test_check_env_groups_gpus_with_their_capability():
    facts = diagnose_text("GPU 0,1,2,3: NVIDIA RTX PRO 6000 Blackwell Workstation Edition\n"
                          "GPU 0,1,2,3 Compute Capability: 12.0\nsglang: 0.5.9\n").reading.facts
    assert sorted(facts.gpus) == [0, 1, 2, 3] and {g.capability for g in facts.gpus.values()} == {"12.0"}
    assert facts.engine.value == "sglang"


@pytest.mark.parametrize(("line", "wsl", "windows", "arch"), [
    ("OS                           : Ubuntu 24.04.3 LTS (aarch64)", None, None, "aarch64"),
    ("Operating systems: Windows", None, "Windows", None),
    ("- OS: Windows 10 (build 19045)", None, "Windows", None),
    ("OS: WSL2", True, None, None),
    ("OS: Linux", None, None, None),
])
def test_os_lines(line, wsl, windows, arch):
    facts = diagnose_text(line + "\n").reading.facts
    assert (facts.wsl.value if facts.wsl else None) == wsl
    assert (facts.host_os.value if facts.host_os else None) == windows
    assert (facts.host_arch.value if facts.host_arch else None) == arch


def test_a_command_quoted_in_prose_ends_at_its_backtick():
    facts = diagnose_text("I ran `vllm serve Qwen/Qwen3-8B --tensor-parallel-size 2` and it failed with "
                          "`--enforce-eager` too.\n").reading.facts
    assert facts.model.value == "Qwen/Qwen3-8B"
    assert facts.argv.value == ["--tensor-parallel-size", "2"]


def test_the_topology_matrix_gives_the_links_between_the_logged_gpus():
    entry = next(b for b in BODIES if b["file"].startswith("sglang-4812"))
    diagnosis = _diagnose_body(entry)
    kinds = {(link.a, link.b): link.kind for link in diagnosis.deployment.facts.topology}
    assert kinds == {(0, 1): "NODE", (0, 2): "SYS", (0, 3): "SYS", (1, 2): "SYS", (1, 3): "SYS", (2, 3): "NODE"}
    assert diagnosis.deployment.sources["topology"] == "log line 26 (nvidia-smi topo -m)"


def test_a_topology_without_named_gpus_changes_nothing():
    """An 8x B300 pip list with the matrix but no GPU names: no GPUs, so no links either."""
    entry = next(b for b in BODIES if b["file"].startswith("vllm-28707"))
    diagnosis = _diagnose_body(entry)
    assert len(diagnosis.reading.facts.links) == 9 and not diagnosis.deployment.facts.topology


TRTLLM_FORM = """### System Info

- CPU architecture (e.g., x86_64, aarch64): aarch64
- GPU properties
  - GPU name (e.g., NVIDIA H100, NVIDIA A100, NVIDIA L40S): NVIDIA GB10
- Libraries
  - TensorRT-LLM branch or tag (e.g., main, v0.7.1): v1.2.0rc6
  - TensorRT-LLM commit (if known)
- NVIDIA driver version: 580.95.05
- OS (Ubuntu 24.04, CentOS 8): Ubuntu 24.04
"""


def test_tensorrt_llm_system_info_answers():
    diagnosis = diagnose_text(TRTLLM_FORM)
    facts = diagnosis.reading.facts
    assert facts.engine.value == "tensorrt-llm" and facts.versions["tensorrt-llm"].value == "1.2.0rc6"
    assert facts.host_arch.value == "aarch64" and facts.driver.value == "580.95.05"
    assert diagnosis.deployment.facts.gpus[0].compute_capability == "12.1"


def test_an_unfilled_tensorrt_llm_form_states_nothing():
    unfilled = "\n".join(line.split(":")[0] if "(" in line else line for line in TRTLLM_FORM.splitlines())
    facts = diagnose_text(unfilled + "\n").reading.facts
    assert not facts.versions and facts.host_arch is None and not facts.gpus and facts.driver is not None

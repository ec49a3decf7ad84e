"""tools/sglang_pins.py: what each SGLang release wheel pins, and the kernel -> torch table SGL181 reads."""

import json
from pathlib import Path

from packaging.version import Version

from doctor.engines.sglang.pins import kernel_built_for, pinned
from doctor.engines.sglang.releases import RELEASES
from tools.sglang_pins import pins_of, table

DATA = Path(__file__).resolve().parents[2] / "doctor" / "data"
FACTS = json.loads((DATA / "sglang_facts.json").read_text())


def test_the_committed_table_is_the_one_the_facts_give():
    assert json.loads((DATA / "sglang_pins.json").read_text()) == table(FACTS)


def test_every_release_read_has_its_torch_pin():
    read = [v for v in RELEASES if "flags" in FACTS[v]]
    assert read and all(FACTS[v]["pins"].get("torch") for v in read)


def test_kernel_builds_agree_with_the_kernel_wheels_own_readme():
    # the kernel wheels' README says "Requires torch == 2.9.1" (sgl-kernel 0.3.21) and "== 2.11.0" (sglang-kernel 0.4.4)
    assert kernel_built_for("0.3.21") == "2.9.1"
    assert kernel_built_for("0.4.4+cu130") == "2.11.0"
    assert kernel_built_for("0.1.2.post1") is None


def test_pins_of_reads_exact_pins_unconditional_or_under_srt():
    lines = ['torch==2.11.0', 'sglang-kernel==0.4.4', 'flashinfer_python[cu13]==0.6.12', 'numpy',
             'sgl-kernel==0.3.5; extra == "srt"', 'torch>=2.0', 'vllm==0.9.0; extra == "vllm"', 'not a requirement !']
    assert pins_of(lines) == {"torch": "2.11.0", "sglang-kernel": "0.4.4", "flashinfer-python": "0.6.12",
                              "sgl-kernel": "0.3.5"}


def test_pinned_is_per_release():
    assert pinned(Version("0.5.14")) == {"flashinfer-python": "0.6.12", "sglang-kernel": "0.4.4", "torch": "2.11.0"}


"""Every finding's printed text (title, message, fixes) on the public failure cases (tests/cases) and the known-good
corpus (tests/knowngood) says its values in words: no `?`, `[?]` or `[]` where a fact was missing or empty, no
Python `None`, no `{path}` template left unfilled. A missing fact prints conditions.NOT_KNOWN."""

from __future__ import annotations

import re

import pytest

from doctor.pipeline.conditions import render
from tests.cases.deployment import fix_texts, load_cases, run_case
from tests.knowngood.corpus import load_entries, run_entry

PLACEHOLDER_TEXT = re.compile(
    r"(?<![\w)\]\"'`?])\?(?![\w?])"  # a bare `?` standing for a value (a question mark follows a word)
    r"|\[\s*\]"  # an empty list printed as []
    r"|(?<![=:\w])None\b"  # Python's None (`block_size=None` quoting an engine's own repr is kept)
    r"|\{[a-z_]+(?:\.[\w-]+)+\}"  # a `{fact.path}` template left unfilled
)


def bad_text(finding) -> list[str]:
    texts = [("title", finding.title), ("message", finding.message), *(("fix", t) for t in fix_texts(finding))]
    return [f"{finding.id} {where}: ...{t[max(0, m.start() - 60):m.end() + 30]}..."
            for where, t in texts for m in PLACEHOLDER_TEXT.finditer(t or "")]


@pytest.mark.parametrize("text", ["flashinfer-cubin 0.6.1 (?) carries [?]; nothing", "CUDA ?;", "archs are []",
                                  "variant None", "MAX_JOBS {env.MAX_JOBS}"])
def test_the_detector_catches_placeholders(text):
    assert PLACEHOLDER_TEXT.search(text)


@pytest.mark.parametrize("text", ["is it installed? Run", "block_size=None,", '`"options": {"use_mmap": false}`',
                                  "--compilation-config {\"cudagraph_mode\":\"piecewise\"}"])
def test_the_detector_passes_words_and_quoted_json(text):
    assert not PLACEHOLDER_TEXT.search(text)


def test_a_missing_fact_renders_in_words():
    context = {"lib": {"torch": {"arch_list": []}}}
    rendered = render("CUDA {lib.torch.cuda_version}; archs [{lib.torch.arch_list}]", context)
    assert rendered == "CUDA not known; archs [none]"


def test_the_failure_cases_print_no_placeholder():
    bad = [f"{case.id}: {line}" for case in load_cases() for f in run_case(case).findings for line in bad_text(f)]
    assert not bad, "\n".join(bad[:40])


def test_the_known_good_corpus_prints_no_placeholder():
    bad = [f"{entry.id}: {line}" for entry in load_entries() for f in run_entry(entry).findings
           for line in bad_text(f)]
    assert not bad, "\n".join(bad[:40])


def _fi001(engine: str) -> str:
    from tests.rules.builders import build, findings

    [finding] = findings(build("dgx-spark", "nvidia/Kimi-K2.5-NVFP4", (engine,)))["FI001"]
    return finding.message


def test_fi001_names_the_archs_of_an_audited_cubin_release():
    # vLLM 0.20.1 pins flashinfer-cubin 0.6.8.post1, audited from its wheel (doctor/data/wheel_archs.json)
    assert _fi001("vllm==0.20.1").startswith("flashinfer-cubin 0.6.8.post1 carries [sm_100, sm_100a, sm_103a] (")


def test_fi001_says_in_words_that_a_cubin_release_was_not_audited():
    # SGLang 0.5.6 pins flashinfer-cubin 0.5.3, whose wheel was never read
    assert _fi001("sglang==0.5.6").startswith("flashinfer-cubin 0.5.3 has archs this doctor never audited; no audited")


@pytest.mark.slow
def test_the_bundled_model_grid_prints_no_placeholder():
    """Every bundled model x the grid's hardware profiles and engine releases (tests/fix_consistency.py, about
    1,400 reports, 40 s): the same check as the cases and the corpus."""
    from tests.fix_consistency import grid_reports

    bad = [f"{label}: {line}" for label, report in grid_reports() for f in report.findings for line in bad_text(f)]
    assert not bad, "\n".join(bad[:40])

"""Every public log excerpt is diagnosed to its rule and fix; errors of other GPUs or causes are claimed by no
rule; clean logs claim nothing."""

from __future__ import annotations

import re

import pytest

from tests.diagnose.corpus import LOGS, diagnose_case, fix_texts, load_corpus

CORPUS = load_corpus()
PUBLIC = re.compile(r"^https://github\.com/[\w.-]+/[\w.-]+/(issues|pull|discussions)/\d+$")


def _marked(case):
    return pytest.param(case, id=case.file, marks=pytest.mark.xfail(reason=case.miss, strict=True)) \
        if case.miss else pytest.param(case, id=case.file)


@pytest.mark.parametrize("case", [_marked(c) for c in CORPUS])
def test_log_is_diagnosed(case):
    diagnosis = diagnose_case(case)
    claimed = [e.rule for e in diagnosis.explanations]
    if case.clean:
        assert diagnosis.error is None and not claimed, (case.url, diagnosis.error, claimed)
    elif case.expect == "":
        assert diagnosis.error is not None, case.url
        assert not claimed and diagnosis.unexplained, (case.url, claimed)
    else:
        assert claimed and claimed[0] == case.expect, (case.url, claimed)
        assert any(case.fix.lower() in t.lower() for t in fix_texts(diagnosis)), (case.url, fix_texts(diagnosis))


def test_corpus_is_public_and_complete():
    assert len(CORPUS) >= 36
    assert len({c.url for c in CORPUS}) == len(CORPUS)
    assert all(PUBLIC.match(c.url) for c in CORPUS)
    assert {c.file for c in CORPUS} == {p.name for p in LOGS.glob("*.log")}
    explained = [c for c in CORPUS if c.expect]
    assert len(explained) >= 17 and all(c.fix for c in explained)


def test_numbers_tie_the_error_to_the_kernel():
    """With the deployment known (an SGLang 0.5.8 log on an RTX PRO 6000 serving GLM-4.7-FP8), the logged
    Required bytes equal the fused-MoE default config the doctor works out: the finding is tied, not guessed."""
    import io

    from doctor.diagnose.diagnosis import diagnose
    from tests.diagnose.corpus import empty_base

    log = (b"[2026-01-10 10:00:00] server_args=ServerArgs(model_path='zai-org/GLM-4.7-FP8', tp_size=8)\n"
           b"[pip3] sglang==0.5.8\n"
           b"GPU 0: NVIDIA RTX PRO 6000 Blackwell Server Edition\n"
           b"[2026-01-10 10:00:09 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
           b'  File "/usr/local/lib/python3.12/dist-packages/sglang/srt/layers/moe/fused_moe_triton/fused_moe.py"\n'
           b"triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 147456, "
           b"Hardware limit: 101376. Reducing block sizes or `num_stages` may help.\n")
    diagnosis = diagnose(io.BufferedReader(io.BytesIO(log)), "t", empty_base(), "nothing", {})
    top = diagnosis.explanations[0]
    assert (top.rule, top.status) == ("SGL102", "tied")
    assert top.hit.line == 6 and top.hit.groups == {"item_bytes": "147456", "item_limit": "101376"}
    assert diagnosis.launch_for(top) is not None

"""A log pasted into an engine's GitHub issue form (the form as GitHub renders it: headings, the environment
field's `<details>` block, fences, ticked checklists, prose that quotes a flag in backticks; or the log quoted
with `> `; or the whole body with CRLF line ends) is diagnosed as the log alone: the same first finding, the
same 'nothing claimed' for a log no rule may claim and for a clean one. The fast set wraps every fourth log of
the corpus (each in another form and shape); the slow set wraps every log in every form and shape."""

from __future__ import annotations

import functools
import io

import pytest

from doctor.diagnose.diagnosis import diagnose
from tests.diagnose.corpus import LOGS, diagnose_case, empty_base, load_corpus
from tests.diagnose.issue_forms import forms, render

CORPUS = load_corpus()
SHAPES = ("fenced", "quoted", "crlf")


def _first(diagnosis) -> str | None:
    return diagnosis.explanations[0].rule if diagnosis.explanations else None


def _wrapped(case, form: str, shape: str):
    from doctor.hardware import load_profile

    log = (LOGS / case.file).read_bytes().decode("utf-8", "replace")
    body = render(form, log, quoted=shape == "quoted", crlf=shape == "crlf").encode()
    base = load_profile(case.hardware) if case.hardware else empty_base()
    return diagnose(io.BufferedReader(io.BytesIO(body)), case.file, base, "test", {})


def _params(step: int) -> list:
    out = []
    for n, case in enumerate(CORPUS[::step]):
        combos = [(forms()[n % 3], SHAPES[(n // 3) % 3])] if step > 1 else \
            [(form, shape) for form in forms() for shape in SHAPES]
        out += [pytest.param(case, form, shape, id=f"{case.file}-{form.split('-')[0]}-{shape}")
                for form, shape in combos]
    return out


@functools.cache
def _alone(case) -> tuple[str | None, bool]:
    diagnosis = diagnose_case(case)
    return _first(diagnosis), diagnosis.error is None


def _same_first_finding(case, form: str, shape: str) -> None:
    first, clean = _alone(case)
    wrapped = _wrapped(case, form, shape)
    assert _first(wrapped) == first, (case.url, form, shape, first, _first(wrapped))
    assert (wrapped.error is None) == clean, (case.url, form, shape)


@pytest.mark.parametrize(("case", "form", "shape"), _params(4))
def test_a_log_in_an_issue_form_keeps_its_first_finding(case, form, shape):
    _same_first_finding(case, form, shape)


@pytest.mark.slow
@pytest.mark.parametrize(("case", "form", "shape"), _params(1))
def test_every_log_in_every_form_keeps_its_first_finding(case, form, shape):
    _same_first_finding(case, form, shape)

"""A log pasted into an engine's GitHub issue form (the form as GitHub renders it: headings, the environment
field's `<details>` block, fences, ticked checklists, prose that quotes a flag in backticks; or the log quoted
with `> `; or the whole body with CRLF line ends) is diagnosed as the log alone: the same first finding, the
same 'nothing claimed' for a log no rule may claim and for a clean one. The fast set wraps every fourth log of
the corpus, the slow set every log, each in one form and shape, rotating through all nine (every log in every
form and shape is `python bench/diagnose_bodies.py --forms 1`: about 40 minutes on two cores, too long for CI)."""

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


def _params(step: int, offset: int = 0) -> list:
    """Every `step`-th log of the corpus, the n-th in form n % 3 and shape (n // 3) % 3, shifted by `offset`."""
    out = []
    for n, case in enumerate(CORPUS[::step], start=offset):
        form, shape = forms()[n % 3], SHAPES[(n // 3) % 3]
        out.append(pytest.param(case, form, shape, id=f"{case.file}-{form.split('-')[0]}-{shape}"))
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
@pytest.mark.parametrize(("case", "form", "shape"), _params(1, offset=1))
def test_every_log_in_an_issue_form_keeps_its_first_finding(case, form, shape):
    _same_first_finding(case, form, shape)

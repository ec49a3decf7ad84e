"""The known-good corpus with each entry's engine release removed (`--engine NAME`, as most public reports
give it): evaluated at every release the doctor knows and merged, none may get an error. An error that holds
at every release holds at the entry's own release too, so this fails only when the merge promotes or a
release outside the entry's keeps an error it should have turned into a warning."""

from __future__ import annotations

import dataclasses

import pytest

from doctor.engines import registry
from doctor.pipeline.check import check_facts
from tests.deployments import facts_for, launch_args, launch_file_for
from tests.knowngood.corpus import MODELS, Entry, engine_of, load_entries

ENTRIES = load_entries()
STATED = [e for e in ENTRIES if any(spec.partition("==")[0] == engine_of(e) for spec in e.engines)]


def run_unstated(entry: Entry):
    name = engine_of(entry)
    engine = registry.get(name)
    assert engine is not None
    kept = tuple(spec for spec in entry.engines if spec.partition("==")[0] != name)
    facts = facts_for(dataclasses.replace(entry, engines=kept), MODELS)
    facts = facts.replace(libraries={k: v for k, v in facts.libraries.items() if k != engine.package and not
                                     str(v.details.get("implied_by", "")).startswith(f"{engine.package}==")})
    image, recipe = launch_file_for(entry, MODELS.parent)
    launch_file = {"image": image, "recipe": recipe} if image or recipe else None
    return check_facts(facts, launch_args(entry, MODELS.parent), launch_file=launch_file,
                       unstated={name: "named"})


def test_most_entries_state_their_release():
    assert len(STATED) >= 100


@pytest.mark.parametrize("entry", [pytest.param(e, id=e.id) for e in STATED if not e.pending])
def test_a_deployment_that_served_gets_no_error_at_an_unstated_release(entry):
    report = run_unstated(entry)
    assert report.releases_evaluated and report.releases_evaluated[0]["engine"] == engine_of(entry)
    errors = [f for f in report.findings if f.severity == "error"]
    detail = "; ".join(f"{f.id}: {f.message}" for f in errors)
    assert not errors, f"{entry.url}: error findings {sorted({f.id for f in errors})} ({detail})"

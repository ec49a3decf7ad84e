"""GitHub workflow commands: one per finding, file and line where known, GitHub's own escaping."""

from __future__ import annotations

from doctor.formats.github import render_github, workflow_command
from doctor.located import Problem, Span


def test_escaping_follows_the_actions_toolkit():
    line = workflow_command("error", "50% done\nnext: line", Span("a,b:c.sh", 3, 5), "SGL101: x, y")
    assert line == "::error file=a%2Cb%3Ac.sh,line=3,endLine=5,title=SGL101%3A x%2C y::50%25 done%0Anext: line"


def test_without_a_file_the_annotation_has_only_a_title():
    assert workflow_command("notice", "m", None, "T") == "::notice title=T::m"


def test_problems_are_errors_at_their_line():
    text = render_github([], [Problem(Span("x.sh", 2, 2), "model not found")])
    assert text == "::error file=x.sh,line=2,endLine=2,title=sm120-doctor could not analyse this::model not found"

"""Hostile input: binary, gzip, NULs, invalid UTF-8, giant lines, regex-bomb text, missing files; the CLI's
exit codes, JSON schema and the Markdown report's redaction; signature validation on rule load."""

from __future__ import annotations

import gzip
import io
import json

import pytest

from doctor.cli import main
from doctor.diagnose.diagnosis import diagnose
from doctor.diagnose.signatures import SignatureError, validate_signature
from doctor.diagnose.stream import MAX_CARRY, MAX_LINE
from tests.diagnose.corpus import LOGS, empty_base

NO_IMAGE = b"RuntimeError: CUDA error: no kernel image is available for execution on the device\n"
VLLM = b"INFO 05-26 07:50:26 [api_server.py:1043] vLLM API server version 0.9.0\n"


def run(data: bytes):
    return diagnose(io.BufferedReader(io.BytesIO(data)), "t", empty_base(), "nothing", {})


def test_binary_is_one_line_exit_2(tmp_path, capsys):
    path = tmp_path / "core"
    path.write_bytes(bytes(range(256)) * 64)
    assert main(["diagnose", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "binary data" in err


def test_missing_file_is_one_line_exit_2(tmp_path, capsys):
    assert main(["diagnose", str(tmp_path / "nope.log")]) == 2
    assert "cannot read log" in capsys.readouterr().err


def test_gzip_log_is_read(tmp_path):
    path = tmp_path / "log.gz"
    path.write_bytes(gzip.compress(VLLM + NO_IMAGE))
    with path.open("rb") as stream:
        d = diagnose(stream, "log.gz", empty_base(), "nothing", {})
    assert d.explanations[0].rule == "VLLM001"


def test_nuls_ansi_invalid_utf8_and_crlf():
    data = (b"\x1b[32mINFO\x1b[0m 05-26 07:50:26 [api_server.py:1043] vLLM API server \x00version 0.9.0\r\n"
            b"\xff\xfe garbage \xc3\x28\r\n" + NO_IMAGE.replace(b"\n", b"\r\n"))
    d = run(data)
    assert d.deployment.engine == "vllm" and d.explanations[0].rule == "VLLM001"
    assert d.explanations[0].hit.line == 3


def test_giant_line_is_cut_and_later_lines_keep_their_numbers():
    data = VLLM + b"x" * (MAX_CARRY * 3) + b"\n" + NO_IMAGE
    d = run(data)
    assert d.reading.stats.lines == 3 and d.explanations[0].hit.line == 3


def test_giant_error_line_is_cut():
    d = run(b"RuntimeError: " + b"a" * (MAX_LINE * 8) + b"\n")
    assert d.error is not None and len(d.error[1]) <= 400 and d.reading.stats.cut_lines == 1


def test_regex_bomb_text_is_linear():
    import time

    bomb = (b"a." * 200_000 + b"(" * 100_000 + b"Error" + b"a" * 200_000 + b"\n") * 4
    start = time.perf_counter()
    run(bomb + NO_IMAGE)
    assert time.perf_counter() - start < 5


def test_empty_log_says_no_error():
    d = run(b"")
    assert d.error is None and not d.explanations and not d.fails("info")


def test_exit_codes_and_json(tmp_path, capsys):
    from doctor.output import json_text  # noqa: F401 (the JSON writer the command uses)

    log = LOGS / "triton-8539-ptxas-sm121a-spark.log"
    assert main(["diagnose", str(log), "--hardware", "dgx-spark", "--format", "json"]) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["schema_version"] == "1" and doc["explanations"][0]["rule"] == "TRI002"
    _validate(doc)
    assert main(["diagnose", str(log), "--hardware", "dgx-spark", "--fail-on", "never"]) == 0
    capsys.readouterr()
    clean = LOGS / "clean-sglang-6001-tp-startup.log"
    assert main(["diagnose", str(clean), "--hardware", "rtx-5090", "--format", "json"]) == 0
    _validate(json.loads(capsys.readouterr().out))


def _validate(doc):
    from tests.schemas import validate

    validate("diagnose", doc)  # its report against report.schema.json, resolved among the published schemas


def test_markdown_is_redacted(tmp_path, capsys):
    path = tmp_path / "secret.log"
    path.write_bytes((LOGS / "nccl-tests-287-nccl2251-5090.log").read_bytes() +
                     b"HF_TOKEN=hf_abcdefghijklmnopqrstuvwxyz0123 /home/alice/models/x\n")
    assert main(["diagnose", str(path), "--format", "markdown", "--hardware", "rtx-5090-x2"]) == 1
    out = capsys.readouterr().out
    assert "## COMM001" in out and "<details><summary>Environment</summary>" in out
    for secret in ("hf_abcdef", "alice", "192.168.1.250", "GENOA-06"):
        assert secret not in out, secret


def test_check_markdown(capsys):
    code = main(["check", "zai-org/GLM-4.7-FP8", "--hardware", "rtx-pro-6000-x8", "--engine", "sglang==0.5.8",
                 "--format", "markdown", "--isolated"])
    out = capsys.readouterr().out
    assert code == 1 and "### What fails" in out and "SGL102" in out and "<details>" in out


@pytest.mark.parametrize("raw, message", [
    ({"text": "x"}, "must cite"),
    ({"text": "x", "pattern": "y", "url": "https://a"}, "exactly one"),
    ({"pattern": "(unclosed", "url": "https://a"}, "not an re2 pattern"),
    ({"pattern": "(a)\\1", "url": "https://a"}, "not an re2 pattern"),
    ({"text": "x", "url": "https://a", "bogus": 1}, "unknown key"),
])
def test_bad_signatures_are_refused(raw, message):
    with pytest.raises(SignatureError, match=message):
        validate_signature(raw)


def test_every_rule_files_signatures_validate_and_cite_a_report():
    """The knowledge base's signatures all load (validated, RE2-compiled), belong to rules that exist, and cite a
    public report; a malformed one is one clear error naming its file and rule."""
    from doctor.diagnose.signatures import compile_signatures, rule_signatures
    from doctor.pipeline.rules import load_rules

    table = rule_signatures()
    assert len(table) >= 20 and set(table) <= {r.id for r in load_rules()}
    assert all(s["url"].startswith("https://github.com/") for raws in table.values() for s in raws)
    assert len(compile_signatures(table)) == sum(len(raws) for raws in table.values())


def test_a_bad_signature_in_a_rule_file_names_the_rule(tmp_path):
    from doctor.diagnose.signatures import _read_signatures
    from doctor.pipeline.rules import RuleError

    bad = tmp_path / "x.toml"
    bad.write_text('[[rules]]\nid = "ABC101"\n'
                   'signatures = [{ pattern = "(a)\\\\1", url = "https://github.com/a/b/issues/1" }]\n')
    with pytest.raises(RuleError, match=r"x.toml: rule ABC101: signature 1 pattern"):
        _read_signatures([bad])


def test_this_machine_fills_the_report_but_only_the_log_rules_out():
    """Without --hardware/--facts/--engine the base is the machine running the doctor, not the one that wrote
    the log: an H100 here must not rule out the SM12x causes of a log that names no GPU. Named explicitly, the
    same facts do rule them out."""
    from doctor.hardware import load_profile

    here = load_profile("h100-sxm-x8")
    log = io.BufferedReader(io.BytesIO(NO_IMAGE))
    implicit = diagnose(log, "t", here, "this machine", {}, judge_on_log_only=True)
    assert implicit.explanations and implicit.explanations[0].rule == "TORCH001"
    explicit = diagnose(io.BufferedReader(io.BytesIO(NO_IMAGE)), "t", here, "profile h100-sxm-x8", {})
    assert not explicit.explanations and {r.rule for r in explicit.ruled_out} >= {"TORCH001", "TORCH002"}


def test_random_and_mangled_logs_never_raise():
    """Random bytes, and real logs cut, shuffled and spliced at random: a result or one InputError, nothing else."""
    import contextlib
    import random

    from doctor.errors import InputError

    rng = random.Random(1795)
    corpus = [p.read_bytes() for p in sorted(LOGS.glob("*.log"))]
    for _ in range(150):
        pieces = [rng.choice(corpus) for _ in range(rng.randint(1, 4))]
        data = b"".join(p[rng.randint(0, len(p)):] + p[: rng.randint(0, len(p))] for p in pieces)
        lines = data.split(b"\n")
        rng.shuffle(lines)
        data = b"\n".join(lines)
        if rng.random() < 0.3:
            data += bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 2000)))
        with contextlib.suppress(InputError):  # binary enough to refuse: the one clear line
            run(data)

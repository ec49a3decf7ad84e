"""Finding launches in files: every file kind, the forms people write, and where each launch is."""

from __future__ import annotations

from pathlib import Path

import pytest

from doctor.errors import InputError
from doctor.lint import expand_paths, launches_in_file
from doctor.lint.argv import EngineLaunch, Script, recognise
from doctor.lint.pins import image_pin, pip_pins, split_image
from doctor.lint.shell import shell_commands
from doctor.located import ALL_RULES

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "launch"
GLM = "zai-org/GLM-4.7-FP8"


def sites(tmp_path: Path, name: str, text: str):
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return launches_in_file(path, name)


@pytest.mark.parametrize(("name", "line", "end_line", "pinned"), [
    ("serve-glm-sglang.sh", 8, 12, None),
    ("Dockerfile", 7, 9, "0.5.8"),
    ("sglang-glm.service", 7, 8, None),
    ("k8s/glm-sglang.yaml", 19, 26, "0.5.8"),
    ("k8s/glm-sglang-shell.yaml", 15, 15, "0.5.8"),
])
def test_every_fixture_launch_is_found_at_its_line(name, line, end_line, pinned):
    [site] = launches_in_file(FIXTURES / name, name)
    assert (site.line, site.end_line, site.engine, site.model) == (line, end_line, "sglang", GLM)
    assert site.engine_args[:2] == ("--tp", "8")
    assert (site.pin.version if site.pin else None) == pinned


def test_compose_file_has_one_launch_per_service_with_image_pins():
    sglang, vllm = launches_in_file(FIXTURES / "docker-compose.yml")
    assert (sglang.line, sglang.engine, sglang.pin.version, sglang.pin.line) == (10, "sglang", "0.5.8", 4)
    # vLLM's image runs its server as ENTRYPOINT: `command:` holds only flags
    assert (vllm.line, vllm.engine, vllm.model, vllm.pin.version) == (27, "vllm", GLM, "0.14.0")
    assert vllm.engine_args == ("--tensor-parallel-size", "8")
    assert sglang.env == {"HF_HUB_ENABLE_HF_TRANSFER": "0"}


def test_folders_are_searched_for_launch_files_only(tmp_path):
    (tmp_path / "deploy").mkdir()
    (tmp_path / "deploy" / "serve.sh").write_text("vllm serve m\n")
    (tmp_path / "deploy" / "notes.txt").write_text("python -m sglang.launch_server --model-path m\n")
    (tmp_path / ".venv").mkdir()
    (tmp_path / ".venv" / "x.sh").write_text("vllm serve m\n")
    assert [p.name for p in expand_paths([tmp_path])] == ["serve.sh"]
    assert len(expand_paths([tmp_path, tmp_path / "deploy" / "serve.sh"])) == 1
    with pytest.raises(InputError, match="no such file"):
        expand_paths([tmp_path / "missing.sh"])


@pytest.mark.parametrize(("argv", "engine", "model", "args"), [
    ("python3 -m sglang.launch_server --model-path M --tp 8", "sglang", "M", ("--tp", "8")),
    ("python -u -m sglang.launch_server --model=M --tp-size 2", "sglang", "M", ("--tp-size", "2")),
    ("sglang serve --model-path M --tp 4", "sglang", "M", ("--tp", "4")),
    ("vllm serve M --tensor-parallel-size 8", "vllm", "M", ("--tensor-parallel-size", "8")),
    ("python3 -m vllm.entrypoints.openai.api_server --model M -tp 2", "vllm", "M", ("-tp", "2")),
    ("trtllm-serve serve M --tp_size 8", "tensorrt-llm", "M", ("--tp_size", "8")),
    ("trtllm-serve M --tp_size 8", "tensorrt-llm", "M", ("--tp_size", "8")),
    ("llama-server -m /m.gguf -ngl 99", "llama.cpp", "/m.gguf", ("-ngl", "99")),
    ("CUDA_VISIBLE_DEVICES=0,1 exec nohup vllm serve M", "vllm", "M", ()),
    ("env -u X A=1 python3 -m sglang.launch_server --model-path M \"$@\"", "sglang", "M", ()),
])
def test_launchers_engines_models_and_flags(argv, engine, model, args):
    import shlex

    found = recognise(shlex.split(argv))
    assert isinstance(found, EngineLaunch)
    assert (found.engine, found.model, found.engine_args) == (engine, model, args)


def test_docker_run_gives_image_env_and_keeps_an_engine_images_entrypoint():
    found = recognise(["docker", "run", "--gpus", "all", "-e", "VLLM_X=1", "--rm", "-p", "8000:8000",
                       "vllm/vllm-openai:v0.11.0", "--model", "M"])
    assert isinstance(found, EngineLaunch)
    assert (found.engine, found.model, found.image, found.env) == ("vllm", "M", "vllm/vllm-openai:v0.11.0",
                                                                   {"VLLM_X": "1"})
    assert recognise(["docker", "run", "--entrypoint", "bash", "vllm/vllm-openai:v0.11.0", "--model", "M"]) is None


def test_shell_dash_c_is_a_script_to_scan():
    found = recognise(["/bin/bash", "-lc", "python3 -m sglang.launch_server --model-path M"])
    assert isinstance(found, Script) and "sglang.launch_server" in found.text
    assert recognise(["echo", "python3", "-m", "x"]) is None


def test_shell_variables_continuations_heredocs_and_redirections():
    text = "\n".join([
        'MODEL="${MODEL:-zai-org/GLM-4.7-FP8}"',
        'FLAGS="--tp 8 --mem-fraction-static 0.9"',
        "export SGLANG_DISABLE_CUDNN_CHECK=1",
        "cat <<EOF > note.txt",
        "python3 -m sglang.launch_server --model-path inside-a-heredoc",
        "EOF",
        "python3 -m sglang.launch_server \\",
        "  --model-path $MODEL \\",
        "  $FLAGS 2>&1 | tee log",
    ])
    launch = [c for c in shell_commands(text) if "sglang.launch_server" in c.argv]
    assert len(launch) == 1
    assert launch[0].argv[3:] == ("--model-path", GLM, "--tp", "8", "--mem-fraction-static", "0.9")
    assert (launch[0].line, launch[0].end_line) == (7, 9)
    assert launch[0].env == {"SGLANG_DISABLE_CUDNN_CHECK": "1"}


def test_a_multi_line_quoted_script_in_a_shell_file_points_at_its_own_line(tmp_path):
    [site] = sites(tmp_path, "run.sh", 'bash -c "echo start\npython3 -m sglang.launch_server --model-path M"\n')
    assert site.line == 1  # the quoted script is one shell word: its launch is the bash line


def test_dockerfile_shell_form_entrypoint_and_arg_expansion(tmp_path):
    [site] = sites(tmp_path, "Dockerfile", "ARG TAG=v0.5.9\nFROM lmsysorg/sglang:${TAG}\n"
                                           "ENTRYPOINT python3 -m sglang.launch_server --model-path M --tp 2\n")
    assert (site.line, site.model, site.pin.version, site.pin.line) == (3, "M", "0.5.9", 2)


def test_dockerfile_exec_entrypoint_plus_cmd(tmp_path):
    [site] = sites(tmp_path, "app.Dockerfile", 'FROM ubuntu\nENTRYPOINT ["python3", "-m", "sglang.launch_server"]\n'
                                               'RUN pip install "sglang[all]==0.5.8"\n'
                                               'CMD ["--model-path", "M", "--tp", "8"]\n')
    assert (site.line, site.engine_args, site.pin.version) == (4, ("--tp", "8"), "0.5.8")
    assert site.pin.describe() == "pip install sglang==0.5.8 (line 3)"


def test_kubernetes_env_expansion_and_image_entrypoint(tmp_path):
    [site] = sites(tmp_path, "vllm.yaml", "\n".join([
        "apiVersion: v1", "kind: Pod", "spec:", "  containers:", "  - name: v",
        "    image: docker.io/vllm/vllm-openai:v0.15.1", "    env:", "    - {name: M, value: org/model}",
        '    args: ["--model", "$(M)", "--tensor-parallel-size", "2"]']))
    assert (site.engine, site.model, site.line, site.pin.version) == ("vllm", "org/model", 9, "0.15.1")


def test_invalid_yaml_is_one_clear_error(tmp_path):
    with pytest.raises(InputError, match=r"bad\.yaml: not valid YAML: .*\(line \d+\)"):
        sites(tmp_path, "bad.yaml", "services:\n  a: [unclosed\n")


def test_a_variable_model_is_dropped_with_a_note(tmp_path):
    [site] = sites(tmp_path, "x.sh", "vllm serve $UNSET_MODEL --tensor-parallel-size 2\n")
    assert site.model is None and "variable" in site.notes[0]


@pytest.mark.parametrize(("comment", "suppressed"), [
    ("# sm120-doctor: ignore[SGL102]", {"SGL102"}),
    ("# sm120-doctor: ignore[SGL102, topo001]", {"SGL102", "TOPO001"}),
    ("# sm120-doctor: ignore", {ALL_RULES}),
    ("# sm120-doctor: ignore[not-a-rule]", set()),  # a typo suppresses nothing, never everything
    ("# unrelated", set()),
])
def test_inline_suppression_above_or_on_the_launch(tmp_path, comment, suppressed):
    [above] = sites(tmp_path, "a.sh", f"{comment}\nvllm serve m\n")
    [on] = sites(tmp_path, "b.sh", f"vllm serve m \\\n  --tensor-parallel-size 2  {comment}\n")
    [far] = sites(tmp_path, "c.sh", f"{comment}\necho\nvllm serve m\n")
    assert above.suppressed == on.suppressed == suppressed
    assert far.suppressed == set()


@pytest.mark.parametrize(("image", "engine", "version"), [
    ("lmsysorg/sglang:v0.5.8-cu129", "sglang", "0.5.8"),
    ("lmsysorg/sglang:v0.5.8.post1-cu130-runtime", "sglang", "0.5.8.post1"),
    ("docker.io/vllm/vllm-openai:v0.11.0", "vllm", "0.11.0"),
    ("localhost:5000/vllm/vllm-openai:v0.10.1rc1@sha256:abc", "vllm", "0.10.1rc1"),
    # TensorRT-LLM's NGC release containers are tagged with its version (ledger: 1.3.0rc22 in release:1.3.0rc22)
    ("nvcr.io/nvidia/tensorrt-llm/release:1.0.0rc4", "tensorrt-llm", "1.0.0rc4"),
    ("nvcr.io/nvidia/tensorrt-llm/release:spark-single-gpu-dev", None, None),
    ("lmsysorg/sglang:latest", None, None),
    ("lmsysorg/sglang:${TAG}", None, None),
    # NGC: the YY.MM tag is the container release; its release notes name the engine version
    ("nvcr.io/nvidia/vllm:26.03-py3", "vllm", "0.17.1"),
    ("nvcr.io/nvidia/vllm:25.10-py3", "vllm", "0.10.2"),
    ("nvcr.io/nvidia/vllm:25.11-py3", None, None),  # not in the table: never "vLLM 25.11"
    ("nvcr.io/nvidia/sglang:26.02-py3", None, None),
])
def test_image_pins(image, engine, version):
    pin = image_pin(image, 1)
    assert (pin.engine if pin else None, pin.version if pin else None) == (engine, version)


def test_split_image_strips_registry_and_digest():
    assert split_image("ghcr.io/org/vllm:v1@sha256:00") == ("org/vllm", "v1")
    assert split_image("ubuntu") == ("ubuntu", None)


def test_pip_pins_need_an_install():
    pins = pip_pins(["# sglang==0.5.1 was bad", "pip install 'sglang[all]==0.5.9' vllm==0.15.1"])
    assert [(p.engine, p.version, p.line) for p in pins] == [("sglang", "0.5.9", 2), ("vllm", "0.15.1", 2)]


def test_unreadable_and_binary_files_are_input_errors(tmp_path):
    binary = tmp_path / "x.sh"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(InputError, match="not UTF-8"):
        launches_in_file(binary)


def test_a_plug_in_engines_launcher_and_image_are_recognised(monkeypatch):
    from doctor.engines import registry
    from doctor.engines.base import Engine
    from doctor.engines.run import Launcher
    from doctor.lint.pins import image_pin

    class MyServe(Engine):
        name, display_name, package = "myserve", "MyServe", "myserve"
        launchers = (Launcher(command="myserve", subcommand="up", model_flags=("--weights",)),)
        images = (r"^myserve$",)

    known = {**registry.engines(), "myserve": MyServe()}
    monkeypatch.setattr(registry, "engines", lambda: known)
    found = recognise(["myserve", "up", "--weights", "org/m", "--tp", "2"])
    assert isinstance(found, EngineLaunch)
    assert (found.engine, found.model, found.engine_args) == ("myserve", "org/m", ("--tp", "2"))
    assert image_pin("acme/myserve:v1.2.3", 4).version == "1.2.3"
    assert pip_pins(["pip install myserve==1.2.3"])[0].engine == "myserve"


def test_hostile_yaml_is_bounded(tmp_path):
    """An alias bomb is one node per anchor, walked once; nesting past Python's stack is one clear error
    (ours, or PyYAML's own depth limit from 6.0.4)."""
    bomb = ['a0: &a0 {command: "vllm serve m", image: "x"}']
    bomb += [f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}]" for i in range(1, 40)]
    assert len(sites(tmp_path, "bomb.yaml", "\n".join(bomb))) == 1
    with pytest.raises(InputError, match=r"nested too deeply|exceeded maximum nesting depth"):
        sites(tmp_path, "deep.yaml", "[" * 2000 + "]" * 2000)

"""`--ray` without Ray, or with no cluster at the address: one clear line and exit 2."""

import sys

from doctor.cli import main


def test_without_ray_installed(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    assert main(["check", "moonshotai/Kimi-K2-Instruct", "--offline", "--ray", "127.0.0.1:6379"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "pip install 'sm120-doctor[cluster]'" in err[0]


def test_no_cluster_at_the_address(capsys):
    assert main(["check", "moonshotai/Kimi-K2-Instruct", "--offline", "--ray", "127.0.0.1:9"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "no Ray cluster at 127.0.0.1:9" in err[0]


def test_an_address_without_a_port_is_a_usage_error(capsys):
    assert main(["check", "moonshotai/Kimi-K2-Instruct", "--ray", "headnode"]) == 2
    assert "HOST:PORT" in capsys.readouterr().err

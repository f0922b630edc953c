"""`pmemids report` forwards its arguments to the Python package and returns its exit code."""

from __future__ import annotations

from conftest import FIXTURES, run_binary


def test_report_through_the_binary(binary, tmp_path):
    p = run_binary(binary, "report", str(FIXTURES / "real.jsonl"), "--out", str(tmp_path / "out"),
                   "--csv", str(tmp_path / "r.csv"))
    assert p.returncode == 0, p.stderr
    assert (tmp_path / "out" / "index.html").is_file()
    assert (tmp_path / "out" / "figures" / "fig3_single_thread.svg").is_file()
    assert len((tmp_path / "r.csv").read_text().splitlines()) == 1 + 8


def test_help_is_the_reports(binary):
    p = run_binary(binary, "report", "--help")
    assert p.returncode == 0 and p.stdout.startswith("usage: pmemids report")
    assert "--csv" in p.stdout and "--out" in p.stdout


def test_python_errors_propagate(binary, tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text((FIXTURES / "real.jsonl").read_text() + "{oops\n")
    p = run_binary(binary, "report", "--out", str(tmp_path / "out"), str(bad))
    assert p.returncode == 2
    assert f"pmemids report: error: {bad}:9: invalid JSON" in p.stderr
    p = run_binary(binary, "report")
    assert p.returncode == 2 and "pmemids report: error:" in p.stderr


def test_missing_interpreter(binary, tmp_path):
    p = run_binary(binary, "report", str(FIXTURES / "real.jsonl"), "--out", str(tmp_path / "out"),
                   env={"PMEMIDS_PYTHON": str(tmp_path / "no-python")})
    assert p.returncode == 2
    assert "pmemids: error: report: Python interpreter" in p.stderr
    assert str(tmp_path / "no-python") in p.stderr and "scripts/setup.sh" in p.stderr
    assert not (tmp_path / "out").exists()

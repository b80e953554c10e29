"""README.md's set-up commands stay in step with CI and the code."""

import re

from pdbsearch.cli import build_parser


def _code_blocks(text):
    return re.findall(r"```sh\n(.*?)```", text, re.S)


def test_ci_runs_the_readme_test_command(repo):
    readme = (repo / "README.md").read_text()
    ci_lines = (repo / ".ci/run").read_text().splitlines()
    command = ci_lines[ci_lines.index("# tests:") + 1]
    blocks = _code_blocks(readme)
    assert blocks[1].strip() == command  # the second set-up command


def test_readme_starts_with_the_two_setup_commands(repo):
    readme = (repo / "README.md").read_text()
    first, second = _code_blocks(readme)[:2]
    assert "pdbsearch solve" in first and "pip install" in first
    assert "pytest" in second and ".[test]" in second


def test_exit_codes_documented(repo):
    readme = (repo / "README.md").read_text()
    for code in range(5):
        assert f"| {code} |" in readme
    assert "3 stopped by a limit" in build_parser().epilog

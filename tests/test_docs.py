"""The examples of docs/api.md, run as doctests from the repository's root."""

import doctest


def test_api_examples_run(repo, monkeypatch):
    monkeypatch.chdir(repo)
    failures, tried = doctest.testfile(str(repo / "docs" / "api.md"), module_relative=False,
                                       optionflags=doctest.ELLIPSIS)
    assert tried > 20
    assert failures == 0

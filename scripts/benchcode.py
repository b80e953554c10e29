"""Copies of the code side by side, for the benchmark scripts that compare
them (``--code NAME=DIR``, DIR holding a ``pdbsearch`` package, say a
``git archive`` of a commit)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path


def parse_code(spec: str, needs: tuple[str, ...] = ()) -> tuple[str, Path]:
    """``NAME=DIR`` as a name and a resolved directory holding a
    ``pdbsearch`` package and the files ``needs`` (paths inside DIR)."""
    name, _, directory = spec.partition("=")
    if not name or not directory:
        raise argparse.ArgumentTypeError(f"{spec!r}: expected NAME=DIR")
    path = Path(directory).resolve()
    if not (path / "pdbsearch" / "__init__.py").is_file():
        raise argparse.ArgumentTypeError(f"{path}: no pdbsearch package there")
    for needed in needs:
        if not (path / needed).is_file():
            raise argparse.ArgumentTypeError(f"{path}: no {needed} there")
    return name, path


def code_env(code: Path) -> dict[str, str]:
    """The environment of a process that imports ``pdbsearch`` from ``code``:
    its directory first on the path (run it from a directory holding no
    other copy)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(code), *filter(None, [env.get("PYTHONPATH")])])
    return env

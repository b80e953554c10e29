"""Sokoban subcommands of the ``pdbsearch`` command (``levels``)."""

from __future__ import annotations


def add_sokoban_commands(sub) -> None:
    """Add the Sokoban subcommands to the ``pdbsearch`` subparsers."""

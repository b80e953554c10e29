"""``python -m pdbsearch`` runs the command line."""

from .cli import run

run()

"""The ``pdbsearch`` command: a thin layer over the Python API.

One module per subcommand (:mod:`.solve`, :mod:`.build`, :mod:`.compare`,
:mod:`.levels`, :mod:`.generate`), shared options in :mod:`.options`, exit
codes in :mod:`.exitcodes`.  Nothing outside this package imports it.

This module imports nothing heavy at load time: numba and the domains are
imported inside :func:`main`, so that Ctrl-C during start-up is handled
like Ctrl-C anywhere else (``pdbsearch: interrupted``, exit 3).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from typing import Sequence

from .exitcodes import EPILOG, EXIT_BAD_INPUT, EXIT_BUG, EXIT_LIMIT, EXIT_OK

#: The subcommand modules, in the order ``--help`` lists them.
COMMANDS = ("solve", "build", "compare", "levels", "generate")


def build_parser():
    """The argument parser of the ``pdbsearch`` command."""
    import argparse
    import importlib

    from .. import __version__

    parser = argparse.ArgumentParser(
        prog="pdbsearch",
        description="Solve sliding-block puzzles and Sokoban with pattern databases "
                    "and heuristic search.", epilog=EPILOG)
    parser.add_argument("--version", action="version", version=f"pdbsearch {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"{__name__}.{name}").add_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``pdbsearch`` command; returns the exit code."""
    # A process started in the background by a non-interactive shell inherits
    # SIGINT as ignored, and Python then installs no KeyboardInterrupt; the
    # documented Ctrl-C behaviour (stop, keep the figures) needs it back.
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.default_int_handler)
    from ..errors import PdbsearchError
    try:
        args = build_parser().parse_args(argv)
        return args.run(args)
    except PdbsearchError as exc:
        print(f"pdbsearch: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("pdbsearch: interrupted", file=sys.stderr)
        return EXIT_LIMIT
    except BrokenPipeError:
        return EXIT_OK
    except MemoryError:
        print("pdbsearch: error: out of memory; lower --memory-limit or use a smaller "
              "heuristic table", file=sys.stderr)
        return EXIT_LIMIT
    except Exception as exc:  # a bug: one line, the traceback only on request
        if os.environ.get("PDBSEARCH_DEBUG"):
            raise
        print(f"pdbsearch: internal error: {type(exc).__name__}: {exc} (this is a bug; "
              f"set PDBSEARCH_DEBUG=1 for the traceback and please report it)", file=sys.stderr)
        return EXIT_BUG

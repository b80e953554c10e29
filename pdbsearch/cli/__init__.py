"""The ``pdbsearch`` command: a thin layer over the Python API.

One module per subcommand (:mod:`.solve`, :mod:`.build`, :mod:`.compare`,
:mod:`.levels`, :mod:`.generate`, :mod:`.show`, :mod:`.info`), shared options in :mod:`.options`, exit
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

from .._jit_cache import set_compile_notice
from ..interrupts import (clear_interrupt_note, interrupt_noted, note_interrupt,
                          quiet_lost_interrupts)
from .exitcodes import EPILOG, EXIT_BAD_INPUT, EXIT_BUG, EXIT_LIMIT, EXIT_OK

#: The subcommand modules, in the order ``--help`` lists them.
COMMANDS = ("solve", "build", "compare", "levels", "generate", "show", "info")


def build_parser():
    """The argument parser of the ``pdbsearch`` command."""
    import argparse
    import importlib

    from .. import __version__

    class CommandParser(argparse.ArgumentParser):
        """The top-level parser: an argument none of the command's options
        takes is reported with that command's usage (argparse's own parser
        reports it with the top level's, which lists only the commands)."""

        def parse_args(self, args=None, namespace=None):
            known, extras = self.parse_known_args(args, namespace)
            if extras:
                command = sub.choices.get(getattr(known, "command", None), self)
                command.error(f"unrecognized arguments: {' '.join(extras)}")
            return known

    parser = CommandParser(
        prog="pdbsearch",
        description="Solve sliding-block puzzles and Sokoban with pattern databases "
                    "and heuristic search.", epilog=EPILOG)
    parser.add_argument("--version", action="version", version=f"pdbsearch {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"{__name__}.{name}").add_parser(sub)
    return parser


class _CtrlC:
    """Ctrl-C during the command: noted (here and in
    :mod:`pdbsearch.interrupts`' process-wide note), then raised as
    KeyboardInterrupt.  The note catches an interrupt that some library
    swallowed (numba runs Python inside ctypes callbacks, where a
    KeyboardInterrupt is lost): the search driver and the PDB builder read
    it between steps."""

    def __init__(self):
        self.requested = False

    def handler(self, signum, frame) -> None:
        self.requested = True
        note_interrupt()
        raise KeyboardInterrupt


#: The Ctrl-C watcher of the last :func:`main` (see :func:`was_interrupted`).
_last_ctrl_c: _CtrlC | None = None


def was_interrupted() -> bool:
    """True when Ctrl-C reached the last :func:`main` run."""
    return (_last_ctrl_c is not None and _last_ctrl_c.requested) or interrupt_noted()


def run() -> None:
    """The console entry point (``pdbsearch`` and ``python -m pdbsearch``):
    :func:`main`, then exit with its code."""
    code = main()
    if was_interrupted():
        # CPython remembers a KeyboardInterrupt that crossed a C-level
        # PyRun_* call (numba's import runs code that way) even when our
        # handler caught it later, and at exit kills the process with SIGINT
        # instead of returning our code (seen 1 run in 8 with Ctrl-C 0.3 s
        # after the start).  The work is done and every file closed: leave
        # with the code.
        _leave_now(code)
    sys.exit(code)


def _leave_now(code: int) -> None:
    """Flush the output and end the process at once with ``code``, running
    no finalizers (see :func:`run`)."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``pdbsearch`` command; returns the exit code.

    Everything heavy is imported in here, so that Ctrl-C at any moment of
    the command (numba's import and compilation included) ends with
    ``pdbsearch: interrupted`` and exit 3, never a traceback.
    """
    global _last_ctrl_c
    clear_interrupt_note()
    ctrl_c = _last_ctrl_c = _CtrlC()
    in_main_thread = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGINT, ctrl_c.handler) if in_main_thread else None
    try:
        with quiet_lost_interrupts():
            code = _run(argv)
        if (ctrl_c.requested or interrupt_noted()) and code != EXIT_LIMIT:
            print("pdbsearch: interrupted", file=sys.stderr)
            code = EXIT_LIMIT
        return code
    except KeyboardInterrupt:  # past _run's own handler: while printing it
        print("pdbsearch: interrupted", file=sys.stderr)
        return EXIT_LIMIT
    finally:
        if in_main_thread:
            # As the command's own entry point (argv None) the work is done:
            # a Ctrl-C during the interpreter's shutdown changes nothing.
            signal.signal(signal.SIGINT, signal.SIG_IGN if argv is None else previous)


def _run(argv: Sequence[str] | None) -> int:
    """Parse and run the command, mapping failures to exit codes."""
    try:
        try:
            args = build_parser().parse_args(argv)
        except SystemExit as exc:  # usage errors (exit 2), --help and --version (0)
            return exc.code if isinstance(exc.code, int) else EXIT_BAD_INPUT
        # A first run compiles for minutes: say so where progress is shown
        # (a terminal, or --progress; not with --quiet or --json).
        from .options import log, wants_progress
        set_compile_notice(log(args) if wants_progress(args) else None)
        try:
            return args.run(args)
        finally:
            set_compile_notice(None)
    except KeyboardInterrupt:
        print("pdbsearch: interrupted", file=sys.stderr)
        if argv is None:
            # The command's own entry point: leave now, with the interrupted
            # work still on the stack.  Unwinding it frees what numba was
            # compiling when the signal came, and that has crashed the
            # process (SIGSEGV after this line, once in a CI run with a
            # cold cache and Ctrl-C 1.5 s after the start).  Files are
            # written by rename, so nothing is left half-written.
            _leave_now(EXIT_LIMIT)
        return EXIT_LIMIT
    except BrokenPipeError:
        return EXIT_OK
    except MemoryError:
        print("pdbsearch: error: out of memory; lower --memory-limit or use a smaller "
              "heuristic table", file=sys.stderr)
        return EXIT_LIMIT
    except Exception as exc:
        from ..errors import PdbsearchError
        if isinstance(exc, PdbsearchError):
            print(f"pdbsearch: error: {exc}", file=sys.stderr)
            return EXIT_BAD_INPUT
        if os.environ.get("PDBSEARCH_DEBUG"):
            raise
        # a bug: one line, the traceback only on request
        print(f"pdbsearch: internal error: {type(exc).__name__}: {exc} (this is a bug; "
              f"set PDBSEARCH_DEBUG=1 for the traceback and please report it)", file=sys.stderr)
        return EXIT_BUG

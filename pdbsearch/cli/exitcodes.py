"""The exit codes of the ``pdbsearch`` command (also in README.md).

====  =====================================================
0     solved (or the command did its job)
1     internal error (a bug: please report it)
2     bad input or usage: the message names the file, line and problem
3     stopped by a limit (time, nodes, memory), by Ctrl-C, or out of moves
      in a search whose moves may miss a solution (nothing proved)
4     proved unsolvable (the whole reachable space was searched)
====  =====================================================
"""

EXIT_OK, EXIT_BUG, EXIT_BAD_INPUT, EXIT_LIMIT, EXIT_UNSOLVABLE = 0, 1, 2, 3, 4

EPILOG = ("exit codes: 0 solved, 1 internal error, 2 bad input or usage, "
          "3 stopped by a limit or Ctrl-C, 4 proved unsolvable")


def status_exit(result) -> int:
    """The exit code of one search result."""
    from ..search import Status
    return {Status.SOLVED: EXIT_OK, Status.LIMIT: EXIT_LIMIT,
            Status.UNSOLVABLE: EXIT_UNSOLVABLE}[result.status]

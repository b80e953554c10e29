"""A description of the machine figures were measured on.

Benchmark and experiment scripts store it beside their results: a time
means little without the cores, the CPU, the library versions and how busy
the machine was.
"""

from __future__ import annotations

import os
import platform


def cpu_model() -> str:
    """The CPU's model name (from /proc/cpuinfo where there is one)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def load_average() -> list[float] | None:
    """The 1, 5 and 15 minute load averages, or None where unknown (other
    work on a shared machine slows every figure down)."""
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def machine_info() -> dict:
    """Cores, CPU, system, Python / numba / numpy versions and current load."""
    import numba
    import numpy
    return {"cores": os.cpu_count(), "cpu": cpu_model(), "system": platform.platform(),
            "python": platform.python_version(), "numba": numba.__version__,
            "numpy": numpy.__version__, "load_average": load_average()}


def usable_cores() -> int:
    """The cores this process may run on (its CPU affinity where the system
    tells it, else every core)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return max(1, os.cpu_count() or 1)


def resident_bytes() -> int:
    """The memory this process holds now (resident set), in bytes; 0 where
    it cannot be read."""
    try:
        with open("/proc/self/statm", encoding="ascii") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        pass
    try:
        import resource
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # peak, a bound
    except (ImportError, OSError):
        return 0

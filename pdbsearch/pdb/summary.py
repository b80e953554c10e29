"""What a PDB file holds, and whether it is sound: ``pdbsearch info``.

Unlike :func:`.store.load_pdb`, which refuses a file at its first fault,
this reports every check it can make (seal, fingerprint, entries,
checksum, histogram and maximum), so that a damaged file is described
rather than only refused.  A file whose seal does not match is not opened
with the HDF5 library at all (a damaged HDF5 file can hang it).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import PdbFileError
from .store import (SEAL_MATCHING, SEAL_MISMATCH, SEAL_MISSING, UNREACHABLE, PdbSpec,
                    data_problems, histogram, read_attributes, seal_state)


@dataclass
class PdbSummary:
    """The metadata of a PDB file and the outcome of its checks."""

    path: Path
    size: int                              #: bytes
    seal: str                              #: matching, mismatch (see :mod:`.store`)
    attributes: dict[str, Any] | None = None   #: None when the file was not opened
    histogram: list[int] = field(default_factory=list)   #: entries per value 0..255
    problems: list[str] = field(default_factory=list)    #: what is wrong; none when sound

    @property
    def sound(self) -> bool:
        """True when every check passed."""
        return not self.problems

    @property
    def description(self) -> str:
        """What the table encodes, from its attributes."""
        a = self.attributes
        if a is None:
            return "unknown (the file was not opened)"
        try:
            params = json.loads(a["parameters"])
        except ValueError:
            params = a["parameters"]
        if isinstance(params, dict):
            params = ", ".join(f"{k} {v}" for k, v in params.items())
        return f"{a['domain']} {a['abstraction']} ({a['metric']} metric): {params}"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict (what ``pdbsearch info --json`` prints)."""
        a = self.attributes or {}
        hist = self.histogram
        return {"path": str(self.path), "size": self.size, "seal": self.seal,
                "sound": self.sound, "problems": list(self.problems),
                "description": self.description if self.attributes else None,
                **{k: a.get(k) for k in ("format_version", "domain", "abstraction", "metric",
                                         "fingerprint", "entries", "maximum", "build_seconds",
                                         "package_version", "sha256")},
                "parameters": json.loads(a["parameters"]) if a and _is_json(a["parameters"])
                else a.get("parameters"),
                "unreachable": hist[UNREACHABLE] if hist else None,
                "histogram": {str(v): c for v, c in enumerate(hist) if c} if hist else None}

    def text(self) -> str:
        """The report as lines of text."""
        lines = [f"file: {self.path} ({self.size:,} bytes)"]
        if self.seal == SEAL_MATCHING:
            lines.append("seal: present, matches the file")
        else:
            lines.append("seal: DOES NOT MATCH the file (damaged or edited; not opened "
                         "further)")
        a = self.attributes
        if a is not None:
            lines.append(f"encodes: {self.description}")
            lines.append(f"format {a['format_version']}, written by pdbsearch "
                         f"{a.get('package_version', '?')}, fingerprint {a['fingerprint']}")
            hist = self.histogram
            lines.append(f"entries {a['entries']:,} (1 byte each), maximum {a['maximum']}, "
                         f"unreachable {hist[UNREACHABLE]:,}")
            seconds = a.get("build_seconds")
            lines.append("build time: " + (f"{seconds:.3f} s" if isinstance(seconds, float)
                                           else "not recorded"))
            lines.append(f"checksum: sha256 {a['sha256'][:16]}... "
                         + ("does NOT match the data" if any("checksum" in p for p in
                                                             self.problems) else
                            "matches the data"))
            lines.append("histogram: " + ", ".join(f"{v}:{c}" for v, c in
                                                   enumerate(hist[:UNREACHABLE]) if c))
        lines.append("checks: " + ("all passed" if self.sound else "; ".join(self.problems)))
        return "\n".join(lines)


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


def summarize_pdb(path: str | Path) -> PdbSummary:
    """Read and check the PDB file ``path``.  A file that is not a
    pdbsearch PDB (no seal, no such file, a folder, missing attributes)
    raises :class:`PdbFileError`; a damaged one is described, its faults
    in :attr:`PdbSummary.problems`."""
    import h5py

    path = Path(path)
    state = seal_state(path)   # raises for a missing or unreadable file
    if state == SEAL_MISSING:
        raise PdbFileError(f"{path}: not a pdbsearch PDB file (no seal: another program, or "
                           f"a pdbsearch older than format 2, made it)")
    size = path.stat().st_size
    if state == SEAL_MISMATCH:
        return PdbSummary(path, size, state, problems=[
            "the file does not match its seal: it is damaged or was edited (not opened, "
            "since a damaged HDF5 file can hang the reader); rebuild it"])
    attrs = read_attributes(path)
    summary = PdbSummary(path, size, state, attrs, [int(v) for v in attrs["histogram"]])
    problems = summary.problems
    try:
        params = json.loads(attrs["parameters"])
        spec = PdbSpec(attrs["domain"], attrs["abstraction"], attrs["metric"], params)
        if spec.fingerprint != attrs["fingerprint"]:
            problems.append("the fingerprint does not match the parameters (edited)")
    except (ValueError, TypeError):
        problems.append("the parameters are not valid JSON")
    if attrs["shape"][0] != attrs["entries"]:
        problems.append(f"{attrs['shape'][0]:,} entries stored, {attrs['entries']:,} declared")
    try:
        with h5py.File(path, "r") as f:
            table = np.asarray(f["distances"][...], dtype=np.uint8)
    except Exception as exc:  # damaged chunks, truncated data
        problems.append(f"the data cannot be read ({exc})")
        return summary
    summary.histogram = [int(v) for v in histogram(table)]
    problems.extend(data_problems(attrs, table))
    return summary

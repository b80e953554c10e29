"""Drawing films as SVG: no dependency, any browser shows it.

A film is one ``<svg>``: the scene drawn once, then each frame as a
``<g class="frame">`` of its blocks and caption.  An animated SVG shows the
frames in turn with SMIL ``<animate>`` (browsers play it; a viewer without
SMIL shows the last frame, the solved position).  :mod:`.html` reuses
:func:`svg_element` for its player.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence
from xml.sax.saxutils import escape, quoteattr

from . import palette
from .frame import PLAYER, Film, Frame
from .layout import CAPTION, Layout

FONT = "DejaVu Sans, Verdana, Arial, sans-serif"


def write_svg(film: Film, layout: Layout, durations: Sequence[int], path: str | Path) -> None:
    """Write ``film`` as a standalone SVG, animated when it has several
    frames, atomically (see :func:`pdbsearch.io.atomic_write_text`)."""
    from ..io import atomic_write_text

    text = '<?xml version="1.0" encoding="UTF-8"?>\n' + svg_element(film, layout, durations)
    atomic_write_text(path, text)


def svg_element(film: Film, layout: Layout, durations: Sequence[int] | None) -> str:
    """The ``<svg>`` element of ``film``; with ``durations`` (milliseconds
    a frame) and several frames, SMIL animates it, otherwise the last frame
    shows (a page's script may then switch frames: they are
    ``<g class="frame">`` in order)."""
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{layout.width}" '
             f'height="{layout.height}" viewBox="0 0 {layout.width} {layout.height}" '
             f'font-family={quoteattr(FONT)}>']
    if film.scene.title:
        parts.append(f"<title>{escape(film.scene.title)}</title>")
    parts.append(_scene(film, layout))
    total = sum(durations) if durations else 0
    start = 0
    last = len(film.frames) - 1
    for number, frame in enumerate(film.frames):
        shown = "visible" if number == last else "hidden"
        parts.append(f'<g class="frame" visibility="{shown}" '
                     f'data-caption={quoteattr(frame.caption)}>')
        if durations and last > 0:
            parts.append(_timing(start, durations[number], total, number, last))
            start += durations[number]
        parts.append(_blocks(frame, layout))
        if frame.caption:
            parts.append(f'<text x="{layout.width / 2:g}" y="{layout.caption_top + CAPTION / 2:g}" '
                         f'text-anchor="middle" dominant-baseline="central" font-size="14" '
                         f'fill="{palette.TEXT}">{escape(frame.caption)}</text>')
        parts.append("</g>")
    parts.append("</svg>")
    return "\n".join(parts) + "\n"


def _timing(start: int, duration: int, total: int, number: int, last: int) -> str:
    """The SMIL animation showing a frame from ``start`` for ``duration``
    milliseconds of a ``total``-millisecond loop (discrete key times: the
    value holds until the next key time)."""
    begin, end = start / total, (start + duration) / total
    if number == 0:
        values, times = "visible;hidden", f"0;{end:.6f}"
    elif number == last:
        values, times = "hidden;visible", f"0;{begin:.6f}"
    else:
        values, times = "hidden;visible;hidden", f"0;{begin:.6f};{end:.6f}"
    return (f'<animate attributeName="visibility" calcMode="discrete" values="{values}" '
            f'keyTimes="{times}" dur="{total / 1000:g}s" repeatCount="indefinite"/>')


def _rect(box, fill: str, stroke: str | None = None, width: float = 1, radius: float = 0) -> str:
    left, top, right, bottom = box
    extra = f' stroke="{stroke}" stroke-width="{width:g}"' if stroke else ""
    corner = f' rx="{radius:g}"' if radius else ""
    return (f'<rect x="{left:g}" y="{top:g}" width="{right - left:g}" '
            f'height="{bottom - top:g}" fill="{fill}"{extra}{corner}/>')


def _circle(box, fill: str, stroke: str, width: float) -> str:
    left, top, right, bottom = box
    return (f'<ellipse cx="{(left + right) / 2:g}" cy="{(top + bottom) / 2:g}" '
            f'rx="{(right - left) / 2:g}" ry="{(bottom - top) / 2:g}" fill="{fill}" '
            f'stroke="{stroke}" stroke-width="{width:g}"/>')


def _scene(film: Film, layout: Layout) -> str:
    """The background every frame shares: floor, targets, walls."""
    scene = film.scene
    parts = [_rect((0, 0, layout.width, layout.height), palette.BACKGROUND), '<g class="scene">']
    for x, y in sorted(scene.floor - scene.targets):
        parts.append(_rect(layout.box(x, y, x + 1, y + 1), palette.FLOOR, palette.GRID))
    for x, y in sorted(scene.targets):
        parts.append(_rect(layout.box(x, y, x + 1, y + 1), palette.TARGET, palette.GRID))
        if scene.target_name == "goal":
            parts.append(_circle(layout.box(x, y, x + 1, y + 1, inset=0.32),
                                 palette.TARGET_EDGE, palette.TARGET_EDGE, 0))
    if scene.targets and scene.target_name != "goal":
        xs = [c[0] for c in scene.targets]
        ys = [c[1] for c in scene.targets]
        parts.append(_rect(layout.box(min(xs), min(ys), max(xs) + 1, max(ys) + 1), "none",
                           palette.TARGET_EDGE, 3 * max(1, layout.cell / 24)))
    for x, y in sorted(scene.walls):
        parts.append(_rect(layout.box(x, y, x + 1, y + 1), palette.WALL))
    parts.append("</g>")
    return "\n".join(parts)


def _blocks(frame: Frame, layout: Layout) -> str:
    """The blocks of one frame, lettered when the cells are large enough."""
    line = max(1, layout.cell / 24)
    parts = []
    for block in frame.blocks:
        fill = palette.block_fill(block)
        stroke = palette.HIGHLIGHT if block.highlight else palette.EDGE
        width = 3 * line if block.highlight else line
        if block.kind == PLAYER:
            parts.append(_circle(layout.box(*block.bounds(), inset=0.18), fill, stroke, width))
            continue
        parts.append(_rect(layout.box(*block.bounds(), inset=0.06), fill, stroke, width,
                           radius=max(1, layout.cell / 8)))
        if block.label and layout.letters:
            left, top, right, bottom = layout.box(*block.bounds())
            text = palette.TEXT_ON_DARK if palette.is_dark(fill) else palette.TEXT
            parts.append(f'<text x="{(left + right) / 2:g}" y="{(top + bottom) / 2:g}" '
                         f'text-anchor="middle" dominant-baseline="central" '
                         f'font-size="{int(layout.cell * 0.5)}" font-weight="bold" '
                         f'fill="{text}">{escape(block.label)}</text>')
    return "\n".join(parts)

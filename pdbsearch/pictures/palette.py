"""The colours of the pictures, as ``#rrggbb`` strings (SVG) and RGB
triples (Pillow); one table, so that every writer draws the same picture."""

from __future__ import annotations

import colorsys

BACKGROUND = "#ffffff"
FLOOR = "#f3efe6"
GRID = "#d9d2c3"
WALL = "#5b5148"
TARGET = "#b9e3c6"          #: goal cells, the exit's cells (a tint of the floor)
TARGET_EDGE = "#2e8b57"
MAIN = "#d1382e"            #: the piece that must reach the exit
BOX = "#c8963e"
BOX_ON_TARGET = "#3f9b5a"
PLAYER = "#2b63c6"
HIGHLIGHT = "#ffcf1f"       #: the outline of the block that just moved
EDGE = "#3a3a3a"            #: block outlines
TEXT = "#1c1c1c"
TEXT_ON_DARK = "#ffffff"
CAPTION_BACKGROUND = "#ffffff"

#: How many distinct piece colours there are: pieces beyond it reuse them
#: (their letters still tell them apart), so a GIF's 256 colours suffice.
PIECE_COLOURS = 24


def _piece_colours() -> list[str]:
    """Pastel hues spread by the golden angle (neighbouring ids differ
    most), lighter and darker in turn; red is left to the main piece."""
    colours = []
    for i in range(PIECE_COLOURS):
        hue = (0.13 + i * 0.381966) % 1.0
        if hue < 0.04 or hue > 0.96:          # too close to MAIN's red
            hue = (hue + 0.08) % 1.0
        light = 0.72 if i % 2 == 0 else 0.60
        r, g, b = colorsys.hls_to_rgb(hue, light, 0.55)
        colours.append("#%02x%02x%02x" % (round(r * 255), round(g * 255), round(b * 255)))
    return colours


_PIECES = _piece_colours()


def piece_colour(ident: int) -> str:
    """The fill of ordinary piece ``ident``."""
    return _PIECES[ident % PIECE_COLOURS]


def rgb(colour: str) -> tuple[int, int, int]:
    """``"#rrggbb"`` as an RGB triple."""
    return int(colour[1:3], 16), int(colour[3:5], 16), int(colour[5:7], 16)


def is_dark(colour: str) -> bool:
    """True when white text reads better than black on ``colour``."""
    r, g, b = rgb(colour)
    return 0.299 * r + 0.587 * g + 0.114 * b < 140


def all_colours() -> list[str]:
    """Every colour a picture uses (the GIF's fixed palette)."""
    named = [BACKGROUND, FLOOR, GRID, WALL, TARGET, TARGET_EDGE, MAIN, BOX, BOX_ON_TARGET,
             PLAYER, HIGHLIGHT, EDGE, TEXT, TEXT_ON_DARK, CAPTION_BACKGROUND]
    return list(dict.fromkeys(named + _PIECES))


def block_fill(block) -> str:
    """The fill of a :class:`~.frame.Block` by its kind."""
    from . import frame   # its kind names are also colour names here
    if block.kind == frame.MAIN:
        return MAIN
    if block.kind == frame.BOX:
        return BOX_ON_TARGET if block.on_target else BOX
    if block.kind == frame.PLAYER:
        return PLAYER
    return piece_colour(block.ident)

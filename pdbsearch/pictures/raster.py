"""Drawing films with Pillow: animated GIF and PNG.

Pillow is the optional extra ``pictures``; it is imported when a picture
is drawn, and its absence is a one-line error naming the extra.
"""

from __future__ import annotations

from pathlib import Path
from typing import Sequence

from ..errors import PdbsearchError
from . import palette
from .frame import PLAYER, Film, Frame
from .layout import CAPTION, Layout


def pillow(path: str | Path):
    """The ``PIL`` modules ``(Image, ImageDraw, ImageFont)``, or a
    :class:`PdbsearchError` saying how to install them."""
    try:
        from PIL import Image, ImageDraw, ImageFont
    except ImportError:
        raise PdbsearchError(f"{path}: drawing GIF or PNG files needs Pillow: pip install "
                             f"'pdbsearch[pictures]' (SVG and HTML need nothing)") from None
    return Image, ImageDraw, ImageFont


def write_gif(film: Film, layout: Layout, durations: Sequence[int], path: str | Path) -> None:
    """Write ``film`` as a looping animated GIF, ``durations`` milliseconds
    a frame, atomically (see :func:`pdbsearch.io.replacing`)."""
    from ..io import replacing

    Image, _, _ = pillow(path)
    frames = [_quantized(image, Image) for image in _images(film, layout, path)]
    with replacing(path) as tmp:
        # optimize=False: Pillow would otherwise merge frames it finds equal
        # (ours never are: each caption differs) and rework the palette.
        frames[0].save(tmp, format="GIF", save_all=True, append_images=frames[1:],
                       duration=list(durations), loop=0, optimize=False, disposal=1)


def write_png(film: Film, layout: Layout, path: str | Path) -> None:
    """Write the first frame of ``film`` as a PNG, atomically."""
    from ..io import replacing

    image = next(iter(_images(film, layout, path)))
    with replacing(path) as tmp:
        image.save(tmp, format="PNG")


def _quantized(image, Image):
    """``image`` on the fixed palette of :func:`palette.all_colours` (one
    palette for every frame, no dithering: flat colours stay flat)."""
    colours = [palette.rgb(c) for c in palette.all_colours()]
    # a grey ramp, so that the letters' smoothed edges find a near colour
    colours += [(v, v, v) for v in range(0, 256, 17)]
    flat = [v for rgb in colours for v in rgb]
    pal = Image.new("P", (1, 1))
    pal.putpalette(flat + [0] * (768 - len(flat)))
    return image.quantize(palette=pal, dither=0)


def _images(film: Film, layout: Layout, path):
    """The frames of ``film`` as RGB images (a generator: one at a time)."""
    Image, ImageDraw, ImageFont = pillow(path)
    letter_font = _font(ImageFont, max(8, int(layout.cell * 0.5)))
    caption_font = _font(ImageFont, 14)
    background = _background(film, layout, Image, ImageDraw)
    for frame in film.frames:
        image = background.copy()
        draw = ImageDraw.Draw(image)
        _draw_blocks(draw, frame, layout, letter_font)
        if frame.caption:
            _centred_text(draw, (layout.width / 2, layout.caption_top + CAPTION / 2),
                          frame.caption, caption_font, palette.TEXT)
        yield image


def _font(ImageFont, size: int):
    """A scalable font of ``size`` pixels when Pillow has one (10.1 and
    later bundle it), else Pillow's small bitmap font."""
    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow before 10.1
        return ImageFont.load_default()


def _background(film: Film, layout: Layout, Image, ImageDraw):
    """What every frame shares: floor, grid, walls and targets."""
    scene = film.scene
    image = Image.new("RGB", (layout.width, layout.height), palette.BACKGROUND)
    draw = ImageDraw.Draw(image)
    line = max(1, layout.cell // 24)
    for x, y in scene.floor:
        draw.rectangle(layout.box(x, y, x + 1, y + 1), fill=palette.FLOOR, outline=palette.GRID)
    for x, y in scene.targets:
        draw.rectangle(layout.box(x, y, x + 1, y + 1), fill=palette.TARGET, outline=palette.GRID)
    if scene.target_name == "goal":
        for x, y in scene.targets:
            draw.ellipse(layout.box(x, y, x + 1, y + 1, inset=0.32), fill=palette.TARGET_EDGE)
    elif scene.targets:  # the exit: one outline round the whole area
        xs = [c[0] for c in scene.targets]
        ys = [c[1] for c in scene.targets]
        draw.rectangle(layout.box(min(xs), min(ys), max(xs) + 1, max(ys) + 1),
                       outline=palette.TARGET_EDGE, width=3 * line)
    for x, y in scene.walls:
        draw.rectangle(layout.box(x, y, x + 1, y + 1), fill=palette.WALL)
    return image


def _draw_blocks(draw, frame: Frame, layout: Layout, font) -> None:
    """The pieces, boxes and player of one frame."""
    line = max(1, layout.cell // 24)
    for block in frame.blocks:
        fill = palette.block_fill(block)
        outline = palette.HIGHLIGHT if block.highlight else palette.EDGE
        width = 3 * line if block.highlight else line
        if block.kind == PLAYER:
            draw.ellipse(layout.box(*block.bounds(), inset=0.18), fill=fill, outline=outline,
                         width=width)
            continue
        draw.rounded_rectangle(layout.box(*block.bounds(), inset=0.06),
                               radius=max(1, layout.cell // 8), fill=fill, outline=outline,
                               width=width)
        if block.label and layout.letters:
            left, top, right, bottom = layout.box(*block.bounds())
            text = palette.TEXT_ON_DARK if palette.is_dark(fill) else palette.TEXT
            _centred_text(draw, ((left + right) / 2, (top + bottom) / 2), block.label, font,
                          text)


def _centred_text(draw, centre: tuple[float, float], text: str, font, fill: str) -> None:
    """``text`` centred on ``centre`` (measured, not anchored: Pillow's
    bitmap font, all that Pillow before 10.1 has built in, takes no anchor)."""
    left, top, right, bottom = draw.textbbox((0, 0), text, font=font)
    draw.text((centre[0] - (left + right) / 2, centre[1] - (top + bottom) / 2), text,
              fill=fill, font=font)

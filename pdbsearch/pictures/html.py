"""Drawing films as a self-contained HTML page: the SVG of :mod:`.svg`
and a small player (play/pause, step, a slider); no file or network
access, no dependency."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Sequence
from xml.sax.saxutils import escape

from .frame import Film
from .layout import Layout
from .svg import svg_element

_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title}</title>
<style>
body {{ font-family: DejaVu Sans, Verdana, Arial, sans-serif; margin: 1em; }}
.controls {{ margin-top: 0.5em; display: flex; gap: 0.4em; align-items: center; }}
.controls input[type=range] {{ width: {slider}px; }}
</style>
</head>
<body>
<h1 style="font-size: 1.1em">{title}</h1>
{svg}
<div class="controls">
<button id="first" title="start">&#x23EE;</button>
<button id="back" title="one back">&#x25C0;</button>
<button id="play" title="play / pause">&#x25B6;</button>
<button id="next" title="one on">&#x25B6;&#xFE0E;|</button>
<button id="last" title="end">&#x23ED;</button>
<input id="slider" type="range" min="0" max="{last}" value="0">
<span id="count"></span>
</div>
<script>
(function () {{
  var durations = {durations};
  var frames = document.querySelectorAll("g.frame");
  var slider = document.getElementById("slider");
  var count = document.getElementById("count");
  var play = document.getElementById("play");
  var current = 0, timer = null;
  function show(n) {{
    current = Math.max(0, Math.min(frames.length - 1, n));
    for (var i = 0; i < frames.length; i++)
      frames[i].setAttribute("visibility", i === current ? "visible" : "hidden");
    slider.value = current;
    count.textContent = "frame " + (current + 1) + " of " + frames.length;
  }}
  function tick() {{
    if (current >= frames.length - 1) {{ stop(); return; }}
    show(current + 1);
    timer = setTimeout(tick, durations[current]);
  }}
  function stop() {{ clearTimeout(timer); timer = null; play.innerHTML = "&#x25B6;"; }}
  function start() {{
    if (current >= frames.length - 1) show(0);
    play.innerHTML = "&#x23F8;";
    timer = setTimeout(tick, durations[current]);
  }}
  play.onclick = function () {{ if (timer) stop(); else start(); }};
  document.getElementById("first").onclick = function () {{ stop(); show(0); }};
  document.getElementById("last").onclick = function () {{ stop(); show(frames.length - 1); }};
  document.getElementById("back").onclick = function () {{ stop(); show(current - 1); }};
  document.getElementById("next").onclick = function () {{ stop(); show(current + 1); }};
  slider.oninput = function () {{ stop(); show(parseInt(slider.value, 10)); }};
  show(0);
  if (frames.length > 1) start();
}})();
</script>
</body>
</html>
"""


def write_html(film: Film, layout: Layout, durations: Sequence[int], path: str | Path) -> None:
    """Write ``film`` as one HTML page that plays it, atomically."""
    from ..io import atomic_write_text

    title = film.scene.title or "pdbsearch"
    page = _PAGE.format(title=escape(title), svg=svg_element(film, layout, None),
                        durations=json.dumps(list(durations)), last=len(film.frames) - 1,
                        slider=max(120, layout.width - 240))
    atomic_write_text(path, page)

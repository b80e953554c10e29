"""Writing SLC (XML) level files for the tests, as Sokoban YASC writes them."""

from __future__ import annotations

from xml.sax.saxutils import escape, quoteattr

from pdbsearch.sokoban.formats import format_xsb


def slc_text(boards: list[tuple[str | None, list[str]]], indent: str = "      ",
             declaration: str = '<?xml version="1.0" encoding="UTF-8"?>') -> str:
    """An SLC file as Sokoban YASC writes one: each board its title and XSB rows."""
    lines = [declaration,
             '<SokobanLevels xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
             'xsi:schemaLocation="SokobanLev.xsd">',
             "  <Title>Test</Title>", "  <Description>Levels &amp; more</Description>",
             '  <LevelCollection Copyright="tests" MaxWidth="20" MaxHeight="20">']
    for title, rows in boards:
        width = max(len(row) for row in rows)
        title_attribute = f" Id={quoteattr(title)}" if title is not None else ""
        lines.append(f'    <Level{title_attribute} Width="{width}" Height="{len(rows)}">')
        lines += [f"{indent}<L>{escape(row)}</L>" for row in rows]
        lines.append("    </Level>")
    lines += ["  </LevelCollection>", "</SokobanLevels>", ""]
    return "\n".join(lines)


def xsb_rows(level) -> list[str]:
    """The level's board rows in XSB, for :func:`slc_text`."""
    return format_xsb(level, title=False).splitlines()

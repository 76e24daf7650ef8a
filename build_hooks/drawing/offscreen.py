"""Figures a browser may skip while they are off screen, at their final size.

An inline SVG drawing or chart is hundreds of elements. While a page loads, mkdocs-material
changes attributes on ``<body>`` (the colour palette, then the switch that turns transitions off
and on again), and each change makes the browser work out the style of every element on the page
again; on a phone that is most of the page's blocking time. ``content-visibility: auto`` lets it
skip the elements of a figure that is not on screen, and draw them when the reader scrolls to it.

A skipped element is laid out as if it were empty, so it would lose its height and move all that
follows (the depth meter and the table of contents read those positions). An SVG's height comes
from its width and its ``viewBox``, so the same ratio, given as ``aspect-ratio``, keeps it exactly
as tall while it is skipped: the page has the same geometry either way.
"""

from __future__ import annotations

import re

_SVG_TAG = re.compile(r'<svg\b[^>]*>')
_VIEWBOX = re.compile(r'\sviewBox="0 0 ([0-9]+(?:\.[0-9]+)?) ([0-9]+(?:\.[0-9]+)?)"')


def skip_offscreen(svg: str) -> str:
    """``svg`` (markup whose first tag is the ``<svg>``) with a ``style`` that lets the browser skip
    it off screen and keeps its height; unchanged when its tag has no plain ``viewBox="0 0 W H"``
    with W and H above zero, or has a style already."""
    tag = _SVG_TAG.match(svg)
    if tag is None or " style=" in tag.group(0):
        return svg
    box = _VIEWBOX.search(tag.group(0))
    if box is None or float(box.group(1)) <= 0 or float(box.group(2)) <= 0:
        return svg
    style = f' style="content-visibility: auto; aspect-ratio: {box.group(1)} / {box.group(2)}"'
    return svg[:tag.end() - 1] + style + svg[tag.end() - 1:]

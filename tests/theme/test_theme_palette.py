"""The visual language: every token defined for both schemes, text tokens at WCAG AA contrast."""

from __future__ import annotations

import colorsys
import re

import pytest
from theme_support import ROOT

CSS = (ROOT / "theme" / "assets" / "ldr.css").read_text(encoding="utf-8")
TOKENS = ["--ldr-subject", "--ldr-subject-soft", "--ldr-ink", "--ldr-ink-soft", "--ldr-context",
          "--ldr-context-soft", "--ldr-paper"]
TEXT = ["--ldr-subject", "--ldr-ink", "--ldr-ink-soft", "--ldr-context"]


def block(selector_tail: str) -> dict[str, str]:
    match = re.search(re.escape(selector_tail) + r"\s*\{([^}]*)\}", CSS)
    assert match, selector_tail
    return dict(re.findall(r"(--ldr-[a-z0-9-]+):\s*(#[0-9a-fA-F]{6})", match.group(1)))


def hsl_hex(h: float, s: float, light: float) -> str:
    r, g, b = colorsys.hls_to_rgb(h / 360, light, s)
    return "#" + "".join(f"{round(c * 255):02x}" for c in (r, g, b))


def luminance(hex_colour: str) -> float:
    def channel(c: float) -> float:
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4
    r, g, b = (int(hex_colour[i:i + 2], 16) / 255 for i in (1, 3, 5))
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(a: str, b: str) -> float:
    hi, lo = sorted((luminance(a), luminance(b)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


SCHEMES = {
    # scheme: (tokens, mkdocs-material's page background for that scheme)
    "default": (block('[data-md-color-scheme="default"]'), "#ffffff"),
    "slate": (block('[data-md-color-scheme="slate"]'), hsl_hex(232, 0.15, 0.14)),
}


@pytest.mark.parametrize("scheme", SCHEMES)
def test_every_token_is_defined(scheme):
    tokens, _ = SCHEMES[scheme]
    assert set(TOKENS) <= set(tokens)


def test_the_schemes_differ():
    light, dark = SCHEMES["default"][0], SCHEMES["slate"][0]
    assert all(light[t] != dark[t] for t in TOKENS)


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("token", TEXT)
def test_text_meets_aa_on_paper_and_page(scheme, token):
    tokens, page = SCHEMES[scheme]
    for ground in (tokens["--ldr-paper"], page):
        assert contrast(tokens[token], ground) >= 4.5, (scheme, token, ground)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_pressed_buttons_and_current_marks_read(scheme):
    tokens, _ = SCHEMES[scheme]
    assert contrast(tokens["--ldr-paper"], tokens["--ldr-subject"]) >= 4.5  # paper text on a subject button
    assert contrast(tokens["--ldr-ink"], tokens["--ldr-subject-soft"]) >= 4.5  # ink on the current node
    assert contrast(tokens["--ldr-ink"], tokens["--ldr-context-soft"]) >= 4.5  # ink on a leaf node


@pytest.mark.parametrize("scheme", SCHEMES)
def test_links_and_header_read(scheme):
    """With palette primary/accent `custom`, links take a darker (lighter) subject orange and the
    header the ink: both readable."""
    _, page = SCHEMES[scheme]
    links = re.search(re.escape(f'[data-md-color-scheme="{scheme}"][data-md-color-primary="custom"]')
                      + r"[^{]*\{[^}]*--md-typeset-a-color:\s*(#[0-9a-fA-F]{6})", CSS)
    assert links and contrast(links.group(1), page) >= 4.5
    header = re.search(r'\[data-md-color-primary="custom"\]\s*\{[^}]*--md-primary-fg-color:\s*(#[0-9a-fA-F]{6})', CSS)
    assert header and contrast("#ffffff", header.group(1)) >= 4.5  # white header text on ink

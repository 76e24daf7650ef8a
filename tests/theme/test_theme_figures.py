"""The reading-lines metro map and the robot."""

from __future__ import annotations

import re

import pytest
import yaml
from theme_support import ROOT, make_ctx

from build_hooks.core.errors import DirectiveError
from build_hooks.series import metro, robot

PAGES = ["part-00-the-map", "part-01-the-tensor", "part-02-autograd", "part-03-daily-pytorch",
         "part-04-seeing-pytorch", "part-05-the-machinery", "part-06-extending", "part-07-the-compiler",
         "part-08-kernels-and-hardware", "part-09-distributed", "part-10-ship-it", "part-11-working-on-pytorch"]


def test_reading_lines_link_every_part_from_the_home_page():
    html = metro.render_fence({}, make_ctx(base_url=""))
    links = re.findall(r'<a class="ldr-metro__station" xlink:href="([^"]+)"', html)
    assert links == [f"{p}/" for p in PAGES]
    doc = yaml.safe_load((ROOT / "data" / "reading-lines.yml").read_text())
    assert len(doc["lines"]) == 3 and html.count('class="ldr-metro__track') == 3
    stops = sum(len(line["stops"]) for line in doc["lines"])
    assert html.count('class="ldr-metro__stop"') == stops


def test_reading_lines_respect_the_page_depth():
    html = metro.render_fence({}, make_ctx(base_url="../"))
    assert 'xlink:href="../part-05-the-machinery/"' in html


def test_reading_lines_take_no_options():
    with pytest.raises(DirectiveError):
        metro.render_fence({"colour": "red"}, make_ctx())


def test_robot_says_its_line_escaped():
    html = robot.render_fence({"says": 'Tensors <are> "views" & more'}, make_ctx())
    assert html.startswith('<figure class="ldr-robot">') and html.count('class="ldr-robot"') == 1
    assert "Tensors &lt;are&gt; &quot;views&quot; &amp; more" in html
    assert "<svg" in html and 'aria-hidden="true"' in html


@pytest.mark.parametrize("options", [{}, {"says": ""}, {"says": 3}, {"says": "hi", "mood": "sad"}])
def test_robot_rejects_bad_options(options):
    with pytest.raises(DirectiveError):
        robot.render_fence(options, make_ctx())

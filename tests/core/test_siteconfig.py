"""``ldr`` outside a build reads the plugin's folder and pin options from mkdocs.yml."""

from __future__ import annotations

import pytest

from build_hooks.core.errors import LdrError
from build_hooks.hosts.siteconfig import layout_for, plugin_options


@pytest.mark.parametrize("plugins", [
    "plugins:\n  - search\n  - ldr:\n      proofs_dir: src/proofs\n      torch: '2.1.0'\n      jobs: 2\n",
    "plugins:\n  search: {}\n  ldr: {proofs_dir: src/proofs, torch: '2.1.0', jobs: 2}\n",
])
def test_both_plugin_forms_and_tags_it_does_not_know(tmp_path, plugins):
    (tmp_path / "mkdocs.yml").write_text("site_url: !ENV [SITE_URL, 'http://x/']\n" + plugins)
    assert plugin_options(tmp_path / "mkdocs.yml") == {"proofs_dir": "src/proofs", "torch": "2.1.0"}
    layout = layout_for(tmp_path)
    assert layout.proofs == tmp_path.resolve() / "src" / "proofs"
    assert layout.results == layout.proofs / "_results" and layout.torch == "2.1.0"


def test_a_bare_plugin_or_no_config_gives_the_defaults(tmp_path):
    assert layout_for(tmp_path).proofs == tmp_path.resolve() / "proofs"
    (tmp_path / "mkdocs.yml").write_text("plugins: [ldr]\n")
    assert layout_for(tmp_path).drawings == tmp_path.resolve() / "drawings"


def test_a_config_that_does_not_parse_names_the_file(tmp_path):
    (tmp_path / "mkdocs.yml").write_text("plugins: [ldr\n")
    with pytest.raises(LdrError, match=r"mkdocs.yml: cannot read the ldr plugin's options"):
        layout_for(tmp_path)

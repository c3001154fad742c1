"""The chip renderer's files as the installed package serves them to Streamlit."""

from __future__ import annotations

import tomllib

import pytest

from citation_core.lms import chips
from tests.conftest import ROOT


def test_the_entry_module_imports_only_modules_of_the_asset_folder_that_come_before_it() -> None:
    """The browser fetches what chips.js imports from the same folder; no copy of them exists."""
    assert chips.COMPONENT_MODULES[-1] == chips.COMPONENT_JS_FILE
    for k, name in enumerate(chips.COMPONENT_MODULES):
        assert set(chips.imported_modules(name)) <= set(chips.COMPONENT_MODULES[:k]), name
    assert chips.imported_modules(chips.COMPONENT_JS_FILE) == ["citation_parser.js", "chip_model.js"]
    assert sorted(p.name for p in chips.ASSET_DIR.glob("*.js")) == sorted(chips.COMPONENT_MODULES)


def test_the_joined_module_for_pages_without_module_loading_has_one_export_and_no_imports() -> None:
    joined = chips.chip_component_js()
    assert "\nimport " not in joined and not joined.startswith("import ")
    assert [line for line in joined.splitlines() if line.startswith("export ")] == [
        "export default function mountCitationChips(component) {"]


def test_the_package_declares_the_renderer_folder_to_streamlit() -> None:
    manifest = tomllib.loads((ROOT / "citation_core" / "pyproject.toml").read_text(encoding="utf-8"))
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert manifest["project"]["name"] == project["name"]  # Streamlit finds it through the distribution's name
    package, component = chips.PACKAGED_COMPONENT_NAME.split(".")
    assert package == project["name"]
    (entry,) = manifest["tool"]["streamlit"]["component"]["components"]
    assert entry["name"] == component
    folder = ROOT / "citation_core" / entry["asset_dir"]
    assert folder == chips.ASSET_DIR
    assert (folder / chips.COMPONENT_JS_FILE).is_file() and (folder / chips.COMPONENT_CSS_FILE).is_file()


def test_streamlit_finds_the_installed_component() -> None:
    scanner = pytest.importorskip("streamlit.components.v2.manifest_scanner")
    found = {f"{manifest.name}.{c.name}": root for manifest, root in scanner.scan_component_manifests()
             for c in manifest.components}
    assert chips.PACKAGED_COMPONENT_NAME in found, "install the checkout (pip install -e .) so Streamlit sees it"
    assert found[chips.PACKAGED_COMPONENT_NAME].resolve() == chips.ASSET_DIR.parents[1]

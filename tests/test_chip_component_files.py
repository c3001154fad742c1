"""The chip renderer's files as the installed package serves them to Streamlit."""

from __future__ import annotations

import tomllib

import pytest

from citation_core.lms import chips
from tests.conftest import ROOT


def test_the_built_component_module_is_the_sources_in_order() -> None:
    built = (chips.ASSET_DIR / chips.COMPONENT_JS_FILE).read_text(encoding="utf-8")
    assert built == chips.build_component_js(), (
        "component.js is older than its sources: run `make component` (python scripts/build_component.py)")
    # the renderer's one export comes after the scripts whose functions it uses
    positions = [built.index(chips._read(name)) for name in chips.COMPONENT_SOURCES]
    assert positions == sorted(positions) and built.count("export default") == 1


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

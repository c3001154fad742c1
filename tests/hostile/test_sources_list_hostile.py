"""The "Sources:" list under an answer whose markers name units no number can be made of."""

from __future__ import annotations

import pytest

from citation_core.lms.sources_list import with_sources_list
from citation_core.material.library import load_material
from tests.conftest import SAMPLE_COURSE


@pytest.mark.parametrize("unit", ["²", "١٠١", "9" * 5000])
def test_a_marker_of_a_unit_that_is_no_number_adds_no_line(unit: str) -> None:
    material = load_material(SAMPLE_COURSE)
    answer = f"Merging is linear.[cite:L:{unit}:6:::Merge:One element per step.:va1]"
    assert with_sources_list(answer, material) == "Merging is linear."  # markers out, no line for them

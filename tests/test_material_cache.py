"""The app's course cache follows release dates: a unit is offered from the moment it is released."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from citation_core.material.library import load_material
from studio.services import material_now
from tests.test_material_visibility import make_course


def test_a_cached_course_is_loaded_again_once_a_release_date_has_passed(tmp_path: Path) -> None:
    make_course(tmp_path, {12: {"release_date": dt.datetime(2030, 1, 15, 9, 0)}})
    cache: dict[str, object] = {}
    loaded_at = {"": dt.datetime(2029, 12, 1), "2030-01-15T09:00:00": dt.datetime(2030, 1, 15, 9, 30)}

    def load(epoch: str) -> object:  # as st.cache_resource does: one load per key, loaded at its own moment
        if epoch not in cache:
            cache[epoch] = load_material(tmp_path, now=loaded_at[epoch])
        return cache[epoch]

    before = material_now(load, dt.datetime(2030, 1, 10))  # type: ignore[arg-type]
    assert list(before.units) == [11]
    after = material_now(load, dt.datetime(2030, 1, 15, 9, 30))  # type: ignore[arg-type]
    assert list(after.units) == [11, 12], "the unit released at 9:00 is offered from then on"
    assert material_now(load, dt.datetime(2030, 2, 1)) is after  # type: ignore[arg-type]

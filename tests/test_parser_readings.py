"""The Chip preview's table of the parsers' readings (studio/parser_readings.py)."""

from __future__ import annotations

from citation_core.contract import PATTERN_NAMES, parse
from studio.parser_readings import NOT_CARRIED, reading_columns


def test_the_readings_of_one_marker_stand_next_to_each_other_with_every_field() -> None:
    text = "A.[cite:L:12:3::!1] B.[cite:L:12:4:::Merge::va2]"
    readings = {p: [m.to_json() for m in parse(text, p)] for p in PATTERN_NAMES}
    columns = reading_columns(readings, PATTERN_NAMES)
    assert list(columns) == ["parser", "type", "entity_id", "page", "start", "end", "keyword", "summary", "seq",
                             "version", "span"]
    assert columns["parser"] == ["iris", "server", "client", "stored"]
    assert columns["page"] == ["3", "4", "4", "4"]
    assert columns["start"] == ["", "", "", ""], "an empty field is an empty cell"
    assert columns["keyword"] == [NOT_CARRIED, "Merge", "Merge", "Merge"], "iris has no keyword"
    assert columns["summary"] == [NOT_CARRIED, ":va2", ":va2", ""]
    assert columns["seq"] == ["1", NOT_CARRIED, NOT_CARRIED, NOT_CARRIED]
    assert columns["version"] == [NOT_CARRIED, NOT_CARRIED, NOT_CARRIED, "va2"]
    assert columns["span"] == ["2\u2060–\u206019", "22\u2060–\u206048", "22\u2060–\u206048", "22\u2060–\u206048"]


def test_no_match_gives_empty_columns() -> None:
    columns = reading_columns({p: [] for p in PATTERN_NAMES}, PATTERN_NAMES)
    assert all(values == [] for values in columns.values())

"""Table 2 (example hint vs zero-shot) without example-hint runs, as in a report of the extended
set: it says why it is empty."""

from __future__ import annotations

from ramseygadgets.report.tables import table2


def test_an_empty_table2_says_why() -> None:
    table = table2([], resamples=0)
    assert table.records == []
    assert "no run has the example-hint setting" in table.caption
    assert "extended set has none" in table.to_markdown()

"""Fixtures shared across the test folders."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest

from companion.store import Store
from companion.table import Table


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A browser test starts Chromium and a server: slow, so the quick loop leaves it out."""
    for item in items:
        if item.get_closest_marker("browser") is not None:
            item.add_marker(pytest.mark.slow)


@pytest.fixture
def table(tmp_path: Path) -> Iterator[Table]:
    """A Table over a fresh SQLite file; a ticking clock; cheap PIN hashing for speed."""
    ticks = itertools.count(1_700_000_000)
    store = Store(tmp_path / "companion.sqlite3")
    tbl = Table(store, clock=lambda: float(next(ticks)), pin_iterations=1000)
    yield tbl
    tbl.close()
    store.close()

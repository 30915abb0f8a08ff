import pytest

from arena import get_registry


@pytest.fixture
def registry():
    """A fresh registry of the built-in plugins only (no third-party entry points)."""
    return get_registry(entry_points=False)

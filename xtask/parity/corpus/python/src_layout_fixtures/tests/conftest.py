import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent.parent / "src"))

from inventory.store import Store  # noqa: E402


@pytest.fixture
def store():
    s = Store()
    s.add("apple", 3)
    return s

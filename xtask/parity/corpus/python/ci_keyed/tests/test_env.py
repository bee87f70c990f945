import os

import pytest


def workers():
    # CI machines get one worker; a developer's machine gets four.
    return 1 if os.environ.get("CI") else 4


def test_local_workers():
    assert workers() == 4


@pytest.mark.skipif(bool(os.environ.get("CI")), reason="needs a display")
def test_needs_display():
    assert True

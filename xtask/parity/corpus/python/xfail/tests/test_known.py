import pytest


@pytest.mark.xfail(reason="rounding bug #12", strict=False)
def test_rounding():
    assert round(2.675, 2) == 2.68


@pytest.mark.xfail(reason="fixed upstream", strict=True)
def test_strict():
    assert 1 + 1 == 3

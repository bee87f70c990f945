import pytest


@pytest.fixture
def config():
    return {"currency": "EUR"}


def test_currency(config):
    assert config["currency"] == "EUR"

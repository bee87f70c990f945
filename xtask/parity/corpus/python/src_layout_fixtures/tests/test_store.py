import pytest


def test_add(store):
    store.add("apple", 2)
    assert store.items["apple"] == 5


def test_take(store):
    store.take("apple", 2)
    assert store.items["apple"] == 1


def test_take_too_many(store):
    with pytest.raises(KeyError):
        store.take("apple", 4)


class TestPears:
    def test_none(self, store):
        assert "pear" not in store.items

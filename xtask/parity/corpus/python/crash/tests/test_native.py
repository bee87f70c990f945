import os


def test_native_call():
    assert os.environ.get("SHOP_NATIVE", "ok") == "ok"

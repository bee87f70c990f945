def test_manual_only():
    raise AssertionError("run by hand, never by the suite")

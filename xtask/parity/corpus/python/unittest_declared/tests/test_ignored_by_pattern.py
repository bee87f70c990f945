import unittest


class Ignored(unittest.TestCase):
    def test_never_loaded(self):
        self.fail("the declared pattern *_check.py never loads this module")

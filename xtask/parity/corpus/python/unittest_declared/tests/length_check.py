import unittest

from units.length import convert


class Convert(unittest.TestCase):
    def test_km_to_m(self):
        self.assertAlmostEqual(convert(2, "km", "m"), 2000)

    def test_mm_to_cm(self):
        self.assertAlmostEqual(convert(25, "mm", "cm"), 2.5)

    def test_unknown_unit(self):
        with self.assertRaises(KeyError):
            convert(1, "ft", "m")

import unittest

from greet import greet


class GreetTest(unittest.TestCase):
    def test_greets_by_name(self) -> None:
        self.assertEqual(greet("Ada"), "Hello, Ada!")

    def test_blank_name_greets_the_world(self) -> None:
        self.assertEqual(greet("  "), "Hello, world!")


if __name__ == "__main__":
    unittest.main()

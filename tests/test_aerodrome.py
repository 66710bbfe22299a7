"""Unit tests of the AeroDrome engine (tests/engine/test_aerodrome.c), and of
forgetting a lock in every engine (tests/engine/test_lock_forget.c).

Built with ASan+UBSan (agtest.host_binary)."""
import unittest

from agtest import assert_engine_test


class AeroDromeUnit(unittest.TestCase):
    def test_engine(self):
        assert_engine_test(self, "test_aerodrome", ["ag_ref.c", "test_aerodrome.c"], 2000,
                           passed=" 0 failed")

    def test_lock_forget_every_engine(self):
        # a freed or re-initialised lock no longer orders (tests/engine/test_lock_forget.c)
        assert_engine_test(self, "test_lock_forget", ["test_lock_forget.c"])


if __name__ == "__main__":
    unittest.main()

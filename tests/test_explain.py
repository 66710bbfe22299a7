"""What reports closed by a lock say, on hand traces: the other thread's
access behind the cycle and where each thread held the lock
(tests/engine/test_explain.c, every engine); the events the dispatcher
hands its observers, which the tool's cycle pictures are drawn from
(tests/engine/test_observe.c).  Built with ASan+UBSan."""
import unittest

from agtest import assert_engine_test


class ExplainUnit(unittest.TestCase):
    def test_lock_closed_reports(self):
        assert_engine_test(self, "test_explain", ["test_explain.c"])

    def test_observers(self):
        # the dispatcher numbers each event once and tells its observers
        # (the tool's cycle pictures are one: ag_cycles.c)
        assert_engine_test(self, "test_observe", ["test_observe.c"])


if __name__ == "__main__":
    unittest.main()

"""Ctrl-C is never lost, not even when it comes while a finalizer runs."""

import os
import signal
import weakref

import pytest

from arena.front import interrupt


class Thing:
    pass


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")  # the dropped KeyboardInterrupt
def test_a_ctrl_c_dropped_by_a_finalizer_is_raised_again_at_the_next_check():
    def finalizer():  # SIGINT comes while it runs: Python prints the KeyboardInterrupt and drops it
        os.kill(os.getpid(), signal.SIGINT)
        sum(range(1000))

    with interrupt.handled():
        thing = Thing()
        weakref.finalize(thing, finalizer)
        del thing  # no KeyboardInterrupt gets out here
        with pytest.raises(KeyboardInterrupt):
            interrupt.check()
        interrupt.check()  # once only


def test_outside_a_command_the_handler_is_as_before():
    before = signal.getsignal(signal.SIGINT)
    with interrupt.handled():
        assert signal.getsignal(signal.SIGINT) is not before
    assert signal.getsignal(signal.SIGINT) is before
    interrupt.check()  # nothing pending

"""The progress callback: called, able to cancel, and exceptions come back."""
import pytest

import encore
from encore_testdata import COMPANION, GOOGLE


@pytest.mark.parametrize("path", [GOOGLE, COMPANION])
def test_progress_is_reported(path):
    calls = []
    with encore.KeyFile.open(path, verify=False, progress=lambda done, total: calls.append((done, total))) as f:
        assert f.info.key_count > 0
    assert calls, "progress callback never called"
    assert all(0 <= done <= total for done, total in calls)
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)
    assert calls[-1][0] == calls[-1][1] > 0


@pytest.mark.parametrize("answer", [False, 0])
def test_returning_false_cancels(answer):
    with pytest.raises(encore.CancelledError) as caught:
        encore.KeyFile.open(GOOGLE, verify=False, progress=lambda done, total: answer)
    assert caught.value.status == encore._ffi.ENCORE_ERR_CANCELLED
    assert caught.value.status_name == "ENCORE_ERR_CANCELLED" and caught.value.message


@pytest.mark.parametrize("answer", [None, True, 1])
def test_returning_true_or_nothing_goes_on(answer):
    with encore.KeyFile.open(GOOGLE.read_bytes(), verify=False, progress=lambda done, total: answer) as f:
        assert f.info.key_count == 140


def test_exception_in_callback_cancels_and_is_reraised():
    class Stop(Exception):
        pass

    def progress(done, total):
        raise Stop(done)

    with pytest.raises(Stop) as caught:
        encore.KeyFile.open(GOOGLE, verify=False, progress=progress)
    # Raised by the callback, after the library stopped with ENCORE_ERR_CANCELLED.
    assert isinstance(caught.value.__cause__, encore.CancelledError)
    assert caught.value.args[0] > 0


def test_callback_errors_do_not_leak_into_the_next_open():
    def progress(done, total):
        raise RuntimeError("first")

    with pytest.raises(RuntimeError):
        encore.KeyFile.open(GOOGLE, verify=False, progress=progress)
    with encore.KeyFile.open(GOOGLE, verify=False, progress=lambda d, t: None) as f:
        assert f.info.key_count == 140


def test_progress_must_be_callable():
    with pytest.raises(TypeError):
        encore.KeyFile.open(GOOGLE, verify=False, progress=42)

"""Model work runs with the GIL released: a Python thread keeps running while another scores in core."""
from __future__ import annotations

import threading
import time


def longest_stall_while(call):
    """Runs call() on a thread; returns (its duration, the longest the main thread went without running)."""
    span = {}
    go, done = threading.Event(), threading.Event()

    def work():
        go.wait()  # the main thread is measuring by then
        t0 = time.perf_counter()
        call()
        span["call"] = time.perf_counter() - t0
        done.set()

    t = threading.Thread(target=work)
    t.start()
    longest, last = 0.0, time.perf_counter()
    go.set()
    while not done.is_set():
        now = time.perf_counter()
        longest, last = max(longest, now - last), now
    longest = max(longest, time.perf_counter() - last)  # a stall that lasted until the call returned
    t.join()
    return span["call"], longest


def test_score_releases_the_gil(model):
    texts = ["def f(x):\n    return [i * x for i in range(10)]\n" * 8] * 24
    call, stall = longest_stall_while(lambda: model.score(texts))  # one call into core
    assert call > 0.2 and stall < call / 2, (call, stall)


def test_the_check_sees_a_call_that_keeps_the_gil():
    import ctypes
    libc = ctypes.PyDLL(None)  # a PyDLL call keeps the GIL
    call, stall = longest_stall_while(lambda: libc.usleep(400000))
    assert stall >= call / 2, (call, stall)

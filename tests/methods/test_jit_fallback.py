"""The compiled kernels' decorator falls back to no on-disk cache where numba finds no writable
cache location (numba would refuse to define the function)."""

import numba

import sdcsession.risk._jit as J


def test_cache_when_possible_and_fallback_without_a_cache_location(monkeypatch):
    real = numba.njit
    asked = []

    def njit(cache=False, **kw):
        asked.append(cache)
        if cache:
            def refuse(func):
                raise RuntimeError("cannot cache function 'f': no locator available for file 'x'")
            return refuse
        return real(cache=False, **kw)

    monkeypatch.setattr(J.numba, "njit", njit)

    @J.jit(nogil=True)
    def twice(x):
        return 2 * x

    assert twice(21) == 42 and asked[:2] == [True, False]  # (numba calls njit itself too)


def test_cached_where_writable():
    @J.jit()
    def add(x, y):
        return x + y

    assert add(1, 2) == 3 and add._cache is not None
    assert type(add._cache).__name__ == "FunctionCache"  # not the no-op NullCache

# The walk of a counted deal (core/_deal.pyx): what other compiled modules share of it.
from cpython.float cimport PyFloat_AS_DOUBLE
from cpython.list cimport PyList_GET_ITEM, PyList_GET_SIZE
from cpython.tuple cimport PyTuple_GET_ITEM, PyTuple_GET_SIZE


cdef inline Py_ssize_t bisect_right(list row, double x):
    """The first index of the ascending floats ``row`` whose value is above
    ``x`` (as ``bisect.bisect_right``): where a uniform draw falls in a
    table of cumulative odds."""
    cdef Py_ssize_t lo = 0, hi = PyList_GET_SIZE(row), mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if x < PyFloat_AS_DOUBLE(<object>PyList_GET_ITEM(row, mid)):
            hi = mid
        else:
            lo = mid + 1
    return lo


cdef inline Py_ssize_t bisect_right_tuple(tuple row, double x):
    """:func:`bisect_right` of a tuple of ascending floats (the tables kept
    for long: tuples of floats, which the cycle collector stops tracking)."""
    cdef Py_ssize_t lo = 0, hi = PyTuple_GET_SIZE(row), mid
    while lo < hi:
        mid = (lo + hi) >> 1
        if x < PyFloat_AS_DOUBLE(<object>PyTuple_GET_ITEM(row, mid)):
            hi = mid
        else:
            lo = mid + 1
    return lo

# The playout policies the tree calls (bots/search/_policy.pyx).
from libc.stdint cimport uint64_t

from core._kernel cimport cnt_t
from core._play cimport PlayS

cdef void choose(PlayS* s, uint64_t* rng, int policy, int race, cnt_t* out) noexcept nogil
cdef void playout_with(PlayS* s, uint64_t* rng, int policy, int race) noexcept nogil
cdef int check_policy(int policy) except -1
cdef int race_units(double race) except -1
cdef void random_standing_play(PlayS* s, uint64_t* rng, cnt_t* out, int tries) noexcept nogil

"""Build the compiled parts of ``core`` and ``bots`` (metadata lives in pyproject.toml)."""

from Cython.Build import cythonize
from setuptools import Extension, setup

DIRECTIVES = {
    "language_level": 3,
    "boundscheck": False,
    "wraparound": False,
    "cdivision": True,
    "initializedcheck": False,
    "embedsignature": True,
}

extensions = [
    Extension("core._kernel", ["core/_kernel.pyx"], extra_compile_args=["-O3"]),
    Extension("core._play", ["core/_play.pyx"], extra_compile_args=["-O3"]),
    # the walk of a counted deal (core.dealing): every sampled world
    Extension("core._deal", ["core/_deal.pyx"], extra_compile_args=["-O3"]),
    # the search: cimports core/_play.pxd (the engine) and core/_kernel.pxd; the tree
    # cimports the policies (bots/search/_policy.pxd)
    Extension("bots.search._policy", ["bots/search/_policy.pyx"], extra_compile_args=["-O3"]),
    Extension("bots.search._tree", ["bots/search/_tree.pyx"], extra_compile_args=["-O3"]),
    # the burial model's redraw of the maker's split (bots.search.belief)
    Extension("bots.search._belief", ["bots/search/_belief.pyx"], extra_compile_args=["-O3"]),
]

setup(ext_modules=cythonize(extensions, compiler_directives=DIRECTIVES))

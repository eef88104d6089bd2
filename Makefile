# Everything sets itself up: a .venv with the package (compiled core included)
# and the test tools. `make run` is the main job, `make test` the tests.
PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: run test lint bench build clean

$(STAMP): pyproject.toml setup.py
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet "setuptools>=70" "Cython>=3.0"
	$(PY) -m pip install --quiet --no-build-isolation -e ".[test]"
	@touch $(STAMP)

build: $(STAMP)
	@$(PY) -W ignore setup.py --quiet build_ext --inplace

run: build
	$(VENV)/bin/pengyou arena run

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy

test: build lint
	$(PY) -m pytest

bench: build
	$(VENV)/bin/pengyou bench

clean:
	rm -rf build $(VENV) core/*.c core/*.so bots/search/*.c bots/search/*.so *.egg-info

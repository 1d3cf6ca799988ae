# Every target works on a fresh machine with only python3 and make: it creates
# .venv if it is missing and installs the project into it. `make help` lists them.
VENV   ?= .venv
PYTHON := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# What pytest collects: the tests and the doctests of every package (pyproject's testpaths).
TEST_PATHS := tests hw firmware_host engine

.PHONY: help demo test check clean

help:
	@echo "make demo    play a whole UNO match against the unit daemon on mock pins"
	@echo "make test    every test and doctest, Hypothesis derandomized: what CI runs (.ci/run)"
	@echo "make check   the fast inner loop: every test that needs no process and no real"
	@echo "             clock, and the doctests, in under 20 s"
	@echo "make clean   remove .venv and the build files"

$(STAMP): pyproject.toml
	test -x $(PYTHON) || python3 -m venv $(VENV)
	$(PYTHON) -m pip install --quiet --upgrade pip
	$(PYTHON) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/showdown demo

# The CI command and the README's. The "ci" Hypothesis profile (tests/conftest.py)
# runs the same examples every time and keeps no example database.
test: $(STAMP)
	$(PYTHON) -m pytest --hypothesis-profile=ci $(TEST_PATHS)

# Leaves out the tests marked slow (a process or the real clock; tests/conftest.py).
# The lint and type checks (ruff, mypy) go first in this recipe, before pytest.
check: $(STAMP)
	$(PYTHON) -m pytest -m "not slow" -n 2 $(TEST_PATHS)

clean:
	rm -rf $(VENV) build *.egg-info

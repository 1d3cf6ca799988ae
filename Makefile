# Every target works on a fresh machine with only python3 and make: it creates
# .venv if it is missing and installs the project into it. `make help` lists them.
VENV   ?= .venv
PYTHON := $(VENV)/bin/python
STAMP  := $(VENV)/.installed
# What pytest collects: the tests and the doctests of every package (pyproject's testpaths).
TEST_PATHS := tests hw firmware_host engine

# Two groups of modules compiled by mypyc (docs/performance.md, "Playouts" and
# "The environment"): the playouts' kernel with the heuristic it calls, and the
# environment's UNO kernel. Each is an extension beside each source, which Python
# imports in its place, and the group's shared library, <group>__mypyc. A stamp
# records the try; a failed build leaves no extension, says so, and the Python
# sources (the references) run instead, so nothing else fails.
KERNEL_SRC      := engine/uno/playout_kernel.py engine/uno/playout_heuristic.py
KERNEL_SO       := engine/uno/playout_*.so
KERNEL_STAMP    := $(VENV)/.playout-kernel
RL_KERNEL_SRC   := engine/uno/rl_kernel.py
RL_KERNEL_SO    := engine/uno/rl_*.so
RL_KERNEL_STAMP := $(VENV)/.rl-kernel
# argv[1] names the group, the rest are its sources. mypyc's own command names a
# group's library by a hash, at the top of the tree, where only the tree's own
# directory finds it: named, it sits in the package.
MYPYC_BUILD := import sys; from setuptools import setup; from mypyc.build import mypycify; \
  setup(name=sys.argv[1], script_args=["build_ext", "--inplace"], \
        ext_modules=mypycify(sys.argv[2:], group_name=sys.argv[1]))
# $(call mypyc_group,GROUP,SOURCES,EXTENSIONS,LOG). The touch: an extension
# setuptools did not relink keeps its old time, and the loaders run the sources
# in place of an extension older than them.
define mypyc_group
rm -f $(3)
$(PYTHON) -c '$(MYPYC_BUILD)' $(1) $(2) > $(4) 2>&1 \
  && touch $(3) && rm $(4) \
  || { rm -f $(3); echo "mypyc did not build $(2) ($(4)): it runs interpreted"; }
endef

.PHONY: help demo test check lint clean test-gpio build screenshots

help:
	@echo "make demo    play a whole UNO match against the unit daemon on mock pins"
	@echo "make test    lint, types, every test and doctest (Hypothesis derandomized): what CI runs"
	@echo "make check   the fast inner loop: lint, types, and every test that needs no"
	@echo "             process, network or real clock and is not one of the few heavy"
	@echo "             ones (few Hypothesis examples), and the doctests, in under 20 s"
	@echo "             (two pytest processes; each report is printed when both are done)"
	@echo "make lint    ruff (lint and format) and mypy alone"
	@echo "make test-gpio  the daemon on a real kernel GPIO chip (gpio-sim under qemu; root,"
	@echo "             Debian; a few minutes the first time): tests/kernel/run.sh"
	@echo "make screenshots  the browser tests, saving their pictures into docs/screenshots"
	@echo "             (the other targets keep them in .pytest_cache/screenshots)"
	@echo "make build   compile the playouts' and the environment's kernels with mypyc"
	@echo "             (test and check do it)"
	@echo "make clean   remove .venv and the build files"

$(STAMP): pyproject.toml
	test -x $(PYTHON) || python3 -m venv $(VENV)
	$(PYTHON) -m pip install --quiet --upgrade pip
	$(PYTHON) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

build: $(KERNEL_STAMP) $(RL_KERNEL_STAMP)

# mypyc builds through setuptools, which reads pyproject.toml: it needs the
# setuptools [build-system] names (a new venv has an older one).
$(KERNEL_STAMP): $(STAMP) $(KERNEL_SRC)
	$(PYTHON) -m pip install --quiet 'setuptools>=77'
	$(call mypyc_group,engine.uno.playout_native,$(KERNEL_SRC),$(KERNEL_SO),build-kernel.log)
	touch $(KERNEL_STAMP)

# After the playouts' build (order only): the two share setuptools' build/ directory.
$(RL_KERNEL_STAMP): $(STAMP) $(RL_KERNEL_SRC) | $(KERNEL_STAMP)
	$(call mypyc_group,engine.uno.rl_native,$(RL_KERNEL_SRC),$(RL_KERNEL_SO),build-rl-kernel.log)
	touch $(RL_KERNEL_STAMP)

demo: $(STAMP)
	$(VENV)/bin/showdown demo

# The CI command and the README's. The "ci" Hypothesis profile (tests/conftest.py)
# runs the same examples every time and keeps no example database. Two workers:
# most slow tests wait on a process, a browser or a terminal, so one core idles
# without the second (docs/performance.md, "The whole suite"). Writes bytecode as
# check does: each worker and each Python process the tests start would otherwise
# compile every module it imports again.
test: export PYTHONDONTWRITEBYTECODE :=
test: lint $(KERNEL_STAMP) $(RL_KERNEL_STAMP)
	$(PYTHON) -m pytest --hypothesis-profile=ci -n 2 $(TEST_PATHS)

# Leaves out the tests marked slow (a process, the network or the real clock;
# tests/conftest.py), with the "check" Hypothesis profile: the same few examples
# every run. Two pytest processes, each every other test (tests/shards.py): xdist's
# reports cost 2 ms of CPU a test, twice a plain process's, and the tier is 3,700
# tests of a few ms. No playwright plugin: no fast test drives a browser.
# Writes bytecode even where PYTHONDONTWRITEBYTECODE is set: pytest keeps its
# assert-rewritten test files there, and rewriting them all again is 6 s a worker.
# Keeps the tests' temporary files in memory where there is a /dev/shm: the saves'
# fsyncs wait for the disk, seconds of a run on a busy one (make test keeps the disk).
check: export PYTHONDONTWRITEBYTECODE :=
check: export TMPDIR := $(or $(wildcard /dev/shm),$(TMPDIR))
check: lint $(KERNEL_STAMP) $(RL_KERNEL_STAMP)
	$(PYTHON) -m tests.shards 2 -m "not slow" --hypothesis-profile=check -p no:playwright $(TEST_PATHS)

# The tests that take the docs' screenshots (tests/screenshots.py), saving them
# into docs/screenshots; every other run keeps them out of the checkout.
screenshots: $(STAMP)
	UPDATE_SCREENSHOTS=1 $(PYTHON) -m pytest -n 2 $(shell grep -l "tests.screenshots import" tests/test_*.py)

# The daemon on lgpio and RPi.GPIO against the kernel's gpio-sim driver in a qemu
# guest (tests/kernel/run.sh); without root or qemu it says what is missing and
# skips, unless CI=true.
test-gpio: $(STAMP)
	tests/kernel/run.sh

# ruff and mypy read their settings from pyproject.toml. `ruff format .` fixes
# what the format check finds.
lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy

clean:
	rm -rf $(VENV) build *.egg-info build-kernel.log $(KERNEL_SO) build-rl-kernel.log $(RL_KERNEL_SO)

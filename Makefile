# Both targets work on a fresh machine with only python3 and make:
# they create .venv if it is missing and install the project into it.
VENV   ?= .venv
PYTHON := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: demo test clean

$(STAMP): pyproject.toml
	test -x $(PYTHON) || python3 -m venv $(VENV)
	$(PYTHON) -m pip install --quiet --upgrade pip
	$(PYTHON) -m pip install --quiet -e '.[test]'
	touch $(STAMP)

demo: $(STAMP)
	$(VENV)/bin/showdown demo

test: $(STAMP)
	$(PYTHON) -m pytest tests hw firmware_host engine

clean:
	rm -rf $(VENV) build *.egg-info

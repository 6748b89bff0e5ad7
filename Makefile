# Kite: two commands do all the set-up on a fresh machine.
#   make demo   run an agent task on the bundled shop (KITE_MODEL, or the bundled local model)
#   make test   ruff check and ruff format --check, then mypy beside the test suite without its heavy checks (the
#               rooms' import rules, the ceilings of `Any` per room and the docs checked against the code
#               among them: tests/test_rooms.py, tests/test_any_ratchet.py, tests/test_docs.py) in TEST_WORKERS processes
#               (default 3: most tests wait on Chromium; PYTEST_ARGS=... passes options to pytest)
#   make test-slow  the heavy checks (tests marked `slow`: Ray, the wheel, fuzzing, signals, the panel in a
#               browser, ...); CI runs both (.ci/run)
#   make lint   the lint steps alone: ruff, mypy, the rooms' import rules and the docs checked against the code
#   make install  put `kite` on your PATH: a link in BINDIR (default ~/.local/bin) to .venv/bin/kite
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.kite-installed
TEST_WORKERS ?= 3
BINDIR ?= $(HOME)/.local/bin
KITE   := $(abspath $(VENV))/bin/kite
ONPATH := kite is at $(VENV)/bin/kite: run 'make install' to put it on your PATH (or: source $(VENV)/bin/activate)

.PHONY: test test-slow demo chromium lint lint-code lint-ruff clean-venv install

# A current pip first (Python 3.11's own is slower to choose versions against the package index), and the bytecode
# compiled after the install on every core (pip compiles file by file on one): docs/benchmarks.md, the CI row.
$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check --upgrade 'pip>=25' || echo 'pip stays as it is (slower to install)'
	$(PY) -m pip install -q --disable-pip-version-check --no-compile -e '.[dev]'
	@$(PY) -m compileall -q -j 0 $(VENV)/lib || echo 'some bytecode was not compiled: Python compiles it on first import'
	@touch $(STAMP)

chromium: $(STAMP)
	@$(PY) -m kite_browser.agent.browser.chromium --ensure >/dev/null

# The tests write Python's bytecode even where the environment says not to (PYTHONDONTWRITEBYTECODE, empty here):
# otherwise each of their Python processes compiles Kite again, and each xdist worker rewrites every test module
# (collecting took 11.6 s a worker without the cache, 6.5 s with it). It lands in __pycache__/, which git ignores.
NOBYTECODE_OFF := PYTHONDONTWRITEBYTECODE=

# mypy (35 s on one core from a clean clone) runs beside the suite, its report printed after it; either failing
# fails make test.
test: lint-ruff chromium
	@$(PY) -m mypy > $(VENV)/mypy.out 2>&1 & mypy=$$!; \
	echo "$(NOBYTECODE_OFF) $(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadgroup -m \"not slow\" $(PYTEST_ARGS)   (mypy beside it)"; \
	$(NOBYTECODE_OFF) $(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadgroup -m "not slow" $(PYTEST_ARGS); tests=$$?; \
	wait $$mypy; typed=$$?; echo "$(PY) -m mypy"; cat $(VENV)/mypy.out; test $$tests -eq 0 -a $$typed -eq 0

test-slow: $(STAMP) chromium
	$(NOBYTECODE_OFF) $(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadgroup -m slow $(PYTEST_ARGS)

demo: $(STAMP) chromium
	@$(VENV)/bin/kite demo; status=$$?; echo "$(ONPATH)"; exit $$status

install: $(STAMP) chromium
	@mkdir -p "$(BINDIR)"
	@ln -sfn "$(KITE)" "$(BINDIR)/kite"
	@echo "installed: $(BINDIR)/kite -> $(KITE)"
	@case ":$$PATH:" in *":$(BINDIR):"*) echo "try: kite --help";; \
	  *) echo "$(BINDIR) is not on your PATH: add  export PATH=\"$(BINDIR):\$$PATH\"  to your shell's profile, then: kite --help";; esac

# make test runs tests/test_rooms.py, tests/test_any_ratchet.py and tests/test_docs.py within its suite, so it
# runs only ruff first and mypy beside the suite (not each file a second time, in a pytest of its own)
lint: lint-code
	$(PY) -m pytest -q -p no:cacheprovider tests/test_rooms.py tests/test_any_ratchet.py
	$(PY) -m pytest -q -p no:cacheprovider -m "not slow" tests/test_docs.py

lint-ruff: $(STAMP)
	$(PY) -m ruff check agent safety evals tests kite_browser
	$(PY) -m ruff format --check agent safety evals tests kite_browser

lint-code: lint-ruff
	$(PY) -m mypy

clean-venv:
	rm -rf $(VENV)

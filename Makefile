# The two commands a new machine needs: `make run` and `make test` (see README.md).
# Swift is the one on PATH or /opt/swift's (scripts/swift.sh); Python runs only in the project's
# virtual environment, .venv/, which `make test` creates (scripts/install-deps.sh).
SWIFT ?= sh scripts/swift.sh
VENV ?= .venv
BIN := .build/debug/greenroom

.PHONY: deps deps-test build release run test test-swift test-python test-fuzz fuzz bench clean

deps:
	@sh scripts/install-deps.sh build

deps-test:
	@VENV=$(VENV) sh scripts/install-deps.sh test

build: deps
	$(SWIFT) build --build-tests

release: deps
	$(SWIFT) build -c release

# Runs the host, optimised (the build the budgets are measured on), on the default socket
# ($$GREENROOM_SOCKET, else $$XDG_RUNTIME_DIR/greenroom/host.sock or /tmp/greenroom-$$UID/host.sock).
# Needs no Python.
run: deps
	$(SWIFT) build -c release --product greenroom
	.build/release/greenroom serve $(ARGS)

test: deps-test build test-swift test-python test-fuzz

test-swift:
	$(SWIFT) test --skip-build

# The virtual environment's bin/ comes first on PATH, so that scripts the tests start find its python.
test-python:
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" GREENROOM_BIN=$(CURDIR)/$(BIN) $(VENV)/bin/python -m pytest -q

# A short coverage-guided fuzz run (scripts/fuzz.sh: its own build in .build-fuzz), and a long one.
FUZZ_SECONDS ?= 600
test-fuzz: deps-test
	sh scripts/fuzz.sh -max_total_time=20

fuzz: deps-test
	sh scripts/fuzz.sh -max_total_time=$(FUZZ_SECONDS) $(ARGS)

bench: release
	.build/release/greenroom bench $(ARGS)

clean:
	rm -rf .build .build-fuzz $(VENV)

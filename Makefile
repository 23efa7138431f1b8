# The two commands a new machine needs: `make run` and `make test` (see README.md).
SWIFT ?= swift
PYTHON ?= python3
BIN := .build/debug/greenroom

.PHONY: deps build release run test test-swift test-python bench clean

deps:
	@sh scripts/install-deps.sh

build: deps
	$(SWIFT) build --build-tests

release: deps
	$(SWIFT) build -c release

# Runs the host, optimised (the build the budgets are measured on), on the default socket
# ($$XDG_RUNTIME_DIR/greenroom/host.sock or /tmp/greenroom-$$UID/host.sock).
run: deps
	$(SWIFT) build -c release --product greenroom
	.build/release/greenroom serve $(ARGS)

test: build
	$(SWIFT) test --skip-build
	GREENROOM_BIN=$(CURDIR)/$(BIN) $(PYTHON) -m pytest -q

bench: release
	.build/release/greenroom bench $(ARGS)

clean:
	rm -rf .build

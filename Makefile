# The two commands a new machine needs: `make run` and `make test` (see README.md).
# Swift is the one on PATH or /opt/swift's (scripts/swift.sh); Python runs only in the project's
# virtual environment, .venv/, which `make test` creates (scripts/install-deps.sh).
SWIFT ?= sh scripts/swift.sh
VENV ?= .venv
BIN := .build/debug/greenroom
# The integration suite runs against the build users get (`make run`, `make install`): release. The Swift
# unit tests run on the debug build (dynamic exclusivity checks on). TEST_CONFIG=debug runs the whole
# integration suite on the debug build too: `make test-python TEST_CONFIG=debug`.
TEST_CONFIG ?= release
TEST_BIN := .build/$(TEST_CONFIG)/greenroom
# Release-only compiler flags, given on the build command rather than in Package.swift: SwiftPM refuses a
# package whose targets carry unsafeFlags when another package depends on it by version (a plugin built
# on GreenroomPluginKit). Generic RPC and JSON code is called across module boundaries, and full
# cross-module optimisation lets the compiler specialise it instead of looking up generic metadata per
# request; dynamic exclusivity checks on class properties cost more per request than the JSON work
# (docs/performance.md measures both). Debug builds, and so the Swift unit tests, keep the checks.
RELEASE_FLAGS := -Xswiftc -cross-module-optimization -Xswiftc -enforce-exclusivity=unchecked
CONFIG_FLAGS = $(if $(filter release,$(CONFIG)),$(RELEASE_FLAGS))

PREFIX ?= /usr/local
DESTDIR ?=
# install takes the release build; CONFIG=debug installs the debug one (the tests do, to avoid a
# second, optimised build).
CONFIG ?= release

.PHONY: schema deps deps-test build release run test test-swift test-python test-js screenshots bench bench-browser install install-files test-fuzz fuzz fuzz-schema tsan clean generate-clients

deps:
	@sh scripts/install-deps.sh build

deps-test:
	@VENV=$(VENV) sh scripts/install-deps.sh test

build: deps
	$(SWIFT) build --build-tests

release: deps
	$(SWIFT) build -c release $(RELEASE_FLAGS)

# Runs the host, optimised (the build the budgets are measured on), on the default socket
# ($$GREENROOM_SOCKET, else $$XDG_RUNTIME_DIR/greenroom/host.sock or /tmp/greenroom-$$UID/host.sock).
# Needs no Python.
run: deps
	$(SWIFT) build -c release $(RELEASE_FLAGS) --product greenroom
	$(SWIFT) build -c release $(RELEASE_FLAGS) --product greenroom-host
	.build/release/greenroom serve $(ARGS)

test: deps-test build release test-swift test-js test-python test-fuzz

test-swift:
	$(SWIFT) test --skip-build

# The web pages' logic (examples/web: the inspector's model, the demo's feed, pager and article) under
# node against fake clients; the pages themselves run in a real browser in tests/integration/test_web_pages.py.
test-js:
	node --test tests/js/

# The typed clients (clients/python/src/greenroom/api.py, aio_api.py; clients/js/greenroom.d.ts) from
# rpc-schema/openrpc.json. Reads only that file; plain python3, no virtual environment, no build.
# clients/python/tests/test_generated_api.py fails when they are stale.
generate-clients:
	python3 scripts/generate_clients.py

# The virtual environment's bin/ comes first on PATH, so that scripts the tests start find its python.
test-python:
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" GREENROOM_BIN=$(CURDIR)/$(TEST_BIN) $(VENV)/bin/python -m pytest -q

# A short coverage-guided fuzz run (scripts/fuzz.sh: its own build in .build-fuzz, with AddressSanitizer;
# inputs whose scripted costs make calls wait are fuzzed too), and a long one (`make fuzz`).
FUZZ_SECONDS ?= 600
test-fuzz: deps-test
	sh scripts/fuzz.sh -max_total_time=20

fuzz: deps-test
	sh scripts/fuzz.sh -max_total_time=$(FUZZ_SECONDS) $(ARGS)

# ThreadSanitizer over the integration tests that run the host's threads: the read-ahead parser,
# libuv's work pool (plugins loaded in process), and calls that wait on plugin workers and scripted
# costs. The host and its plugins are built with -sanitize=thread into .build-tsan; a host that TSan
# reported on exits 66, which fails the test that stopped it (reports go to .build-tsan/reports).
# TSAN_TESTS picks other tests. Left out: the workers that crash on purpose, which under TSan die
# through its own handler (exit 66) instead of by the signal those tests check. Swift's crash backtracer
# is off: started from a crashing worker's signal handler under TSan it trips TSan's own checks.
TSAN_TESTS ?= tests/integration/test_calls_that_wait.py tests/integration/test_plugin_lane.py \
    tests/integration/test_plugin_isolation.py tests/integration/test_worker_protocol.py \
    tests/integration/test_wire_requests.py tests/integration/test_host_connections.py
tsan: deps-test
	$(SWIFT) build --scratch-path .build-tsan -Xswiftc -sanitize=thread
	rm -rf .build-tsan/reports && mkdir -p .build-tsan/reports
	SWIFT_BACKTRACE=enable=no TSAN_OPTIONS="halt_on_error=0 exitcode=66 second_deadlock_stack=1 log_path=$(CURDIR)/.build-tsan/reports/tsan" \
	    PATH="$(CURDIR)/$(VENV)/bin:$$PATH" GREENROOM_BIN=$(CURDIR)/.build-tsan/debug/greenroom \
	    $(VENV)/bin/python -m pytest -q $(TSAN_TESTS) -k "not crashing_hook_fails_only_its_plugins" $(ARGS)
	@if ls .build-tsan/reports/tsan.* >/dev/null 2>&1; then echo "ThreadSanitizer reports:"; ls .build-tsan/reports; exit 1; fi
	@echo "ThreadSanitizer: no reports"

# The OpenRPC document is generated from the message types (Sources/GreenroomHost/Protocol): this writes
# rpc-schema/openrpc.json from the debug binary, which a test compares with the file.
schema: build
	$(BIN) schema > rpc-schema/openrpc.json
	$(MAKE) generate-clients

# The schema-driven fuzz at length: params drawn from rpc-schema/openrpc.json sent to a live host
# (tests/schema/test_schema_fuzz.py, which `make test` runs with 40 examples per method). FUZZ_SCHEMA_EXAMPLES
# per method, FUZZ_SCHEMA_SEED to explore elsewhere; every distinct finding is listed, not only the first.
FUZZ_SCHEMA_EXAMPLES ?= 2000
FUZZ_SCHEMA_SEED ?= 20251127
fuzz-schema: deps-test build
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" GREENROOM_BIN=$(CURDIR)/$(BIN) GREENROOM_FUZZ_EXAMPLES=$(FUZZ_SCHEMA_EXAMPLES) \
	    GREENROOM_FUZZ_SEED=$(FUZZ_SCHEMA_SEED) GREENROOM_FUZZ_SURVEY=1 \
	    $(VENV)/bin/python -m pytest -q tests/schema/test_schema_fuzz.py::test_schema_fuzz $(ARGS)

bench: release
	.build/release/greenroom bench $(ARGS)

# The browser row: range.didScroll to its range event inside chromium (ws:) beside the Unix socket, and the
# demo feed's blank and wasted rows at 150 and 500 ms of backend latency.
bench-browser: release deps-test
	$(VENV)/bin/python scripts/bench_browser.py --bin .build/release/greenroom $(ARGS)

# The README's pictures, taken by the browser tests themselves (docs/img/*.png).
screenshots: deps-test build
	PATH="$(CURDIR)/$(VENV)/bin:$$PATH" GREENROOM_BIN=$(CURDIR)/$(BIN) GREENROOM_SCREENSHOTS=$(CURDIR)/docs/img \
	    $(VENV)/bin/python -m pytest -q tests/integration/test_web_pages.py

# Installs like a daemon: the host (greenroom, and greenroom-host, which `greenroom serve` runs the host in)
# and greenroomctl in bin/ (greenroomctl's WebSocket helper, wsbridge.py, in
# lib/greenroom/), the example plugins in lib/greenroom/plugins/,
# the plugin header in include/, bash/zsh/fish completions and man pages (argument-parser's generators).
install: $(CONFIG) install-files

install-files:
	$(SWIFT) package $(CONFIG_FLAGS) generate-manual --configuration $(CONFIG) --multi-page >/dev/null
	rm -f .build/plugins/GenerateManual/outputs/greenroom/greenroom.echo-server.1  # bench's internal baseline
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/greenroom/plugins $(DESTDIR)$(PREFIX)/include \
	    $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/bash-completion/completions \
	    $(DESTDIR)$(PREFIX)/share/zsh/site-functions $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d
	install -m 755 .build/$(CONFIG)/greenroom .build/$(CONFIG)/greenroom-host clients/shell/greenroomctl $(DESTDIR)$(PREFIX)/bin/
	install -m 644 .build/$(CONFIG)/libArticlePlugin.so .build/$(CONFIG)/libCounterPlugin.so .build/$(CONFIG)/libCrashyPlugin.so \
	    $(DESTDIR)$(PREFIX)/lib/greenroom/plugins/
	install -m 644 Sources/CGreenroomPlugin/include/greenroom_plugin.h $(DESTDIR)$(PREFIX)/include/
	install -m 644 clients/python/src/greenroom/wsbridge.py $(DESTDIR)$(PREFIX)/lib/greenroom/  # greenroomctl --ws
	install -m 644 .build/plugins/GenerateManual/outputs/greenroom/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	.build/$(CONFIG)/greenroom --generate-completion-script bash > $(DESTDIR)$(PREFIX)/share/bash-completion/completions/greenroom
	.build/$(CONFIG)/greenroom --generate-completion-script zsh > $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_greenroom
	.build/$(CONFIG)/greenroom --generate-completion-script fish > $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/greenroom.fish

clean:
	rm -rf .build .build-fuzz .build-tsan $(VENV)

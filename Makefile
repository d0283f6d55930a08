# schedcheck front door.  Every target installs what it is missing, so on a
# fresh Debian 12 machine `make run` and `make test` are all the set-up.
#
#   make run      prove the built-in matrix, print the verdict table,
#                 write counterexample reports and reproducers under out/
#   make test     unit and regression tests, corpus replay under ASan+UBSan
#   make fuzz     libFuzzer and AFL++ runs of the property harness
#   make bench    speed figures (ratios measured in one run)
#   make equiv    the variants against the oracles extracted from seed 000
#                 and from the Linux 6.1 and 6.12 sources
#   make install  put schedcheck on PATH (PREFIX=/usr/local)

SHELL := /bin/bash
BUILD ?= build
SANBUILD ?= build-san
FUZZBUILD ?= build-fuzz
AFLBUILD ?= build-afl
PREFIX ?= /usr/local
JOBS ?= $(shell nproc)
FUZZ_SECONDS ?= 60
OUT ?= out

DEB_PACKAGES := build-essential cmake pkg-config libz3-dev z3 catch2 clang libclang-rt-14-dev \
                afl++ libcli11-dev nlohmann-json3-dev libfmt-dev linux-source-6.1 linux-source-6.12

# libFuzzer harnesses of every parser; each has its seed corpus in
# corpora/<name without _fuzz>.
PARSER_HARNESSES := reproducer_reader_fuzz expected_reader_fuzz patch_series_fuzz c_definitions_fuzz

.PHONY: all deps build run test fuzz bench equiv install clean corpus-replay

all: build

# Install the Debian packages that are not there yet (as root directly,
# otherwise through sudo).  The stamp keeps later calls instant.
deps: $(BUILD)/.deps-ok
$(BUILD)/.deps-ok:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "schedcheck: installing Debian packages:$$missing"; \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  export DEBIAN_FRONTEND=noninteractive; \
	  $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq --no-install-recommends $$missing \
	    || { echo "schedcheck: apt-get install failed; run: sudo apt-get install$$missing" >&2; exit 1; }; \
	fi
	@mkdir -p $(BUILD) && touch $@

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

run: build
	./$(BUILD)/schedcheck prove --out $(OUT)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)
	$(MAKE) --no-print-directory corpus-replay

# Replay every corpus file through the property harness built with
# AddressSanitizer and UndefinedBehaviorSanitizer.
corpus-replay: deps
	CC=clang CXX=clang++ cmake -S . -B $(SANBUILD) -DCMAKE_BUILD_TYPE=Debug \
	  -DSCHEDCHECK_TESTS=OFF -DSCHEDCHECK_FUZZ=ON >/dev/null
	cmake --build $(SANBUILD) -j $(JOBS) --target cpuload_property_fuzz differential_fuzz $(PARSER_HARNESSES)
	./$(SANBUILD)/fuzz/cpuload_property_fuzz -runs=0 corpora/cpuload
	./$(SANBUILD)/fuzz/differential_fuzz -runs=0 corpora/differential
	@for h in $(PARSER_HARNESSES); do \
	  ./$(SANBUILD)/fuzz/$$h -runs=0 corpora/$${h%_fuzz} >$(SANBUILD)/replay-$$h.log 2>&1 \
	    || { tail -40 $(SANBUILD)/replay-$$h.log; exit 1; }; \
	done
	@echo "corpus replay: all inputs of corpora/cpuload, corpora/differential and the parser corpora passed under ASan+UBSan"
	@# A bounded smoke run of each harness (mutations, not only the corpus);
	@# a failure shows the harness's report and fails the target.
	./$(SANBUILD)/fuzz/cpuload_property_fuzz -runs=2000 -seed=1 -dict=corpora/cpuload.dict \
	  -artifact_prefix=$(SANBUILD)/ corpora/cpuload >$(SANBUILD)/smoke-cpuload.log 2>&1 \
	  || { tail -40 $(SANBUILD)/smoke-cpuload.log; exit 1; }
	@tail -1 $(SANBUILD)/smoke-cpuload.log
	mkdir -p $(SANBUILD)/smoke-differential && cp -n corpora/differential/* $(SANBUILD)/smoke-differential/
	./$(SANBUILD)/fuzz/differential_fuzz -runs=100000 -seed=1 -artifact_prefix=$(SANBUILD)/ \
	  $(SANBUILD)/smoke-differential >$(SANBUILD)/smoke-differential.log 2>&1 \
	  || { tail -40 $(SANBUILD)/smoke-differential.log; exit 1; }
	@tail -1 $(SANBUILD)/smoke-differential.log

fuzz: deps
	CC=clang CXX=clang++ cmake -S . -B $(FUZZBUILD) -DCMAKE_BUILD_TYPE=Release \
	  -DSCHEDCHECK_TESTS=OFF -DSCHEDCHECK_FUZZ=ON >/dev/null
	cmake --build $(FUZZBUILD) -j $(JOBS) --target cpuload_property_fuzz differential_fuzz
	mkdir -p $(FUZZBUILD)/corpus-differential && cp -n corpora/differential/* $(FUZZBUILD)/corpus-differential/
	SCHEDCHECK_REPRO_DIR=corpora/differential ./$(FUZZBUILD)/fuzz/differential_fuzz -max_total_time=$(FUZZ_SECONDS) \
	  $(FUZZBUILD)/corpus-differential corpora/differential
	mkdir -p $(FUZZBUILD)/corpus && cp -n corpora/cpuload/* $(FUZZBUILD)/corpus/ 2>/dev/null || true
	./$(FUZZBUILD)/fuzz/cpuload_property_fuzz -max_total_time=$(FUZZ_SECONDS) \
	  -dict=corpora/cpuload.dict $(FUZZBUILD)/corpus corpora/cpuload
	CC=afl-clang-fast CXX=afl-clang-fast++ cmake -S . -B $(AFLBUILD) -DCMAKE_BUILD_TYPE=Release \
	  -DSCHEDCHECK_TESTS=OFF -DSCHEDCHECK_FUZZ=ON -DSCHEDCHECK_AFL=ON >/dev/null
	cmake --build $(AFLBUILD) -j $(JOBS) --target cpuload_property_afl differential_afl
	AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1 \
	  timeout --preserve-status $$(( $(FUZZ_SECONDS) + 30 )) \
	  afl-fuzz -V $(FUZZ_SECONDS) -x corpora/cpuload.dict -i corpora/cpuload -o $(AFLBUILD)/findings \
	  -- ./$(AFLBUILD)/fuzz/cpuload_property_afl
	AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1 \
	  SCHEDCHECK_REPRO_DIR=corpora/differential timeout --preserve-status $$(( $(FUZZ_SECONDS) + 30 )) \
	  afl-fuzz -V $(FUZZ_SECONDS) -i corpora/differential -o $(AFLBUILD)/findings-differential \
	  -- ./$(AFLBUILD)/fuzz/differential_afl
	@crashes=$$(ls $(AFLBUILD)/findings/default/crashes $(AFLBUILD)/findings-differential/default/crashes \
	  2>/dev/null | grep -v -e README -e '^$$' -e ':$$' | wc -l); \
	  echo "afl-fuzz: $$crashes crashing inputs"; test $$crashes -eq 0

bench: build
	./$(BUILD)/schedcheck_bench

# Each variant against the patch image it is meant to equal.
equiv: build
	./$(BUILD)/schedcheck equiv --variant cpuload/v3.13 --oracle seed000-pre
	./$(BUILD)/schedcheck equiv --variant cpuload/shi-1 --oracle seed000-pre
	./$(BUILD)/schedcheck equiv --variant cpuload/shi-1-3 --oracle seed000-post3
	./$(BUILD)/schedcheck equiv --variant cpuload/shi-1-4 --oracle seed000-post3
	./$(BUILD)/schedcheck equiv --variant cpuload/shi-1-5 --oracle seed000-post5
	./$(BUILD)/schedcheck equiv --variant pelt/v6.1 --oracle linux-6.1
	./$(BUILD)/schedcheck equiv --variant pelt/v6.12 --oracle linux-6.12
	./$(BUILD)/schedcheck equiv --variant utilest/v6.1 --oracle linux-6.1
	./$(BUILD)/schedcheck equiv --variant utilest/v6.12 --oracle linux-6.12

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

clean:
	rm -rf $(BUILD) $(SANBUILD) $(FUZZBUILD) $(AFLBUILD) $(OUT)

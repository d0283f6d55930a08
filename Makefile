# schedcheck front door.  Every target installs what it is missing, so on a
# fresh Debian 12 machine `make run` and `make test` are all the set-up.
#
#   make run      prove the built-in matrix, print the verdict table,
#                 write counterexample reports and reproducers under out/
#   make test     unit and regression tests, corpus replay under ASan+UBSan
#   make fuzz     libFuzzer and AFL++ runs of the property and differential
#                 harnesses, then libFuzzer runs of every parser harness
#   make bench    speed figures (ratios measured in one run)
#   make equiv    the variants against the oracles extracted from seed 000
#                 and from the Linux 6.1 and 6.12 sources
#   make install  put schedcheck on PATH (PREFIX=/usr/local)
#   make timings  re-measure each proof's time (proofs/expected/timings.txt,
#                 what `prove --shard I/N` balances)
#   make fuzz JOBS=N      libFuzzer, then AFL++ as 1 -M and N-1 -S instances
#   make fuzz-report      crashes, corpus size and coverage of the last runs
#   make fuzz-parsers     the parser harnesses alone under ASan+UBSan,
#                         FUZZ_SECONDS each, JOBS at a time
#   make corpus-min       minimise every corpus, keeping named regression inputs
#   make cflite-test      .clusterfuzzlite/build.sh as the services run it, and
#                         each harness for a few seconds
#   make coverage         llvm-cov of ref/ reached by replaying the corpora
#   make deb              a Debian package (CPack)
#   make deb-test         that package installed and run in a clean Debian 12
#                         chroot (root, debootstrap, the Debian archive)

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
                afl++ libcli11-dev nlohmann-json3-dev libfmt-dev linux-source-6.1 linux-source-6.12 \
                python3-jsonschema

# libFuzzer harnesses of every parser; each has its seed corpus in
# corpora/<name without _fuzz>.
PARSER_HARNESSES := reproducer_reader_fuzz expected_reader_fuzz patch_series_fuzz c_definitions_fuzz \
                    simulate_input_fuzz oracle_manifest_fuzz

FUZZPROPBUILD ?= build-fuzz-prop
COVBUILD ?= build-cov
CFLITE ?= build-cflite
ALL_HARNESSES := cpuload_property_fuzz differential_fuzz idlebal_differential_fuzz wakeaffine_differential_fuzz \
                 cfsrq_differential_fuzz invariant_points_fuzz \
                 $(PARSER_HARNESSES)
# The corpus directory of harness $$h: corpora/<h without _fuzz>, except
# the property harness's corpora/cpuload.
CORPUS_OF = corp() { case $$1 in cpuload_property_fuzz) echo corpora/cpuload;; *) echo corpora/$${1%_fuzz};; esac; }

.PHONY: bench-fuzz fuzz-prop-build fuzz-parsers
.PHONY: all deps build run test fuzz bench equiv install clean corpus-replay timings fuzz-report corpus-min \
        cflite-test coverage deb deb-test

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
	cmake --build $(SANBUILD) -j $(JOBS) --target cpuload_property_fuzz differential_fuzz idlebal_differential_fuzz \
	  wakeaffine_differential_fuzz cfsrq_differential_fuzz invariant_points_fuzz $(PARSER_HARNESSES)
	./$(SANBUILD)/fuzz/cpuload_property_fuzz -runs=0 corpora/cpuload
	./$(SANBUILD)/fuzz/differential_fuzz -runs=0 corpora/differential
	./$(SANBUILD)/fuzz/idlebal_differential_fuzz -runs=0 corpora/idlebal_differential
	./$(SANBUILD)/fuzz/wakeaffine_differential_fuzz -runs=0 corpora/wakeaffine_differential
	./$(SANBUILD)/fuzz/cfsrq_differential_fuzz -runs=0 corpora/cfsrq_differential >$(SANBUILD)/replay-cfsrq.log 2>&1 \
	  || { tail -40 $(SANBUILD)/replay-cfsrq.log; exit 1; }
	./$(SANBUILD)/fuzz/invariant_points_fuzz -runs=0 corpora/invariant_points >$(SANBUILD)/replay-invariant_points.log 2>&1 \
	  || { tail -40 $(SANBUILD)/replay-invariant_points.log; exit 1; }
	@for h in $(PARSER_HARNESSES); do \
	  ./$(SANBUILD)/fuzz/$$h -runs=0 corpora/$${h%_fuzz} >$(SANBUILD)/replay-$$h.log 2>&1 \
	    || { tail -40 $(SANBUILD)/replay-$$h.log; exit 1; }; \
	done
	@echo "corpus replay: all inputs of corpora/cpuload, corpora/differential, corpora/idlebal_differential, corpora/wakeaffine_differential, corpora/cfsrq_differential, corpora/invariant_points and the parser corpora passed under ASan+UBSan"
	@# A bounded smoke run of each harness (mutations, not only the corpus);
	@# a failure shows the harness's report and fails the target.
	@# On a scratch copy: libFuzzer adds what it finds to its first corpus
	@# directory, and a run must add nothing to corpora/ by itself.
	mkdir -p $(SANBUILD)/smoke-cpuload && cp -n corpora/cpuload/* $(SANBUILD)/smoke-cpuload/
	./$(SANBUILD)/fuzz/cpuload_property_fuzz -runs=2000 -seed=1 -dict=corpora/cpuload.dict \
	  -artifact_prefix=$(SANBUILD)/ $(SANBUILD)/smoke-cpuload >$(SANBUILD)/smoke-cpuload.log 2>&1 \
	  || { tail -40 $(SANBUILD)/smoke-cpuload.log; exit 1; }
	@tail -1 $(SANBUILD)/smoke-cpuload.log
	mkdir -p $(SANBUILD)/smoke-differential && cp -n corpora/differential/* $(SANBUILD)/smoke-differential/
	./$(SANBUILD)/fuzz/differential_fuzz -runs=100000 -seed=1 -artifact_prefix=$(SANBUILD)/ \
	  $(SANBUILD)/smoke-differential >$(SANBUILD)/smoke-differential.log 2>&1 \
	  || { tail -40 $(SANBUILD)/smoke-differential.log; exit 1; }
	@tail -1 $(SANBUILD)/smoke-differential.log
	mkdir -p $(SANBUILD)/smoke-idlebal && cp -n corpora/idlebal_differential/* $(SANBUILD)/smoke-idlebal/
	./$(SANBUILD)/fuzz/idlebal_differential_fuzz -runs=100000 -seed=1 -artifact_prefix=$(SANBUILD)/ \
	  $(SANBUILD)/smoke-idlebal >$(SANBUILD)/smoke-idlebal.log 2>&1 \
	  || { tail -40 $(SANBUILD)/smoke-idlebal.log; exit 1; }
	@tail -1 $(SANBUILD)/smoke-idlebal.log
	mkdir -p $(SANBUILD)/smoke-wakeaffine && cp -n corpora/wakeaffine_differential/* $(SANBUILD)/smoke-wakeaffine/
	./$(SANBUILD)/fuzz/wakeaffine_differential_fuzz -runs=100000 -seed=1 -artifact_prefix=$(SANBUILD)/ \
	  $(SANBUILD)/smoke-wakeaffine >$(SANBUILD)/smoke-wakeaffine.log 2>&1 \
	  || { tail -40 $(SANBUILD)/smoke-wakeaffine.log; exit 1; }
	@tail -1 $(SANBUILD)/smoke-wakeaffine.log
	mkdir -p $(SANBUILD)/smoke-cfsrq && cp -n corpora/cfsrq_differential/* $(SANBUILD)/smoke-cfsrq/
	./$(SANBUILD)/fuzz/cfsrq_differential_fuzz -runs=100000 -seed=1 -artifact_prefix=$(SANBUILD)/ \
	  $(SANBUILD)/smoke-cfsrq >$(SANBUILD)/smoke-cfsrq.log 2>&1 \
	  || { tail -40 $(SANBUILD)/smoke-cfsrq.log; exit 1; }
	@tail -1 $(SANBUILD)/smoke-cfsrq.log

fuzz: deps
	CC=clang CXX=clang++ cmake -S . -B $(FUZZBUILD) -DCMAKE_BUILD_TYPE=Release \
	  -DSCHEDCHECK_TESTS=OFF -DSCHEDCHECK_FUZZ=ON >/dev/null
	cmake --build $(FUZZBUILD) -j $(JOBS) --target cpuload_property_fuzz differential_fuzz idlebal_differential_fuzz \
	  wakeaffine_differential_fuzz cfsrq_differential_fuzz
	mkdir -p $(FUZZBUILD)/corpus-differential && cp -n corpora/differential/* $(FUZZBUILD)/corpus-differential/
	SCHEDCHECK_REPRO_DIR=corpora/differential ./$(FUZZBUILD)/fuzz/differential_fuzz -max_total_time=$(FUZZ_SECONDS) \
	  $(FUZZBUILD)/corpus-differential corpora/differential
	mkdir -p $(FUZZBUILD)/corpus-idlebal && cp -n corpora/idlebal_differential/* $(FUZZBUILD)/corpus-idlebal/
	SCHEDCHECK_REPRO_DIR=corpora/idlebal_differential ./$(FUZZBUILD)/fuzz/idlebal_differential_fuzz \
	  -max_total_time=$(FUZZ_SECONDS) $(FUZZBUILD)/corpus-idlebal corpora/idlebal_differential
	mkdir -p $(FUZZBUILD)/corpus-wakeaffine && cp -n corpora/wakeaffine_differential/* $(FUZZBUILD)/corpus-wakeaffine/
	SCHEDCHECK_REPRO_DIR=corpora/wakeaffine_differential ./$(FUZZBUILD)/fuzz/wakeaffine_differential_fuzz \
	  -max_total_time=$(FUZZ_SECONDS) $(FUZZBUILD)/corpus-wakeaffine corpora/wakeaffine_differential
	mkdir -p $(FUZZBUILD)/corpus-cfsrq && cp -n corpora/cfsrq_differential/* $(FUZZBUILD)/corpus-cfsrq/
	SCHEDCHECK_REPRO_DIR=corpora/cfsrq_differential ./$(FUZZBUILD)/fuzz/cfsrq_differential_fuzz \
	  -max_total_time=$(FUZZ_SECONDS) $(FUZZBUILD)/corpus-cfsrq corpora/cfsrq_differential
	$(MAKE) --no-print-directory fuzz-prop-build
	mkdir -p $(FUZZBUILD)/corpus && cp -n corpora/cpuload/* $(FUZZBUILD)/corpus/ 2>/dev/null || true
	./$(FUZZPROPBUILD)/fuzz/cpuload_property_fuzz -max_total_time=$(FUZZ_SECONDS) \
	  -dict=corpora/cpuload.dict $(FUZZBUILD)/corpus corpora/cpuload
	CC=afl-clang-fast CXX=afl-clang-fast++ cmake -S . -B $(AFLBUILD) -DCMAKE_BUILD_TYPE=Release \
	  -DSCHEDCHECK_TESTS=OFF -DSCHEDCHECK_FUZZ=ON -DSCHEDCHECK_AFL=ON >/dev/null
	cmake --build $(AFLBUILD) -j $(JOBS) --target cpuload_property_afl differential_afl
	@# CMPLOG helps where the input must match keys and magic values: the
	@# property harness's reproducer JSON and binary header.  It is a second
	@# build of the same harness, given to one secondary (or to the main
	@# instance when JOBS=1).
	AFL_LLVM_CMPLOG=1 CC=afl-clang-fast CXX=afl-clang-fast++ cmake -S . -B $(AFLBUILD)-cmplog \
	  -DCMAKE_BUILD_TYPE=Release -DSCHEDCHECK_TESTS=OFF -DSCHEDCHECK_FUZZ=ON -DSCHEDCHECK_AFL=ON >/dev/null
	AFL_LLVM_CMPLOG=1 cmake --build $(AFLBUILD)-cmplog -j $(JOBS) --target cpuload_property_afl
	@# One -M and JOBS-1 -S instances on one sync directory, all stopped
	@# after FUZZ_SECONDS; only the main instance prints its status.
	@export AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1 AFL_NO_AFFINITY=1; \
	  mkdir -p $(AFLBUILD)/sync; pids=""; \
	  for k in $$(seq 0 $$(( $(JOBS) - 1 ))); do \
	    if [ $$k = 0 ]; then role="-M main"; else role="-S sec$$k"; fi; \
	    cmplog=""; if [ $$k = $$(( $(JOBS) > 1 ? 1 : 0 )) ]; then cmplog="-c ./$(AFLBUILD)-cmplog/fuzz/cpuload_property_afl"; fi; \
	    timeout --preserve-status $$(( $(FUZZ_SECONDS) + 30 )) \
	      afl-fuzz $$role $$cmplog -V $(FUZZ_SECONDS) -x corpora/cpuload.dict -i corpora/cpuload -o $(AFLBUILD)/sync \
	      -- ./$(AFLBUILD)/fuzz/cpuload_property_afl >$(AFLBUILD)/afl-$$k.log 2>&1 & pids="$$pids $$!"; \
	  done; \
	  echo "afl-fuzz: $(JOBS) instance(s) on $(AFLBUILD)/sync for $(FUZZ_SECONDS) s (pids$$pids)"; \
	  rc=0; for p in $$pids; do wait $$p || rc=1; done; \
	  [ $$rc = 0 ] || { tail -20 $(AFLBUILD)/afl-0.log; exit 1; }
	AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_UI=1 \
	  SCHEDCHECK_REPRO_DIR=corpora/differential timeout --preserve-status $$(( $(FUZZ_SECONDS) + 30 )) \
	  afl-fuzz -V $(FUZZ_SECONDS) -i corpora/differential -o $(AFLBUILD)/findings-differential \
	  -- ./$(AFLBUILD)/fuzz/differential_afl
	@$(MAKE) --no-print-directory fuzz-report
	@$(MAKE) --no-print-directory fuzz-parsers

# The parser harnesses (reproducer and expected-verdict readers, patch and
# mbox parser, C definition extractor) under ASan+UBSan, the build of
# corpus-replay; each prints its CPU time and what it found.
fuzz-parsers: deps
	CC=clang CXX=clang++ cmake -S . -B $(SANBUILD) -DCMAKE_BUILD_TYPE=Debug \
	  -DSCHEDCHECK_TESTS=OFF -DSCHEDCHECK_FUZZ=ON >/dev/null
	cmake --build $(SANBUILD) -j $(JOBS) --target $(PARSER_HARNESSES)
	fuzz/run-parsers.sh $(SANBUILD) $(FUZZ_SECONDS) $(JOBS) $(PARSER_HARNESSES)

# What the last `make fuzz` left: crashes per instance, corpus sizes, and
# AFL++'s own edge coverage (bitmap_cvg) and speed per instance.
fuzz-report:
	@echo "== AFL++ property harness ($(AFLBUILD)/sync) =="
	@found=0; for d in $(AFLBUILD)/sync/*/ $(AFLBUILD)/findings-differential/*/; do \
	  [ -f $$d/fuzzer_stats ] || continue; found=1; \
	  st=$$d/fuzzer_stats; get() { sed -n "s/^$$1 *: *//p" $$st; }; \
	  printf '%-60s corpus %6s  crashes %4s  hangs %4s  cvg %7s  execs/s %9s  execs %s\n' "$$d" \
	    "$$(get corpus_count)" "$$(get saved_crashes)" "$$(get saved_hangs)" "$$(get bitmap_cvg)" \
	    "$$(get execs_per_sec)" "$$(get execs_done)"; \
	  for c in $$d/crashes/id:*; do [ -e "$$c" ] && echo "  crash: $$c"; done; \
	done; [ $$found = 1 ] || echo "no AFL++ run found; run make fuzz first"
	@echo "== corpora (checked in) =="
	@$(CORPUS_OF); for h in $(ALL_HARNESSES); do c=$$(corp $$h); \
	  printf '%-24s %-26s %5s files %9s bytes\n' $$h $$c "$$(ls $$c | wc -l)" "$$(cat $$c/* | wc -c)"; done
	@crashes=$$(ls $(AFLBUILD)/sync/*/crashes $(AFLBUILD)/findings-differential/*/crashes 2>/dev/null \
	  | grep -c '^id:' || true); echo "afl-fuzz: $$crashes crashing inputs"; test $$crashes -eq 0

# libFuzzer -merge=1 of every corpus into a fresh directory, which then
# replaces it.  Inputs with a name of their own (reproducers promoted from
# counterexamples, regressions such as the 1E400 number) are kept whatever
# the merge says; only the content-named (40 hex digits) ones can go.
corpus-min: deps
	CC=clang CXX=clang++ cmake -S . -B $(FUZZBUILD) -DCMAKE_BUILD_TYPE=Release \
	  -DSCHEDCHECK_TESTS=OFF -DSCHEDCHECK_FUZZ=ON >/dev/null
	cmake --build $(FUZZBUILD) -j $(JOBS) --target $(ALL_HARNESSES)
	@set -e; $(CORPUS_OF); for h in $(ALL_HARNESSES); do \
	  c=$$(corp $$h); new=$(FUZZBUILD)/min-$$h; rm -rf $$new && mkdir -p $$new; \
	  ./$(FUZZBUILD)/fuzz/$$h -merge=1 $$new $$c >$(FUZZBUILD)/min-$$h.log 2>&1 \
	    || { tail -20 $(FUZZBUILD)/min-$$h.log; exit 1; }; \
	  kept=0; for f in $$c/*; do n=$$(basename $$f); \
	    if ! [[ $$n =~ ^[0-9a-f]{40}$$ ]]; then cp -p $$f $$new/$$n; kept=$$((kept+1)); fi; done; \
	  before=$$(ls $$c | wc -l); \
	  rm -rf $$c.old && mv $$c $$c.old && mv $$new $$c && rm -rf $$c.old; \
	  echo "corpus-min: $$c: $$before -> $$(ls $$c | wc -l) files ($$kept named regression inputs kept)"; \
	done

# The services' build (.clusterfuzzlite/build.sh) run here, then each
# harness for SECONDS_PER_HARNESS (5) seconds.  The build is a full
# ASan + libFuzzer build of everything (35 minutes on the shared 2-core
# machine); far past a minute, so not part of `make test`.
cflite-test: deps
	.clusterfuzzlite/test.sh $(CFLITE)

bench: build
	./$(BUILD)/schedcheck_bench
	@bash tests/bench_review.sh $(BUILD)/schedcheck
	@$(MAKE) --no-print-directory bench-fuzz

# The property harness's rate under libFuzzer on one core (Release, no
# sanitizers), fuzzing a scratch copy of its corpus for BENCH_FUZZ_SECONDS.
BENCH_FUZZ_SECONDS ?= 20
fuzz-prop-build: deps
	CC=clang CXX=clang++ cmake -S . -B $(FUZZPROPBUILD) -DCMAKE_BUILD_TYPE=Release \
	  -DSCHEDCHECK_TESTS=OFF -DSCHEDCHECK_FUZZ=ON -DSCHEDCHECK_FUZZ_FOCUS=ON >/dev/null
	cmake --build $(FUZZPROPBUILD) -j $(JOBS) --target cpuload_property_fuzz >/dev/null

bench-fuzz: fuzz-prop-build
	@rm -rf $(FUZZPROPBUILD)/bench-corpus && mkdir -p $(FUZZPROPBUILD)/bench-corpus && cp corpora/cpuload/* $(FUZZPROPBUILD)/bench-corpus/
	@./$(FUZZPROPBUILD)/fuzz/cpuload_property_fuzz -max_total_time=$(BENCH_FUZZ_SECONDS) -print_final_stats=1 \
	  -dict=corpora/cpuload.dict -artifact_prefix=$(FUZZPROPBUILD)/ $(FUZZPROPBUILD)/bench-corpus >$(FUZZPROPBUILD)/bench-fuzz.log 2>&1 \
	  || { tail -30 $(FUZZPROPBUILD)/bench-fuzz.log; exit 1; }
	@rm -rf $(FUZZPROPBUILD)/bench-corpus-slow && mkdir -p $(FUZZPROPBUILD)/bench-corpus-slow && cp corpora/cpuload/* $(FUZZPROPBUILD)/bench-corpus-slow/
	@SCHEDCHECK_FUZZ_SLOW=1 ./$(FUZZPROPBUILD)/fuzz/cpuload_property_fuzz -max_total_time=$(BENCH_FUZZ_SECONDS) -print_final_stats=1 \
	  -dict=corpora/cpuload.dict -artifact_prefix=$(FUZZPROPBUILD)/ $(FUZZPROPBUILD)/bench-corpus-slow >$(FUZZPROPBUILD)/bench-fuzz-slow.log 2>&1 \
	  || { tail -30 $(FUZZPROPBUILD)/bench-fuzz-slow.log; exit 1; }
	@rate() { sed -n 's/^stat::average_exec_per_sec: *//p' $$1; }; \
	  echo "cpuload property harness under libFuzzer, one core, $(BENCH_FUZZ_SECONDS) s each:" \
	    "$$(rate $(FUZZPROPBUILD)/bench-fuzz.log) execs/s (goal >= 100000);" \
	    "$$(rate $(FUZZPROPBUILD)/bench-fuzz-slow.log) execs/s with SCHEDCHECK_FUZZ_SLOW=1 (per-invariant simulation with text)"

# Each proof's time on one thread, into the timing file `prove --shard`
# balances by (compiled in: rebuild after refreshing it).
timings: build
	./$(BUILD)/schedcheck prove --jobs 1 --write-timings proofs/expected/timings.txt >$(BUILD)/timings.log \
	  || { code=$$?; [ $$code = 1 ] || { tail -20 $(BUILD)/timings.log; exit $$code; }; }
	@tail -3 $(BUILD)/timings.log

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
	./$(BUILD)/schedcheck equiv --variant idlebal/v6.1 --oracle linux-6.1
	./$(BUILD)/schedcheck equiv --variant idlebal/v6.12 --oracle linux-6.12
	./$(BUILD)/schedcheck equiv --variant wakeaffine/v6.1 --oracle linux-6.1

install: build
	cmake --install $(BUILD) --prefix $(PREFIX)

# Line coverage of ref/ and of the extracted kernel functions reached by
# replaying every corpus through its harness (clang source-based coverage):
# HTML in $(COVBUILD)/html, a summary table, and the ref/ lines never run.
LLVM_COV ?= $(shell command -v llvm-cov-14 || command -v llvm-cov)
LLVM_PROFDATA ?= $(shell command -v llvm-profdata-14 || command -v llvm-profdata)
coverage: deps
	CC=clang CXX=clang++ cmake -S . -B $(COVBUILD) -DCMAKE_BUILD_TYPE=Release -DSCHEDCHECK_TESTS=OFF \
	  -DSCHEDCHECK_FUZZ=ON \
	  -DCMAKE_CXX_FLAGS="-fprofile-instr-generate -fcoverage-mapping -fprofile-list=$(CURDIR)/fuzz/coverage.profile-list" \
	  -DCMAKE_EXE_LINKER_FLAGS="-fprofile-instr-generate" >/dev/null
	cmake --build $(COVBUILD) -j $(JOBS) --target $(ALL_HARNESSES)
	@rm -rf $(COVBUILD)/profiles && mkdir -p $(COVBUILD)/profiles
	@set -e; $(CORPUS_OF); for h in $(ALL_HARNESSES); do \
	  LLVM_PROFILE_FILE=$(COVBUILD)/profiles/$$h.profraw ./$(COVBUILD)/fuzz/$$h -runs=0 $$(corp $$h) \
	    >$(COVBUILD)/replay-$$h.log 2>&1 || { tail -20 $(COVBUILD)/replay-$$h.log; exit 1; }; done
	$(LLVM_PROFDATA) merge -sparse $(COVBUILD)/profiles/*.profraw -o $(COVBUILD)/all.profdata
	@objs=""; for h in $(ALL_HARNESSES); do \
	  objs="$$objs $${objs:+-object }./$(COVBUILD)/fuzz/$$h"; done; \
	  filt='(/ref/|/oracle_gen/linux_)'; \
	  files=$$(ls $(CURDIR)/ref/*.h $(CURDIR)/$(COVBUILD)/oracle_gen/linux_*.h); \
	  $(LLVM_COV) show $$objs -instr-profile=$(COVBUILD)/all.profdata -format=html \
	    -output-dir=$(COVBUILD)/html $$files >/dev/null; \
	  $(LLVM_COV) report $$objs -instr-profile=$(COVBUILD)/all.profdata $$files | tee $(COVBUILD)/summary.txt; \
	  $(LLVM_COV) export $$objs -instr-profile=$(COVBUILD)/all.profdata -format=lcov $$files \
	    >$(COVBUILD)/coverage.lcov; \
	  awk -F'[:,]' '/^SF:/ { f = $$2; sub(".*/(ref|oracle_gen)/", "", f) } \
	    /^DA:/ && $$3 == 0 && f !~ /^linux_/ { miss[f] = miss[f] " " $$2 } \
	    END { for (f in miss) print "not reached: ref/" f ":" miss[f] }' $(COVBUILD)/coverage.lcov \
	    | sort | tee $(COVBUILD)/not-reached.txt; \
	  echo "coverage: HTML in $(COVBUILD)/html/index.html, summary in $(COVBUILD)/summary.txt"

# A Debian package of the command, the headers and the plug-in tooling,
# then a check that apt can satisfy its dependencies on this system and
# that the unpacked binary proves something.
deb: build
	cd $(BUILD) && cpack -G DEB >/dev/null
	@deb=$$(ls -t $(BUILD)/schedcheck_*.deb | head -1); echo "deb: $$deb"; \
	  dpkg-deb --field $$deb Package Version Depends Recommends; \
	  apt-get install --simulate -qq $$(realpath $$deb) >/dev/null \
	    && echo "deb: apt-get install --simulate: dependencies satisfiable" ; \
	  root=$$(mktemp -d); dpkg-deb -x $$deb $$root; \
	  $$root/usr/bin/schedcheck prove --family cpuload --invariant balance.source_le_target --arch lp64 | tail -2; \
	  rm -rf $$root

# The package installed on a clean Debian 12 (a debootstrap chroot, root and
# the Debian archive needed) and run there.
deb-test: deb
	tests/deb-install.sh $$(ls -t $(BUILD)/schedcheck_*.deb | head -1)

clean:
	rm -rf $(BUILD) $(SANBUILD) $(FUZZBUILD) $(AFLBUILD) $(AFLBUILD)-cmplog $(FUZZPROPBUILD) $(COVBUILD) $(CFLITE) $(OUT)

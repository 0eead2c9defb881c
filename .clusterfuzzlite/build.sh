#!/bin/bash -eu
# Builds timelaw's fuzz targets for ClusterFuzzLite (and OSS-Fuzz, same convention): `cargo fuzz build`
# in release mode with debug assertions and overflow checks (the core asserts its invariants with
# debug_assert!), then every target binary is copied to $OUT. The sanitizer flags come from the builder
# image's environment.
#
# Left out: targets named planted_*: they fuzz a deliberately broken subject and crash by design (they
# measure time to first crash and test `timelaw import-crash`), so they would fail every fuzzing run.
set -eu

cd "$SRC/timelaw"
cargo fuzz build -O --debug-assertions

build_dir=fuzz/target/x86_64-unknown-linux-gnu/release
for target in $(cargo fuzz list); do
    case "$target" in
        planted_*) echo "build.sh: leaving out $target (crashes by design)" ;;
        *) cp "$build_dir/$target" "$OUT/" ;;
    esac
done

# recloser leaks its state with every breaker it builds (a finding outside the laws, docs/fuzzing.md), and
# the leak outgrows libFuzzer's memory limit within a minute: its target runs without leak detection (in
# libFuzzer and in LeakSanitizer's check at exit) and without the limit, through the .options file the
# fuzzing infrastructure reads beside each target.
printf '[libfuzzer]\ndetect_leaks = 0\nrss_limit_mb = 0\n\n[asan]\ndetect_leaks = 0\n' > "$OUT/recloser.options"

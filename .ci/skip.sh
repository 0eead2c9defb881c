# Sourced by the CI scripts: no silent skips. A check that cannot run for lack of a capability fails,
# unless TIMELAW_ALLOW_SKIP (a comma-separated list of capability names, or `all`) names it; an allowed
# skip is printed and, when TIMELAW_SKIP_LOG names a file, appended to it (.ci/run lists that file at the
# end). The tests read the same variables (tests/common/skip.rs).

# skip_or_fail CAPABILITY WHAT: returns 0 (the caller skips WHAT) when the skip is allowed; exits 1
# otherwise.
skip_or_fail() {
    local capability="$1" what="$2" name
    local IFS=','
    for name in ${TIMELAW_ALLOW_SKIP:-}; do
        name="${name// /}"
        if [ "$name" = "$capability" ] || [ "$name" = "all" ]; then
            echo "SKIPPED $what (allowed by TIMELAW_ALLOW_SKIP=$capability)"
            if [ -n "${TIMELAW_SKIP_LOG:-}" ]; then
                echo "SKIPPED $what (allowed by TIMELAW_ALLOW_SKIP=$capability)" >>"$TIMELAW_SKIP_LOG"
            fi
            return 0
        fi
    done
    echo "FAILED: $what: a capability is missing; provide it, or set TIMELAW_ALLOW_SKIP=$capability to allow the skip" >&2
    exit 1
}

# Shared by bin/rdma4j and bin/test: find a JDK 25 or newer.
# shellcheck shell=bash

readonly MIN_JAVA=25
# Where JDKs are looked for when JAVA_HOME will not do; overridable for odd installs.
readonly JVM_DIR="${RDMA4J_JVM_DIR:-/usr/lib/jvm}"


# Prints the feature release of a java binary (8, 17, 25...), or nothing if it does not run.
java_major()
{
    local java="$1" line ver
    [ -x "$java" ] || return 0
    line="$("$java" -version 2>&1 | grep -m1 -E 'version "' || true)"
    ver="$(printf '%s\n' "$line" | sed -E 's/.*version "([^"]+)".*/\1/')"
    [ -n "$ver" ] || return 0
    case "$ver" in
        1.*) ver="${ver#1.}" ;;
    esac
    printf '%s\n' "${ver%%[.+-]*}"
}

find_jdk()
{
    LOOKED=()
    if [ -n "${JAVA_HOME:-}" ]; then
        local v
        v="$(java_major "$JAVA_HOME/bin/java")"
        LOOKED+=("JAVA_HOME=$JAVA_HOME (${v:-no runnable bin/java})")
        if [ -n "$v" ] && [ "$v" -ge "$MIN_JAVA" ]; then
            printf '%s\n' "$JAVA_HOME"
            return 0
        fi
    else
        LOOKED+=("JAVA_HOME (not set)")
    fi
    local best="" best_v=0 dir v
    for dir in "$JVM_DIR"/*/; do
        [ -d "$dir" ] || continue
        dir="${dir%/}"
        v="$(java_major "$dir/bin/java")"
        LOOKED+=("$dir (${v:-no runnable bin/java})")
        if [ -n "$v" ] && [ "$v" -ge "$MIN_JAVA" ] && [ "$v" -gt "$best_v" ]; then
            best="$dir"
            best_v="$v"
        fi
    done
    [ -d "$JVM_DIR" ] || LOOKED+=("$JVM_DIR (no such directory)")
    if [ -n "$best" ]; then
        printf '%s\n' "$best"
        return 0
    fi
    {
        echo "rdma4j: needs a JDK $MIN_JAVA or newer (FFM API) and found none. Looked at:"
        local l
        for l in "${LOOKED[@]}"; do echo "  $l"; done
        echo "Fix: install one (e.g. Temurin $MIN_JAVA under $JVM_DIR) or set JAVA_HOME to a JDK $MIN_JAVA+."
    } >&2
    return 1
}


# Shared by bin/rdma4j and bin/example: build a module when its jar is missing or older than any
# main source, then run one of its classes with the module's run-time class path.
# shellcheck shell=bash

# module_jar ROOT MODULE: the module's main jar, or nothing.
module_jar()
{
    ls "$1/$2"/target/"$2"-*.jar 2>/dev/null | grep -v -E -- '-(sources|javadoc|tests)\.jar$' | head -n1 || true
}

# needs_build ROOT MODULE: a build is due when there is no jar, no copied dependencies, or a main source,
# main resource or pom is newer than the jar. Tests (src/test) and scripts' own Java (bin/lib) are not in
# the jar: editing them must not make every launch build again.
needs_build()
{
    local root="$1" module="$2" jar newer
    jar="$(module_jar "$root" "$module")"
    [ -n "$jar" ] || return 0
    [ -d "$root/$module/target/lib" ] || return 0
    newer="$(find "$root" -path "$root/*/target" -prune -o \
        \( -path '*/src/main/java/*.java' -o -name 'pom.xml' -o -path '*/src/main/resources/*' \) -type f \
        -newer "$jar" -print -quit 2>/dev/null)"
    [ -n "$newer" ]
}

# build_locked ROOT MODULE: build the module (and what it needs) unless another launch just did. Launches
# started together (a server and its client) take turns on a lock, and the second finds the build done:
# two Maven builds in one tree at once overwrite each other's classes. The jar is touched afterwards, since
# Maven leaves an up-to-date jar as it was, older than the source that asked for the build, which would
# otherwise make every later launch build again.
build_locked()
{
    local root="$1" module="$2"
    command -v mvn >/dev/null 2>&1 || { echo "rdma4j: needs a build but mvn is not on PATH" >&2; exit 1; }
    mkdir -p "$root/target"
    if command -v flock >/dev/null 2>&1; then
        exec 9>"$root/target/.rdma4j-build.lock"
        flock 9
        if ! needs_build "$root" "$module"; then
            flock -u 9
            exec 9>&-
            return 0
        fi
    fi
    echo "rdma4j: building (mvn -q -DskipTests package) with $JAVA_HOME ..." >&2
    # JDK 25 makes Maven's own Guava warn about sun.misc.Unsafe: noise, not our errors.
    local log status=0
    log="$(mktemp "${TMPDIR:-/tmp}/rdma4j-build.XXXXXX")"
    (cd "$root" && mvn -B -q -Dstyle.color=never -DskipTests package -pl "$module" -am >"$log" 2>&1) || status=$?
    sed -E $'s/\x1b\\[[0-9;]*m//g' "$log" \
        | grep -v -E 'WARNING: (A terminally deprecated method in sun\.misc\.Unsafe|sun\.misc\.Unsafe::|Please consider reporting this to the maintainers of class com\.google)' >&2 || true
    rm -f "$log"
    if [ "$status" -ne 0 ]; then
        echo "rdma4j: build failed (mvn exit $status, see above)" >&2
        exit 1
    fi
    local built
    built="$(module_jar "$root" "$module")"
    [ -n "$built" ] && touch "$built"
    if command -v flock >/dev/null 2>&1; then
        flock -u 9
        exec 9>&-
    fi
}

# launch ROOT MODULE MAIN_CLASS ARGS...: build if due, then exec java (JAVA_HOME set by the caller).
launch()
{
    local root="$1" module="$2" main="$3"
    shift 3
    if needs_build "$root" "$module"; then
        build_locked "$root" "$module"
    fi
    local jar
    jar="$(module_jar "$root" "$module")"
    [ -n "$jar" ] || { echo "rdma4j: build produced no $module jar" >&2; exit 1; }
    exec "$JAVA_HOME/bin/java" --enable-native-access=ALL-UNNAMED ${RDMA4J_JAVA_OPTS:-} \
        -cp "$jar:$root/$module/target/lib/*" "$main" "$@"
}

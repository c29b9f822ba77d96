#!/usr/bin/env bash
# Builds the Trino plugin (trino/) with Maven on a Java 25 JDK and prints
# the plugin directory it produced. Trino 476's SPI is Java 24 bytecode and
# the machine's default JDK is 17, so this script, not the caller, picks
# the JDK: $SSTF_JAVA25_HOME, else /usr/lib/jvm/temurin-25-jdk-amd64 (or
# -arm64). The Maven local repository is the default ~/.m2/repository, which
# CI can cache. Once a build of the current pom.xml has resolved everything,
# later builds of the same goal run offline (-o), so an unchanged project builds without the
# network; a changed pom.xml resolves online once more.
#
#   deploy/local/trino-build.sh [extra maven goals/flags...]   (default: package -DskipTests)
#
# Maven runs quiet (-q) unless TRINO_MVN_QUIET=0, which the tests use so
# Surefire's and Failsafe's summaries show.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/deploy/local/java25.sh"

pom="$root/trino/pom.xml"
stamp_dir="$root/build/trino-plugin"
mkdir -p "$stamp_dir"
goals=("$@")
[[ ${#goals[@]} -eq 0 ]] && goals=(package -DskipTests)
# Keyed by the pom and the first goal: verify needs test providers that package does not.
stamp="$stamp_dir/resolved-$( (cat "$pom"; echo "${goals[0]}") | sha256sum | cut -c1-16)"
offline=()
[[ -f $stamp ]] && offline=(-o)

quiet=(-q)
[[ ${TRINO_MVN_QUIET:-1} == 0 ]] && quiet=()
# Maven's own Guava calls sun.misc.Unsafe, which Java 25 warns about on every run.
MAVEN_OPTS="${MAVEN_OPTS:-} --sun-misc-unsafe-memory-access=allow" \
  mvn -B "${quiet[@]}" "${offline[@]}" -f "$pom" "${goals[@]}"
touch "$stamp"
version=$(sed -n 's:^    <version>\(.*\)</version>:\1:p' "$pom" | head -1)
dir="$root/trino/target/trino-sstable-flight-$version"
[[ -d $dir ]] || { echo "trino-build: no plugin directory at $dir" >&2; exit 1; }
echo "$dir"

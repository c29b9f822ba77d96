# Sourced by the Trino scripts: sets JAVA_HOME (and PATH) to a JDK of
# Java 24 or later, which Trino 476 and its SPI need, or fails saying
# where it looked. The machine's default JDK (17) is left alone for
# Cassandra.
for j in "${SSTF_JAVA25_HOME:-}" /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/temurin-25-jdk-arm64; do
  if [[ -n $j && -x $j/bin/java ]]; then
    v=$("$j/bin/java" -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = //p')
    if [[ ${v%%.*} -ge 24 ]]; then
      export JAVA_HOME=$j
      export PATH=$JAVA_HOME/bin:$PATH
      break
    fi
  fi
done
if [[ -z ${JAVA_HOME:-} || ! -x $JAVA_HOME/bin/java ]] || ! "$JAVA_HOME/bin/java" -version 2>&1 | grep -qE 'version "(2[4-9]|[3-9][0-9])'; then
  echo "java25: no Java 24+ JDK found: set SSTF_JAVA25_HOME, or install Temurin 25 in /usr/lib/jvm/temurin-25-jdk-amd64" >&2
  exit 1
fi

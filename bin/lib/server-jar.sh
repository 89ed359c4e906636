# Sourced by bin/corral-server and bin/corral-ensemble (needs $root, the repository root).
# server_jar NAME: prints the server's shaded jar, building it first if it is missing; NAME prefixes messages.

find_server_jar() {
  local jar
  for jar in "$root"/server-stub/target/corral-server-*-all.jar; do
    if [ -f "$jar" ]; then
      echo "$jar"
      return 0
    fi
  done
  return 0
}

server_jar() {
  local name="$1" jar build_log
  jar="$(find_server_jar)"
  if [ -z "$jar" ]; then
    echo "$name: building the server jar (first run)..." >&2
    build_log="$(mktemp)"
    if ! (cd "$root" && mvn -B -DskipTests -pl server-stub -am package) > "$build_log" 2>&1; then
      cat "$build_log" >&2
      rm -f "$build_log"
      echo "$name: the build failed (log above)" >&2
      return 1
    fi
    rm -f "$build_log"
    jar="$(find_server_jar)"
    if [ -z "$jar" ]; then
      echo "$name: no server-stub/target/corral-server-*-all.jar after the build" >&2
      return 1
    fi
  fi
  echo "$jar"
}

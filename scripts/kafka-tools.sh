#!/usr/bin/env bash
# The broker's own command-line tools, from the same Apache Kafka release as scripts/kafka.sh's
# broker, for an operator who wants to look at topics and lag.
#
# usage: scripts/kafka-tools.sh fetch
#        scripts/kafka-tools.sh topics           [kafka-topics options]
#        scripts/kafka-tools.sh console-consumer [kafka-console-consumer options]
#        scripts/kafka-tools.sh consumer-groups  [kafka-consumer-groups options]
#   (also `scripts/kafka.sh topics|console-consumer|consumer-groups ...`)
#
#   fetch             resolve org.apache.kafka:kafka-tools and its runtime jars from Maven Central
#                     (mvn, deploy/kafka/tools-pom.xml) into .cache/kafka/<version>/tools; a no-op
#                     when the cache matches the pom. The other commands fetch when needed.
#   topics            org.apache.kafka.tools.TopicCommand                    (kafka-topics)
#   console-consumer  org.apache.kafka.tools.consumer.ConsoleConsumer        (kafka-console-consumer)
#   consumer-groups   org.apache.kafka.tools.consumer.group.ConsumerGroupCommand (kafka-consumer-groups)
#
# --bootstrap-server is added from KAFKA_BOOTSTRAP (else 127.0.0.1:KAFKA_PORT, 19092) unless given.
# With KAFKA_SECURITY_PROTOCOL=SASL_PLAINTEXT (the default once KAFKA_SASL_USERNAME is set) the
# client settings (KAFKA_SASL_MECHANISM, KAFKA_SASL_USERNAME, KAFKA_SASL_PASSWORD_FILE or
# KAFKA_SASL_PASSWORD, as for every client of the project) go into a 0600 properties file that
# is passed as --command-config and removed afterwards: the password is never on a command line.
#
# Examples (docs/kafka.md, "Looking at the broker"):
#   scripts/kafka-tools.sh topics --list
#   scripts/kafka-tools.sh topics --describe --topic floor1.events
#   scripts/kafka-tools.sh consumer-groups --describe --group floor1-controller
#   scripts/kafka-tools.sh console-consumer --topic floor1.awards --from-beginning \
#       --isolation-level read_committed --max-messages 10
set -euo pipefail

SCRIPT_DIR=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)
REPO=$(cd -- "$SCRIPT_DIR/.." && pwd -P)
POM=$REPO/deploy/kafka/tools-pom.xml
BROKER_POM=$REPO/deploy/kafka/pom.xml
LOG4J_CONFIG=$REPO/deploy/kafka/tools-log4j2.xml

log() { printf 'kafka-tools.sh: %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

version_of() {
    sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$1" | head -n 1
}

KAFKA_VERSION=$(version_of "$POM")
[[ -n $KAFKA_VERSION ]] || die "no <kafka.version> in $POM"
[[ $KAFKA_VERSION == "$(version_of "$BROKER_POM")" ]] \
    || die "kafka.version differs between $POM and $BROKER_POM: keep the tools at the broker's release"
CACHE_DIR=$REPO/.cache/kafka/$KAFKA_VERSION
TOOLS_DIR=$CACHE_DIR/tools
STAMP=$CACHE_DIR/tools.stamp

if [[ -n ${JAVA_HOME:-} ]]; then JAVA=$JAVA_HOME/bin/java; else JAVA=java; fi

tools_cached() {
    [[ -f $STAMP && -d $TOOLS_DIR ]] && [[ $(cat "$STAMP") == "$(sha256sum "$POM" | cut -d' ' -f1)" ]]
}

cmd_fetch() {
    tools_cached && return 0
    mkdir -p "$CACHE_DIR"
    (
        exec 8>"$CACHE_DIR/.tools.lock"
        flock -w 900 8 || die "another kafka-tools.sh holds $CACHE_DIR/.tools.lock"
        tools_cached && exit 0
        command -v mvn >/dev/null || die "mvn not found (Maven fetches the tools from Maven Central)"
        log "fetching kafka-tools $KAFKA_VERSION from Maven Central (mvn, $POM) ..."
        local tmp
        tmp=$(mktemp -d "$CACHE_DIR/tools.tmp.XXXXXX")
        if ! mvn -B -q -ntp -Dstyle.color=never -f "$POM" -Dmaven.artifact.threads=8 \
            -Dkafka.tools.dir="$tmp" dependency:copy-dependencies >"$CACHE_DIR/tools-fetch.log" 2>&1; then
            rm -rf -- "$tmp"
            tail -n 40 -- "$CACHE_DIR/tools-fetch.log" >&2
            die "mvn dependency:copy-dependencies failed (full output: $CACHE_DIR/tools-fetch.log)"
        fi
        [[ -f $tmp/kafka-tools-$KAFKA_VERSION.jar ]] \
            || { rm -rf -- "$tmp"; die "kafka-tools-$KAFKA_VERSION.jar missing after mvn"; }
        rm -rf -- "$TOOLS_DIR"
        mv -- "$tmp" "$TOOLS_DIR"
        sha256sum "$POM" | cut -d' ' -f1 >"$STAMP"
        log "fetched $(find "$TOOLS_DIR" -name '*.jar' | wc -l) jars into $TOOLS_DIR"
    )
}

bootstrap() {
    if [[ -n ${KAFKA_BOOTSTRAP:-} ]]; then
        printf '%s\n' "$KAFKA_BOOTSTRAP"
    else
        printf '127.0.0.1:%s\n' "${KAFKA_PORT:-19092}"
    fi
}

# Writes the SASL client properties to $1 (mode 0600) when SASL is configured; returns 1 if not.
client_properties() {
    local protocol=${KAFKA_SECURITY_PROTOCOL:-}
    [[ -n $protocol ]] || { [[ -n ${KAFKA_SASL_USERNAME:-} ]] && protocol=SASL_PLAINTEXT; }
    [[ $protocol == SASL_PLAINTEXT ]] || return 1
    local user=${KAFKA_SASL_USERNAME:-} password=${KAFKA_SASL_PASSWORD:-}
    local mechanism=${KAFKA_SASL_MECHANISM:-SCRAM-SHA-512} module
    [[ -n $user ]] || die "SASL_PLAINTEXT needs KAFKA_SASL_USERNAME"
    if [[ -n ${KAFKA_SASL_PASSWORD_FILE:-} ]]; then
        password=$(<"$KAFKA_SASL_PASSWORD_FILE")
        password=${password%%[[:space:]]}
    fi
    [[ -n $password ]] || die "SASL_PLAINTEXT needs KAFKA_SASL_PASSWORD_FILE or KAFKA_SASL_PASSWORD"
    [[ $user$password != *[\"\\]* ]] || die "a user or password holding \" or \\ cannot go into JAAS"
    case $mechanism in
        PLAIN) module=org.apache.kafka.common.security.plain.PlainLoginModule ;;
        *)     module=org.apache.kafka.common.security.scram.ScramLoginModule ;;
    esac
    (
        umask 077
        printf 'security.protocol=SASL_PLAINTEXT\nsasl.mechanism=%s\n' "$mechanism" >"$1"
        printf 'sasl.jaas.config=%s required username="%s" password="%s";\n' \
            "$module" "$user" "$password" >>"$1"
    )
}

run_tool() {
    local class=$1
    shift
    cmd_fetch
    local args=("$@") has_bootstrap=0 arg
    for arg in "$@"; do
        [[ $arg == --bootstrap-server* ]] && has_bootstrap=1
    done
    ((has_bootstrap)) || args=(--bootstrap-server "$(bootstrap)" "${args[@]}")
    PROPS=$(mktemp "${TMPDIR:-/tmp}/kafka-tools.XXXXXX.properties")
    trap 'rm -f -- "$PROPS"' EXIT
    if client_properties "$PROPS"; then
        args+=(--command-config "$PROPS")
    fi
    "$JAVA" -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 \
        "-Dlog4j2.configurationFile=$LOG4J_CONFIG" -cp "$TOOLS_DIR/*" "$class" "${args[@]}"
}

usage() {
    echo "usage: $0 fetch | topics|console-consumer|consumer-groups [tool options]" >&2
    exit 2
}

main() {
    (($# >= 1)) || usage
    local cmd=$1
    shift
    case $cmd in
        fetch)            cmd_fetch ;;
        topics)           run_tool org.apache.kafka.tools.TopicCommand "$@" ;;
        console-consumer) run_tool org.apache.kafka.tools.consumer.ConsoleConsumer "$@" ;;
        consumer-groups)  run_tool org.apache.kafka.tools.consumer.group.ConsumerGroupCommand "$@" ;;
        *)                usage ;;
    esac
}

main "$@"

#!/usr/bin/env bash
# Fetch, start and stop a real single-node Apache Kafka 4.x broker (KRaft, combined
# broker+controller) on loopback, for tests and local runs.
#
# usage: scripts/kafka.sh fetch|start|stop|restart|status|logs [N]|kill|add-user NAME
#        scripts/kafka.sh topics|console-consumer|consumer-groups ARGS (scripts/kafka-tools.sh)
#
#   fetch    resolve the broker jars from Maven Central (mvn, deploy/kafka/pom.xml) into
#            .cache/kafka/<version>/libs; a no-op when the cache matches the pom
#   start    fetch if needed, format storage on first start, start, wait until it answers;
#            a no-op success when already running
#   stop     graceful stop (SIGTERM, SIGKILL after KAFKA_STOP_TIMEOUT s); no-op if not running
#   restart  stop + start; keeps the data dir (topics and offsets survive)
#   status   exit 0 if the broker is up and answering, 1 otherwise
#   logs     print the last N (default 100) lines of the broker logs
#   kill     SIGKILL the broker (crash, no clean shutdown) for fault tests; data dir kept
#   add-user SASL only: add (or re-password) SCRAM user NAME on the running broker, as the admin
#            user; the password is read from stdin (scripts/kafka_user.py). The user may do
#            nothing until granted a role: `jackpot kafka grant` (docs/kafka.md, Security)
#   topics|console-consumer|consumer-groups ARGS
#            the broker's own CLI (kafka-topics, ...) of the same release: scripts/kafka-tools.sh
#
# env: KAFKA_PORT (19092), KAFKA_CONTROLLER_PORT (19093), KAFKA_RUN_DIR (REPO/var/kafka),
#      KAFKA_START_TIMEOUT (60), KAFKA_STOP_TIMEOUT (30), KAFKA_HEAP_OPTS (-Xms256m -Xmx512m),
#      KAFKA_JVM_OPTS (extra JVM flags), KAFKA_CDS (1; 0 = no class-data-sharing archive),
#      PYTHON (REPO/.venv/bin/python if present), JAVA_HOME
#
# Security: the client listener is PLAINTEXT by default, for loopback and local use only. With
#      KAFKA_SECURITY_PROTOCOL=SASL_PLAINTEXT (the default once KAFKA_SASL_USERNAME is set) it
#      requires SASL/SCRAM: KAFKA_SASL_MECHANISM (SCRAM-SHA-512, or SCRAM-SHA-256),
#      KAFKA_SASL_USERNAME, and KAFKA_SASL_PASSWORD or KAFKA_SASL_PASSWORD_FILE. The same variables
#      configure the clients (streams/adapters/kafka/security.py). The user's SCRAM credential is written
#      when the storage is formatted, so a run dir keeps its protocol, user and password: start
#      with other ones and it refuses (use another KAFKA_RUN_DIR). The password never goes on a
#      command line: it reaches the JVM in 0600 files (a java @argfile, server.properties). With
#      SASL the controller listener (loopback) authenticates too, with SASL/PLAIN as the same
#      user, and the broker authorizes (StandardAuthorizer, no ACL = denied): the admin user is
#      the only super user; other users get ACLs per role (`jackpot kafka grant`).
#
# Startup speed: after the first graceful stop, a dynamic AppCDS archive of the broker's
# classes is kept in .cache/kafka/<version>/ (keyed by JVM build and jar set); later starts
# load it and come up ~2-3 s sooner. A stale or broken archive only costs one fallback start.
set -euo pipefail

SCRIPT_DIR=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd -P)
REPO=$(cd -- "$SCRIPT_DIR/.." && pwd -P)

KAFKA_PORT=${KAFKA_PORT:-19092}
KAFKA_CONTROLLER_PORT=${KAFKA_CONTROLLER_PORT:-19093}
RUN_DIR=${KAFKA_RUN_DIR:-$REPO/var/kafka}
[[ $RUN_DIR == /* ]] || RUN_DIR=$PWD/$RUN_DIR  # pids are matched by absolute path
START_TIMEOUT=${KAFKA_START_TIMEOUT:-60}
STOP_TIMEOUT=${KAFKA_STOP_TIMEOUT:-30}
HEAP_OPTS=${KAFKA_HEAP_OPTS:--Xms256m -Xmx512m}
EXTRA_JVM_OPTS=${KAFKA_JVM_OPTS:-}
CDS=${KAFKA_CDS:-1}

DEPLOY_DIR=$REPO/deploy/kafka
POM=$DEPLOY_DIR/pom.xml
TEMPLATE=$DEPLOY_DIR/server.properties.template
SASL_TEMPLATE=$DEPLOY_DIR/sasl.properties.template
LOG4J_CONFIG=$DEPLOY_DIR/log4j2.xml

DATA_DIR=$RUN_DIR/data
LOG_DIR=$RUN_DIR/logs
PID_FILE=$RUN_DIR/kafka.pid
SERVER_PROPS=$RUN_DIR/server.properties
CLUSTER_ID_FILE=$RUN_DIR/cluster.id
STDOUT_LOG=$LOG_DIR/stdout.log
CDS_PENDING=$RUN_DIR/cds.pending
SERVER_LOG=$LOG_DIR/server.log
SECURITY_STAMP=$RUN_DIR/security.stamp

SECURITY_PROTOCOL=${KAFKA_SECURITY_PROTOCOL:-}
SASL_MECHANISM=${KAFKA_SASL_MECHANISM:-SCRAM-SHA-512}
SASL_USERNAME=${KAFKA_SASL_USERNAME:-}
SASL_PASSWORD=${KAFKA_SASL_PASSWORD:-}

BOOTSTRAP=127.0.0.1:$KAFKA_PORT

if [[ -n ${PYTHON:-} ]]; then
    PY=$PYTHON
elif [[ -x $REPO/.venv/bin/python ]]; then
    PY=$REPO/.venv/bin/python
else
    PY=python3
fi

if [[ -n ${JAVA_HOME:-} ]]; then
    JAVA=$JAVA_HOME/bin/java
else
    JAVA=java
fi

log() { printf 'kafka.sh: %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

kafka_version() {
    local v
    v=$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$POM" | head -n 1)
    [[ -n $v ]] || die "no <kafka.version> in $POM"
    printf '%s\n' "$v"
}

KAFKA_VERSION=$(kafka_version)
CACHE_DIR=$REPO/.cache/kafka/$KAFKA_VERSION
LIBS_DIR=$CACHE_DIR/libs
STAMP=$CACHE_DIR/libs.stamp

pom_digest() { sha256sum "$POM" | cut -d' ' -f1; }

now_ms() { date +%s%3N; }

# ---------------------------------------------------------------- fetch

libs_cached() {
    [[ -f $STAMP && -d $LIBS_DIR ]] && [[ $(cat "$STAMP") == "$(pom_digest)" ]]
}

cmd_fetch() {
    if libs_cached; then
        return 0
    fi
    # Serialise fetches across run dirs; fd 8 is closed again when the subshell ends.
    mkdir -p "$CACHE_DIR"
    (
        exec 8>"$CACHE_DIR/.lock"
        flock -w 900 8 || die "another kafka.sh holds $CACHE_DIR/.lock"
        if ! libs_cached; then
            fetch_now
        fi
    )
}

fetch_now() {
    command -v mvn >/dev/null || die "mvn not found (Maven is needed to fetch Kafka from Maven Central)"
    local t0 tmp
    t0=$(now_ms)
    log "fetching Apache Kafka $KAFKA_VERSION jars from Maven Central (mvn, $POM) ..."
    mkdir -p "$CACHE_DIR"
    tmp=$(mktemp -d "$CACHE_DIR/libs.tmp.XXXXXX")
    if ! mvn -B -q -ntp -Dstyle.color=never -f "$POM" -Dmaven.artifact.threads=8 \
        -Dkafka.libs.dir="$tmp" dependency:copy-dependencies >"$CACHE_DIR/fetch.log" 2>&1; then
        rm -rf -- "$tmp"
        tail -n 40 -- "$CACHE_DIR/fetch.log" >&2
        die "mvn dependency:copy-dependencies failed (full output: $CACHE_DIR/fetch.log)"
    fi
    compgen -G "$tmp/kafka_2.13-$KAFKA_VERSION.jar" >/dev/null \
        || { rm -rf -- "$tmp"; die "kafka_2.13-$KAFKA_VERSION.jar missing after mvn"; }
    rm -rf -- "$LIBS_DIR"
    rm -f -- "$CACHE_DIR"/cds-*.jsa
    mv -- "$tmp" "$LIBS_DIR"
    pom_digest >"$STAMP"
    log "fetched $(find "$LIBS_DIR" -name '*.jar' | wc -l) jars into $LIBS_DIR in $(( $(now_ms) - t0 ))ms"
}

# ---------------------------------------------------------------- security

sasl() { [[ $SECURITY_PROTOCOL == SASL_PLAINTEXT ]]; }

# Validate the KAFKA_SECURITY_PROTOCOL / KAFKA_SASL_* settings (the password stays in variables).
check_security() {
    if [[ -z $SECURITY_PROTOCOL ]]; then
        SECURITY_PROTOCOL=PLAINTEXT
        [[ -z $SASL_USERNAME ]] || SECURITY_PROTOCOL=SASL_PLAINTEXT
    fi
    SECURITY_PROTOCOL=${SECURITY_PROTOCOL^^}
    case $SECURITY_PROTOCOL in
        PLAINTEXT)
            [[ -z $SASL_USERNAME$SASL_PASSWORD${KAFKA_SASL_PASSWORD_FILE:-} ]] \
                || die "KAFKA_SASL_* is set but KAFKA_SECURITY_PROTOCOL is PLAINTEXT"
            return 0 ;;
        SASL_PLAINTEXT) ;;
        *) die "KAFKA_SECURITY_PROTOCOL must be PLAINTEXT or SASL_PLAINTEXT, not '$SECURITY_PROTOCOL'" ;;
    esac
    SASL_MECHANISM=${SASL_MECHANISM^^}
    [[ $SASL_MECHANISM == SCRAM-SHA-512 || $SASL_MECHANISM == SCRAM-SHA-256 ]] \
        || die "KAFKA_SASL_MECHANISM must be SCRAM-SHA-512 or SCRAM-SHA-256, not '$SASL_MECHANISM'"
    if [[ -n ${KAFKA_SASL_PASSWORD_FILE:-} ]]; then
        [[ -z $SASL_PASSWORD ]] || die "set KAFKA_SASL_PASSWORD or KAFKA_SASL_PASSWORD_FILE, not both"
        [[ -r $KAFKA_SASL_PASSWORD_FILE ]] || die "cannot read KAFKA_SASL_PASSWORD_FILE=$KAFKA_SASL_PASSWORD_FILE"
        SASL_PASSWORD=$(<"$KAFKA_SASL_PASSWORD_FILE")
        SASL_PASSWORD=${SASL_PASSWORD%$'\r'}
    fi
    # These characters are safe in the JAAS string, the --add-scram value and the java @argfile.
    [[ $SASL_USERNAME =~ ^[A-Za-z0-9._-]{1,64}$ ]] \
        || die "KAFKA_SASL_USERNAME must be 1-64 characters from A-Z a-z 0-9 . _ -"
    [[ $SASL_PASSWORD =~ ^[A-Za-z0-9._~+/-]{8,256}$ ]] \
        || die "KAFKA_SASL_PASSWORD must be 8-256 characters from A-Z a-z 0-9 . _ ~ + / - (e.g. openssl rand -hex 32)"
}

# What a run dir was formatted with: protocol, mechanism, user and a salted digest of the password.
security_stamp() {
    if ! sasl; then
        printf 'PLAINTEXT\n'
        return 0
    fi
    local digest
    digest=$(printf '%s:%s' "$(tr -d '[:space:]' <"$CLUSTER_ID_FILE")" "$SASL_PASSWORD" | sha256sum | cut -c1-16)
    printf '%s %s %s %s\n' "$SECURITY_PROTOCOL" "$SASL_MECHANISM" "$SASL_USERNAME" "$digest"
}

# A formatted run dir keeps its security: refuse other settings with a clear message.
check_stamp() {
    [[ -f $DATA_DIR/meta.properties ]] || return 0
    local have want
    have=$(cat -- "$SECURITY_STAMP" 2>/dev/null || echo PLAINTEXT)  # dirs formatted before SASL
    want=$(security_stamp)
    [[ $have == "$want" ]] && return 0
    if [[ ${have% *} == "${want% *}" ]]; then
        die "$RUN_DIR was formatted with another password for ${SASL_USERNAME}; use another KAFKA_RUN_DIR, or stop and delete $RUN_DIR"
    fi
    die "$RUN_DIR was formatted for '$(cut -d' ' -f1-3 <<<"$have")', not '$(cut -d' ' -f1-3 <<<"$want")'; use another KAFKA_RUN_DIR, or stop and delete $RUN_DIR"
}

# The SASL block of server.properties, rendered in bash so the password is on no command line.
sasl_properties() {
    local text
    text=$(<"$SASL_TEMPLATE")
    text=${text//@KAFKA_SASL_MECHANISM_LC@/"${SASL_MECHANISM,,}"}
    text=${text//@KAFKA_SASL_MECHANISM@/"$SASL_MECHANISM"}
    text=${text//@KAFKA_SASL_USERNAME@/"$SASL_USERNAME"}
    text=${text//@KAFKA_SASL_PASSWORD@/"$SASL_PASSWORD"}
    printf '%s\n' "$text"
}

# ---------------------------------------------------------------- process helpers

# Is $1 the broker of this run dir? (guards against stale pidfiles and recycled pids)
is_our_broker() {
    local pid=$1
    [[ $pid =~ ^[0-9]+$ ]] || return 1
    [[ -r /proc/$pid/cmdline ]] || return 1
    grep -qzx 'kafka[.]Kafka' "/proc/$pid/cmdline" 2>/dev/null || return 1
    grep -qzxF -- "$SERVER_PROPS" "/proc/$pid/cmdline" 2>/dev/null
}

# pid of the running broker from the pidfile, or nothing
pidfile_pid() {
    local pid
    [[ -f $PID_FILE ]] || return 0
    pid=$(<"$PID_FILE")
    if is_our_broker "$pid"; then
        printf '%s\n' "$pid"
    fi
}

# brokers of this run dir that lost their pidfile (e.g. var/ wiped while running)
leftover_pids() {
    local f pid
    for f in $(grep -lzx 'kafka[.]Kafka' /proc/[0-9]*/cmdline 2>/dev/null || true); do
        pid=${f#/proc/}
        pid=${pid%/cmdline}
        [[ $pid == "$$" ]] && continue
        if is_our_broker "$pid"; then
            printf '%s\n' "$pid"
        fi
    done
}

all_broker_pids() {
    { pidfile_pid; leftover_pids; } | sort -u
}

port_busy() {
    (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

# alive and not a zombie (an exited daemon stays a zombie until its adoptive parent reaps it)
alive() {
    local stat
    kill -0 "$1" 2>/dev/null || return 1
    stat=$(<"/proc/$1/stat") 2>/dev/null || return 1
    stat=${stat##*) }
    [[ ${stat:0:1} != Z ]]
}

wait_gone() {
    local pid=$1 timeout_s=$2 deadline
    deadline=$(( $(date +%s) + timeout_s ))
    while alive "$pid"; do
        (( $(date +%s) < deadline )) || return 1
        sleep 0.1
    done
}

# A SIGKILLed JVM's leader thread turns zombie before its other threads have exited, and its
# listening sockets close only with the last of them: wait for the ports, or a start refuses them.
wait_ports_free() {
    local deadline port
    deadline=$(( $(date +%s) + $1 ))
    for port in "$KAFKA_PORT" "$KAFKA_CONTROLLER_PORT"; do
        while port_busy "$port"; do
            (( $(date +%s) < deadline )) || return 1
            sleep 0.1
        done
    done
}

probe() {
    # probe TIMEOUT [PID]
    local args=(--bootstrap "$BOOTSTRAP" --timeout "$1")
    if [[ -n ${2:-} ]]; then
        args+=(--pid "$2")
    fi
    # The probe authenticates as the broker's clients will, from these variables only.
    (
        unset KAFKA_SASL_MECHANISM KAFKA_SASL_USERNAME KAFKA_SASL_PASSWORD KAFKA_SASL_PASSWORD_FILE
        export KAFKA_SECURITY_PROTOCOL=$SECURITY_PROTOCOL
        if sasl; then
            export KAFKA_SASL_MECHANISM=$SASL_MECHANISM KAFKA_SASL_USERNAME=$SASL_USERNAME
            export KAFKA_SASL_PASSWORD=$SASL_PASSWORD
        fi
        exec "$PY" "$SCRIPT_DIR/wait_kafka.py" "${args[@]}" "${@:3}"
    )
}

log_tail() {
    local f
    for f in "$SERVER_LOG" "$STDOUT_LOG"; do
        if [[ -s $f ]]; then
            printf -- '----- last 40 lines of %s -----\n' "$f" >&2
            tail -n 40 -- "$f" >&2
        fi
    done
}

check_java() {
    command -v "$JAVA" >/dev/null || die "java not found (need Java 17+; set JAVA_HOME)"
    local props major
    props=$("$JAVA" -XshowSettings:properties -version 2>&1)
    major=$(sed -n 's/^ *java.specification.version = \([0-9]*\).*/\1/p' <<<"$props")
    if [[ -z $major ]] || (( major < 17 )); then
        die "Kafka $KAFKA_VERSION needs Java 17+, $JAVA is '${major:-unknown}'"
    fi
    JAVA_BUILD=$(grep -E '^ *java\.(home|vm\.version) = ' <<<"$props" | tr -d ' ' | tr '\n' ';')
}

# CDS archive path for this JVM build + jar set + JVM flags
cds_archive() {
    local key
    key=$(printf '%s|%s|%s|%s' "$JAVA_BUILD" "$(cat "$STAMP")" "$HEAP_OPTS" "$EXTRA_JVM_OPTS" \
        | sha256sum | cut -c1-16)
    printf '%s\n' "$CACHE_DIR/cds-$key.jsa"
}

# JVM flags to use (or create) the CDS archive; sets CDS_OPTS
cds_opts() {
    CDS_OPTS=()
    rm -f -- "$CDS_PENDING"
    [[ $CDS == 1 ]] || return 0
    local jsa
    jsa=$(cds_archive)
    if [[ -s $jsa ]]; then
        CDS_OPTS=("-XX:SharedArchiveFile=$jsa" -Xlog:cds=off -Xlog:cds+dynamic=off)
    else
        # Written by the JVM when it exits; published by a graceful stop (cds_publish).
        local new
        new="$jsa.$(printf '%s' "$RUN_DIR" | sha256sum | cut -c1-8).new"
        rm -f -- "$new"
        printf '%s\n%s\n' "$new" "$jsa" >"$CDS_PENDING"
        CDS_OPTS=("-XX:ArchiveClassesAtExit=$new" -Xlog:cds=off -Xlog:cds+dynamic=off)
    fi
}

# After the broker exited: publish (graceful=1) or discard (0) an archive it wrote at exit.
cds_publish() {
    local graceful=$1 new jsa
    [[ -f $CDS_PENDING ]] || return 0
    { read -r new; read -r jsa; } <"$CDS_PENDING" || true
    rm -f -- "$CDS_PENDING"
    [[ -n ${new:-} && -n ${jsa:-} ]] || return 0
    if [[ $graceful == 1 && -s $new ]]; then
        mv -f -- "$new" "$jsa"
    else
        rm -f -- "$new"
    fi
}

jvm_base() {
    # shellcheck disable=SC2206  # word splitting of the *_OPTS strings is intended
    local heap=($HEAP_OPTS) extra=($EXTRA_JVM_OPTS)
    JVM_CMD=("$JAVA" "${heap[@]}" -XX:+UseG1GC -XX:MaxGCPauseMillis=20
        -XX:+ExitOnOutOfMemoryError -Djava.awt.headless=true
        "-Dlog4j2.configurationFile=$LOG4J_CONFIG" "-Dkafka.logs.dir=$LOG_DIR"
        "${extra[@]}" -cp "$LIBS_DIR/*")
}

render_config() {
    (
        umask 077  # with SASL the file holds the password
        {
            sed -e "s|@KAFKA_PORT@|$KAFKA_PORT|g" \
                -e "s|@KAFKA_CONTROLLER_PORT@|$KAFKA_CONTROLLER_PORT|g" \
                -e "s|@KAFKA_DATA_DIR@|$DATA_DIR|g" \
                -e "s|@KAFKA_LISTENER@|$SECURITY_PROTOCOL|g" \
                "$TEMPLATE"
            if sasl; then
                sasl_properties
            fi
        } >"$SERVER_PROPS.tmp"
    )
    mv -- "$SERVER_PROPS.tmp" "$SERVER_PROPS"
}

format_storage() {
    [[ -f $DATA_DIR/meta.properties ]] && return 0
    local cid
    jvm_base
    if [[ ! -s $CLUSTER_ID_FILE ]]; then
        "${JVM_CMD[@]}" kafka.tools.StorageTool random-uuid >"$CLUSTER_ID_FILE.tmp" 2>>"$STDOUT_LOG" \
            || die "StorageTool random-uuid failed (see $STDOUT_LOG)"
        mv -- "$CLUSTER_ID_FILE.tmp" "$CLUSTER_ID_FILE"
    fi
    cid=$(tr -d '[:space:]' <"$CLUSTER_ID_FILE")
    log "formatting storage $DATA_DIR (cluster id $cid, $SECURITY_PROTOCOL)"
    local scram=() argfile=$RUN_DIR/format.args rc=0
    if sasl; then
        # The SCRAM credential goes into the metadata log; java reads it from a 0600 @argfile.
        (umask 077; printf -- '--add-scram\n%s=[name=%s,password=%s]\n' \
            "$SASL_MECHANISM" "$SASL_USERNAME" "$SASL_PASSWORD" >"$argfile")
        scram=("@$argfile")
    fi
    # StorageTool echoes the bootstrap records, SCRAM keys included: keep those out of the log.
    "${JVM_CMD[@]}" kafka.tools.StorageTool format --standalone -t "$cid" -c "$SERVER_PROPS" \
        "${scram[@]}" 2>&1 | { grep -v UserScramCredentialRecord || true; } >>"$STDOUT_LOG" \
        || rc=$?
    rm -f -- "$argfile"
    (( rc == 0 )) || { log_tail; die "StorageTool format failed"; }
    security_stamp >"$SECURITY_STAMP"
}

# ---------------------------------------------------------------- commands

cmd_start() {
    local t0 pid rc
    t0=$(now_ms)
    mkdir -p "$RUN_DIR" "$LOG_DIR"
    check_security
    check_stamp

    pid=$(pidfile_pid)
    if [[ -z $pid ]]; then
        pid=$(leftover_pids | head -n 1)
        if [[ -n $pid ]]; then
            log "adopting running broker pid $pid (pidfile was missing)"
            echo "$pid" >"$PID_FILE"
        fi
    fi
    if [[ -n $pid ]]; then
        if probe "$START_TIMEOUT" "$pid" --quiet; then
            log "already running (pid $pid) on $BOOTSTRAP"
            return 0
        fi
        log_tail
        die "broker pid $pid is running but not answering on $BOOTSTRAP"
    fi
    rm -f -- "$PID_FILE"

    local port
    for port in "$KAFKA_PORT" "$KAFKA_CONTROLLER_PORT"; do
        if port_busy "$port"; then
            die "port 127.0.0.1:$port is in use by another process (set KAFKA_PORT / KAFKA_CONTROLLER_PORT)"
        fi
    done

    cmd_fetch
    check_java
    render_config
    format_storage

    cds_opts
    launch
    rc=0
    probe "$START_TIMEOUT" "$LAUNCHED_PID" || rc=$?
    if (( rc == 2 )) && [[ ${CDS_OPTS[0]:-} == -XX:SharedArchiveFile=* ]]; then
        log "broker exited at once with the CDS archive; deleting it and retrying without"
        rm -f -- "${CDS_OPTS[0]#-XX:SharedArchiveFile=}" "$PID_FILE"
        CDS_OPTS=()
        launch
        rc=0
        probe "$START_TIMEOUT" "$LAUNCHED_PID" || rc=$?
    fi
    pid=$LAUNCHED_PID
    if (( rc != 0 )); then
        log_tail
        if (( rc == 2 )); then
            rm -f -- "$PID_FILE"
            cds_publish 0
            die "broker process exited during startup (logs: $LOG_DIR)"
        fi
        stop_pids 0 "$pid"
        if (( rc == 4 )); then
            die "broker refused the credentials of ${SASL_USERNAME}; stopped it (logs: $LOG_DIR)"
        fi
        die "broker did not answer on $BOOTSTRAP within ${START_TIMEOUT}s; stopped it (logs: $LOG_DIR)"
    fi
    log "Kafka $KAFKA_VERSION up on $BOOTSTRAP ($SECURITY_PROTOCOL, pid $pid) in $(( $(now_ms) - t0 ))ms"
}

# Start the broker JVM in the background; sets LAUNCHED_PID.
launch() {
    jvm_base
    printf -- '===== %s start (Kafka %s) =====\n' "$(date -Is)" "$KAFKA_VERSION" >>"$STDOUT_LOG"
    # New session so the broker outlives the caller's terminal/job; the lock fd is not inherited.
    # shellcheck disable=SC2016  # $$ and $@ are for the inner shell
    setsid bash -c 'echo "$$" >"$1"; shift; exec "$@"' kafka-launch "$PID_FILE" \
        "${JVM_CMD[0]}" "${CDS_OPTS[@]}" "${JVM_CMD[@]:1}" kafka.Kafka "$SERVER_PROPS" \
        </dev/null >>"$STDOUT_LOG" 2>&1 9>&- &
    LAUNCHED_PID=$!
    # The pidfile is written by the launched shell itself before it execs java.
    local tries=0 pid=
    while [[ ! -s $PID_FILE ]] && (( tries++ < 100 )); do
        sleep 0.05
    done
    [[ -s $PID_FILE ]] && pid=$(<"$PID_FILE")
    if [[ -n $pid ]]; then
        LAUNCHED_PID=$pid
    fi
}

# stop_pids KEEP_CDS PID...: SIGTERM, then SIGKILL after STOP_TIMEOUT
stop_pids() {
    local keep_cds=$1 pid graceful=1
    shift
    for pid in "$@"; do
        kill -TERM "$pid" 2>/dev/null || true
    done
    for pid in "$@"; do
        if ! wait_gone "$pid" "$STOP_TIMEOUT"; then
            log "pid $pid still alive after ${STOP_TIMEOUT}s, sending SIGKILL"
            graceful=0
            kill -KILL "$pid" 2>/dev/null || true
            wait_gone "$pid" 10 || die "could not kill pid $pid"
        fi
    done
    rm -f -- "$PID_FILE"
    cds_publish "$(( keep_cds && graceful ))"
}

cmd_stop() {
    local t0 pids
    t0=$(now_ms)
    mapfile -t pids < <(all_broker_pids)
    if (( ${#pids[@]} == 0 )); then
        rm -f -- "$PID_FILE"
        log "not running"
        return 0
    fi
    stop_pids 1 "${pids[@]}"
    log "stopped (pid ${pids[*]}) in $(( $(now_ms) - t0 ))ms"
}

cmd_kill() {
    local pids pid
    mapfile -t pids < <(all_broker_pids)
    if (( ${#pids[@]} == 0 )); then
        rm -f -- "$PID_FILE"
        log "not running"
        return 0
    fi
    for pid in "${pids[@]}"; do
        kill -KILL "$pid" 2>/dev/null || true
        wait_gone "$pid" 10 || die "could not kill pid $pid"
    done
    wait_ports_free 20 || die "ports $KAFKA_PORT/$KAFKA_CONTROLLER_PORT still bound after the kill"
    rm -f -- "$PID_FILE"
    cds_publish 0
    log "killed (SIGKILL) pid ${pids[*]}"
}

cmd_status() {
    local pid
    check_security
    pid=$(pidfile_pid)
    [[ -n $pid ]] || pid=$(leftover_pids | head -n 1)
    if [[ -z $pid ]]; then
        echo "kafka: stopped"
        return 1
    fi
    if probe 3 "$pid" --quiet; then
        echo "kafka: running, pid $pid, $BOOTSTRAP ($SECURITY_PROTOCOL), Kafka $KAFKA_VERSION"
        return 0
    fi
    echo "kafka: pid $pid alive but not answering on $BOOTSTRAP"
    return 1
}

# Add a SCRAM user on the running broker; the password comes from stdin, never argv.
cmd_add_user() {
    (( $# == 1 )) || usage
    check_security
    sasl || die "add-user needs a SASL broker (KAFKA_SECURITY_PROTOCOL=SASL_PLAINTEXT)"
    # The admin's settings go to the helper's environment only (not on its command line).
    KAFKA_SECURITY_PROTOCOL=$SECURITY_PROTOCOL KAFKA_SASL_MECHANISM=$SASL_MECHANISM \
        KAFKA_SASL_USERNAME=$SASL_USERNAME KAFKA_SASL_PASSWORD=$SASL_PASSWORD \
        "$PY" "$SCRIPT_DIR/kafka_user.py" --bootstrap "$BOOTSTRAP" "$1"
}

cmd_logs() {
    local n=${1:-100} f
    for f in "$SERVER_LOG" "$STDOUT_LOG"; do
        if [[ -f $f ]]; then
            printf -- '----- %s -----\n' "$f"
            tail -n "$n" -- "$f"
        fi
    done
}

with_lock() {
    mkdir -p "$RUN_DIR"
    exec 9>"$RUN_DIR/.lock"
    flock -w 120 9 || die "another kafka.sh holds $RUN_DIR/.lock"
    "$@"
}

usage() {
    echo "usage: $0 fetch|start|stop|restart|status|logs [N]|kill|add-user NAME|topics|console-consumer|consumer-groups ..." >&2
    exit 2
}

main() {
    (( $# >= 1 )) || usage
    local cmd=$1
    shift
    case $cmd in
        fetch)   cmd_fetch ;;
        start)   with_lock cmd_start ;;
        stop)    with_lock cmd_stop ;;
        restart) with_lock cmd_stop; cmd_start ;;
        kill)    with_lock cmd_kill ;;
        status)  cmd_status ;;
        logs)    cmd_logs "$@" ;;
        add-user) cmd_add_user "$@" ;;
        topics|console-consumer|consumer-groups) exec "$SCRIPT_DIR/kafka-tools.sh" "$cmd" "$@" ;;
        *)       usage ;;
    esac
}

main "$@"

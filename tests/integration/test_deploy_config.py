"""deploy/ is valid and coherent: promtool accepts the scrape configs and rules and passes the rule
unit tests; every YAML and the dashboard parse; every metric the rules and the dashboard use is one
the controller exports (or a recording rule defined in alerts.yml); compose and Kubernetes pieces
refer only to things that exist; no secret is in the repository; every command they run is one
the real ``jackpot`` parser accepts; each worker has a stable ``--slot`` of its own (the
StatefulSet's pod name); and ``jackpot serve`` reads ``--snapshot-key`` and ``--mystery-key`` from
mounted Secrets. (That each engine really exports the names is
``tests/integration/test_metrics_names.py``.)

The promtool checks need Debian's ``prometheus`` package (it ships ``promtool``); without it they
skip, or fail when ``CI`` is set. The rest needs nothing but PyYAML.
"""

from __future__ import annotations

import argparse
import functools
import json
import re
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from controller.config.floor import load_floor_config
from streams.cli import build_parser
from tests.integration.services import in_ci

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
PROMETHEUS = DEPLOY / "prometheus"
DASHBOARD = DEPLOY / "grafana" / "dashboard.json"

#: The metrics the controller exports (streams/adapters/prometheus/sensor.py, the Kafka workers
#: and signage projector, and the read side: streams/adapters/prometheus/readside.py), exactly.
EXPORTED = frozenset(
    {
        "jackpot_meter_amount_dollars",
        "jackpot_meter_reserve_dollars",
        "jackpot_meter_overflow_dollars",
        "jackpot_contributions_total",
        "jackpot_contributed_dollars_total",
        "jackpot_awards_total",
        "jackpot_awarded_dollars_total",
        "jackpot_rejections_total",
        "jackpot_http_auth_failures_total",
        "jackpot_consumer_lag",
        "jackpot_worker_assigned_partitions",
        "jackpot_last_event_timestamp_seconds",
        "jackpot_signage_dirty_meters",
        "jackpot_progressive_unplayable",
        "jackpot_meter_unplayable_tables",
        "jackpot_table_silence_seconds",
        "jackpot_heartbeats_total",
        "jackpot_readside_contributed_sub",
        "jackpot_readside_contribution_alert",
        "jackpot_readside_owns_every_partition",
    }
)
HISTOGRAMS = frozenset({"jackpot_ingest_seconds", "jackpot_processing_seconds"})
#: Series Prometheus makes itself.
BUILTIN = frozenset({"up"})

_KEYWORDS = frozenset(
    {"and", "or", "unless", "by", "without", "on", "ignoring", "group_left", "group_right"}
    | {"offset", "bool", "inf", "nan", "atan2"}
)
_LABEL_VALUES = re.compile(r"label_values\(\s*([A-Za-z_:][\w:]*)\s*,\s*\w+\s*\)")


# --- promtool ------------------------------------------------------------------------------


def _promtool() -> str:
    found = shutil.which("promtool")
    if found is None:
        message = "promtool not found: apt-get install prometheus (Debian ships promtool in it)"
        if in_ci():
            pytest.fail(f"CI is set, so a missing tool is an error: {message}", pytrace=False)
        pytest.skip(message)
    return found


@pytest.mark.integration
@pytest.mark.parametrize(
    "args",
    [
        ["check", "config", "prometheus.yml"],
        ["check", "config", "prometheus-k8s.yml"],
        ["check", "rules", "alerts.yml"],
        ["test", "rules", "alerts_test.yml"],
    ],
    ids=["config-compose", "config-k8s", "rules", "rule-tests"],
)
def test_promtool_accepts(args: list[str]) -> None:
    promtool = _promtool()
    run = subprocess.run(
        [promtool, *args[:-1], str(PROMETHEUS / args[-1])],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, f"promtool {' '.join(args)}:\n{run.stdout}\n{run.stderr}"


# --- parsing and metric names --------------------------------------------------------------


def yaml_files() -> list[Path]:
    return sorted(p for p in DEPLOY.rglob("*") if p.suffix in {".yml", ".yaml"})


@functools.cache
def load_yaml(path: Path) -> list[Any]:
    """The documents of a YAML file (cached: treat as read-only)."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    text = path.read_text(encoding="utf-8")
    return [doc for doc in yaml.load_all(text, Loader=loader) if doc is not None]


@pytest.mark.parametrize("path", yaml_files(), ids=lambda p: str(p.relative_to(DEPLOY)))
def test_every_yaml_file_parses(path: Path) -> None:
    assert load_yaml(path), f"{path} is empty"


def metric_names(expr: str) -> set[str]:
    """The series names a PromQL expression selects (strings, matchers, ranges, label lists and
    function names removed first)."""
    text = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)
    text = re.sub(r"\{[^}]*\}", " ", text)
    text = re.sub(r"\[[^\]]*\]", " ", text)
    text = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", " ", text)
    names = set()
    for match in re.finditer(r"(?<![\w:.$])([A-Za-z_:][\w:]*)(\s*\()?", text):
        if match.group(2) is None and match.group(1) not in _KEYWORDS:
            names.add(match.group(1))
    return names


def test_metric_names_are_found_in_promql() -> None:
    expr = (
        'sum by (meter) (rate(jackpot_contributions_total{meter=~"$meter"}[$__rate_interval]))'
        " * 60 unless on() jackpot:x:y > 1e3 offset 5m"
    )
    assert metric_names(expr) == {"jackpot_contributions_total", "jackpot:x:y"}


@functools.cache
def rules() -> list[dict[str, Any]]:
    (document,) = load_yaml(PROMETHEUS / "alerts.yml")
    return [rule for group in document["groups"] for rule in group["rules"]]


@functools.cache
def recorded() -> frozenset[str]:
    return frozenset(rule["record"] for rule in rules() if "record" in rule)


def allowed(name: str) -> bool:
    if name in EXPORTED or name in BUILTIN or name in recorded():
        return True
    base, _, suffix = name.rpartition("_")
    return base in HISTOGRAMS and suffix in {"bucket", "sum", "count"}


def dashboard_queries(node: object) -> Iterator[str]:
    """Every PromQL text in the dashboard: targets, annotations and variable queries."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key in {"expr", "definition", "query"} and isinstance(value, str):
                yield value
            else:
                yield from dashboard_queries(value)
    elif isinstance(node, list):
        for item in node:
            yield from dashboard_queries(item)


def promql_of(query: str) -> str:
    """A Grafana variable query's series: ``label_values(metric, label)`` selects ``metric``."""
    return _LABEL_VALUES.sub(lambda m: m.group(1), query)


def test_rules_use_only_exported_metrics() -> None:
    used = {name for rule in rules() for name in metric_names(rule["expr"])}
    unknown = sorted(name for name in used if not allowed(name))
    assert not unknown, f"alerts.yml uses metrics nobody exports: {unknown}"


def test_dashboard_parses_and_uses_only_exported_metrics() -> None:
    dashboard = json.loads(DASHBOARD.read_text(encoding="utf-8"))
    queries = [promql_of(q) for q in dashboard_queries(dashboard)]
    used = {name for query in queries for name in metric_names(query)}
    unknown = sorted(name for name in used if not allowed(name))
    assert not unknown, f"dashboard.json uses metrics nobody exports: {unknown}"
    # What issue 5 asks the dashboard to show: meters, contributions, awards by kind, rejections
    # by reason, lag and ingest latency.
    wanted = {
        "jackpot_meter_amount_dollars",
        "jackpot_contributions_total",
        "jackpot_awards_total",
        "jackpot_rejections_total",
        "jackpot_consumer_lag",
        "jackpot_ingest_seconds_bucket",
    }
    assert wanted <= used
    ids = [panel["id"] for panel in dashboard["panels"]]
    assert len(ids) == len(set(ids)), "panel ids repeat"
    datasource = load_yaml(DEPLOY / "grafana/provisioning/datasources/prometheus.yaml")[0]
    uids = {source["uid"] for source in datasource["datasources"]}
    assert all(q["datasource"]["uid"] in uids for q in _targets(dashboard))


def _targets(dashboard: dict[str, Any]) -> Iterator[dict[str, Any]]:
    for panel in dashboard["panels"]:
        yield from panel.get("targets", [])


def test_every_alert_is_labelled_documented_and_unit_tested() -> None:
    (tests,) = load_yaml(PROMETHEUS / "alerts_test.yml")
    tested = {
        case["alertname"] for test in tests["tests"] for case in test.get("alert_rule_test", [])
    }
    for rule in rules():
        if "alert" not in rule:
            continue
        name = rule["alert"]
        assert rule["labels"]["severity"] in {"page", "ticket"}, name
        assert rule["labels"]["team"] in {"floor", "platform"}, name
        assert rule["annotations"]["summary"], name
        assert rule["annotations"]["description"], name
        assert name in tested, f"{name} has no case in alerts_test.yml"
    firing = {
        case["alertname"]
        for test in tests["tests"]
        for case in test.get("alert_rule_test", [])
        if case["exp_alerts"]
    }
    alerts = {rule["alert"] for rule in rules() if "alert" in rule}
    assert firing == alerts, f"alerts never shown firing: {sorted(alerts - firing)}"


# --- compose -------------------------------------------------------------------------------


def compose() -> dict[str, Any]:
    (document,) = load_yaml(DEPLOY / "compose.yaml")
    assert isinstance(document, dict)
    return document


def test_compose_refers_only_to_what_it_defines() -> None:
    document = compose()
    services: dict[str, dict[str, Any]] = document["services"]
    wanted = {"kafka", "redis", "prometheus", "grafana", "jackpot-api"}
    assert wanted <= set(services)
    workers = [s for s in services.values() if s.get("command", [])[:2] == ["kafka", "worker"]]
    assert len(workers) == 2
    assert services["jackpot-api"]["command"][0] == "serve"
    for name, service in services.items():
        for dependency in service.get("depends_on", {}):
            assert dependency in services, f"{name} depends on unknown {dependency}"
        for secret in service.get("secrets", []):
            assert secret in document["secrets"], f"{name} uses undefined secret {secret}"
        for volume in service.get("volumes", []):
            source = volume.split(":", 1)[0]
            if source.startswith("."):
                assert (DEPLOY / source).exists(), f"{name} mounts missing {source}"
            else:
                assert source in document["volumes"], f"{name} uses undefined volume {source}"
        build = service.get("build")
        if build is not None:
            assert (DEPLOY / build["context"] / build["dockerfile"]).is_file()
    assert services["kafka"]["image"].startswith("apache/kafka:")
    assert services["kafka"]["environment"]["KAFKA_PROCESS_ROLES"] == "broker,controller"


def test_prometheus_scrapes_the_compose_services() -> None:
    services = compose()["services"]
    (config,) = load_yaml(PROMETHEUS / "prometheus.yml")
    jobs = {job["job_name"]: job for job in config["scrape_configs"]}
    ours = ("jackpot-api", "jackpot-workers", "jackpot-signage", "jackpot-readside")
    assert set(ours) <= set(jobs)
    for job in ours:
        for static in jobs[job]["static_configs"]:
            for target in static["targets"]:
                host, port = target.rsplit(":", 1)
                assert host in services, f"{job} scrapes unknown service {host}"
                assert port in " ".join(str(a) for a in services[host]["command"])


def test_no_secret_is_in_deploy() -> None:
    for name, service in compose()["services"].items():
        for key, value in (service.get("environment") or {}).items():
            if re.search(r"PASSWORD|TOKEN|SECRET", key) and not key.endswith("__FILE"):
                assert str(value).startswith("/run/secrets/"), f"{name}: {key} holds a value"
    for secret in compose()["secrets"].values():
        assert set(secret) <= {"environment", "file"}
    assert not [d for d in k8s_documents() if d["kind"] == "Secret"], "a Secret is in the repo"
    for path in yaml_files():
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"requirepass\s+[\"']?\w", text), f"{path} holds a Redis password"


# --- Kubernetes ----------------------------------------------------------------------------


def k8s_documents() -> list[dict[str, Any]]:
    """The Kubernetes objects (kustomization.yaml is not one)."""
    paths = sorted((DEPLOY / "k8s").glob("*.yaml"))
    return [doc for p in paths if p.name != "kustomization.yaml" for doc in load_yaml(p)]


def workloads() -> list[dict[str, Any]]:
    return [d for d in k8s_documents() if d["kind"] in {"Deployment", "StatefulSet"}]


def test_kustomization_lists_every_manifest() -> None:
    (kustomization,) = load_yaml(DEPLOY / "k8s" / "kustomization.yaml")
    manifests = {p.name for p in (DEPLOY / "k8s").glob("*.yaml")} - {"kustomization.yaml"}
    assert set(kustomization["resources"]) == manifests


def test_workloads_have_probes_resources_and_run_unprivileged() -> None:
    kinds = {w["kind"]: w for w in workloads()}
    assert set(kinds) == {"Deployment", "StatefulSet"}
    assert kinds["StatefulSet"]["spec"]["replicas"] == 2
    for workload in workloads():
        name = workload["metadata"]["name"]
        pod = workload["spec"]["template"]["spec"]
        assert pod["securityContext"]["runAsNonRoot"] is True, name
        for container in pod["containers"]:
            resources = container["resources"]
            assert {"cpu", "memory"} <= set(resources["requests"]), name
            assert {"cpu", "memory"} <= set(resources["limits"]), name
            assert container["livenessProbe"]["httpGet"]["path"] == "/healthz", name
            assert container["readinessProbe"]["httpGet"]["path"] == "/readyz", name
            assert container["securityContext"]["allowPrivilegeEscalation"] is False, name


def test_selectors_match_and_references_resolve() -> None:
    documents = k8s_documents()
    by_kind: dict[str, dict[str, dict[str, Any]]] = {}
    for doc in documents:
        by_kind.setdefault(doc["kind"], {})[doc["metadata"]["name"]] = doc
    pod_labels = [w["spec"]["template"]["metadata"]["labels"] for w in workloads()]

    def selects(selector: dict[str, str]) -> bool:
        return any(selector.items() <= labels.items() for labels in pod_labels)

    for workload in workloads():
        labels = workload["spec"]["template"]["metadata"]["labels"]
        assert workload["spec"]["selector"]["matchLabels"].items() <= labels.items()
    for service in by_kind["Service"].values():
        assert selects(service["spec"]["selector"]), service["metadata"]["name"]
    assert len(by_kind["PodDisruptionBudget"]) == 2
    for budget in by_kind["PodDisruptionBudget"].values():
        assert selects(budget["spec"]["selector"]["matchLabels"]), budget["metadata"]["name"]
    jobs = list(by_kind.get("Job", {}).values())
    for workload in [*workloads(), *jobs]:
        pod = workload["spec"]["template"]["spec"]
        claims = {t["metadata"]["name"] for t in workload["spec"].get("volumeClaimTemplates", [])}
        names = {volume["name"] for volume in pod["volumes"]} | claims
        for container in pod["containers"]:
            for mount in container.get("volumeMounts", []):
                assert mount["name"] in names, f"{workload['metadata']['name']}: {mount['name']}"
        for volume in pod["volumes"]:
            if "configMap" in volume:
                assert volume["configMap"]["name"] in by_kind["ConfigMap"]
            if "persistentVolumeClaim" in volume:
                claim = volume["persistentVolumeClaim"]["claimName"]
                assert claim in by_kind["PersistentVolumeClaim"]
        for container in pod["containers"]:
            for source in container.get("envFrom", []):
                assert source["configMapRef"]["name"] in by_kind["ConfigMap"]
    stateful = by_kind["StatefulSet"]["jackpot-workers"]
    assert stateful["spec"]["serviceName"] in by_kind["Service"]


def test_the_floor_configmap_is_a_valid_configuration() -> None:
    floor = next(d for d in k8s_documents() if d["metadata"]["name"] == "jackpot-floor")
    config = load_floor_config(floor["data"]["floor.toml"], "deploy/k8s/configmap.yaml")
    assert config.meters


def test_k8s_scrape_config_finds_the_headless_services() -> None:
    (config,) = load_yaml(PROMETHEUS / "prometheus-k8s.yml")
    jobs = {job["job_name"] for job in config["scrape_configs"]}
    assert {"jackpot-api", "jackpot-workers", "jackpot-signage", "jackpot-readside"} <= jobs
    services = {
        d["metadata"]["name"]: d
        for d in k8s_documents()
        if d["kind"] == "Service" and d["spec"].get("clusterIP") == "None"
    }
    for job in config["scrape_configs"]:
        for sd in job["dns_sd_configs"]:
            for name in sd["names"]:
                service, namespace = name.split(".")[:2]
                assert namespace == "jackpot"
                assert service in services, f"{job['job_name']} resolves unknown {service}"
                ports = {p["port"] for p in services[service]["spec"]["ports"]}
                assert sd["port"] in ports


# --- the commands the manifests run ---------------------------------------------------------


def commands() -> list[tuple[str, list[str]]]:
    """Every ``jackpot`` command line in compose and the manifests: (where, arguments)."""
    found = [
        (f"compose {name}", [str(a) for a in service["command"]])
        for name, service in compose()["services"].items()
        if service.get("command", [""])[0] in {"serve", "kafka"}
    ]
    for doc in k8s_documents():
        if doc["kind"] not in {"Deployment", "StatefulSet", "Job"}:
            continue
        for container in doc["spec"]["template"]["spec"]["containers"]:
            where = f"k8s {doc['metadata']['name']}/{container['name']}"
            found.append((where, [str(a) for a in container["args"]]))
    return found


def parsed(where: str, args: list[str]) -> argparse.Namespace:
    """``args`` read by the real ``jackpot`` parser: an option the command lacks fails here."""
    try:
        return build_parser().parse_args(args)
    except SystemExit:
        pytest.fail(f"{where}: `jackpot {' '.join(args)}` is refused by the CLI", pytrace=False)


def test_every_command_a_manifest_runs_is_one_the_cli_accepts() -> None:
    ran = {(args[0], args[1] if args[0] == "kafka" else "") for _, args in commands()}
    wanted = {("serve", ""), ("kafka", "worker"), ("kafka", "signage"), ("kafka", "provision")}
    wanted.add(("kafka", "readside"))
    assert wanted <= ran, f"run by no manifest: {sorted(wanted - ran)}"
    for where, args in commands():
        parsed(where, args)


def test_each_worker_has_a_stable_slot_of_its_own() -> None:
    # The slot names the worker's transactional.id: stable across restarts of one replica (so a
    # restart aborts its predecessor's open transaction), never shared by two replicas.
    workers = [(w, parsed(w, a)) for w, a in commands() if a[:2] == ["kafka", "worker"]]
    compose_slots = [args.transactional_id for w, args in workers if w.startswith("compose")]
    assert len(compose_slots) == 2
    assert all(compose_slots), "a compose worker has no --slot"
    assert len(set(compose_slots)) == len(compose_slots), f"shared slots: {compose_slots}"
    (stateful,) = [w for w in workloads() if w["metadata"]["name"] == "jackpot-workers"]
    assert stateful["kind"] == "StatefulSet"  # pod names are stable per replica: -0, -1
    (container,) = stateful["spec"]["template"]["spec"]["containers"]
    slot = parsed("k8s jackpot-workers", container["args"]).transactional_id
    variable = re.fullmatch(r"\$\((\w+)\)", slot)
    assert variable, f"the StatefulSet's --slot is {slot!r}, not the pod's name"
    env = {e["name"]: e for e in container.get("env", [])}
    source = env[variable.group(1)]["valueFrom"]["fieldRef"]["fieldPath"]
    assert source == "metadata.name"


def _secret_mounts(pod: dict[str, Any], container: dict[str, Any]) -> dict[str, str]:
    """mountPath -> Secret name, for the container's mounts of Secret volumes."""
    secrets = {v["name"]: v["secret"]["secretName"] for v in pod["volumes"] if "secret" in v}
    return {
        m["mountPath"]: secrets[m["name"]]
        for m in container.get("volumeMounts", [])
        if m["name"] in secrets
    }


def test_the_engine_reads_its_snapshot_and_mystery_keys_from_secrets() -> None:
    (api,) = [w for w in workloads() if w["metadata"]["name"] == "jackpot-api"]
    pod = api["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    args = parsed("k8s jackpot-api", container["args"])
    mounts = _secret_mounts(pod, container)
    keys = [Path(args.snapshot_key), Path(args.mystery_key)]
    assert keys[0] != keys[1]
    for key in keys:
        secret = [name for path, name in mounts.items() if key.parent == Path(path)]
        assert secret, f"{key} is not in a mounted Secret ({mounts})"
        assert not str(key).startswith(str(Path(args.db).parent)), "a key beside the log"
    services = compose()["services"]
    args = parsed("compose jackpot-api", services["jackpot-api"]["command"])
    for key in (Path(args.snapshot_key), Path(args.mystery_key)):
        assert key.parent == Path("/run/secrets"), f"compose: {key} is not a compose secret"
        assert key.name in services["jackpot-api"]["secrets"]
        assert key.name in compose()["secrets"]
    # Workers run the Kafka engine, which has neither: no key is handed where it is not used.
    assert all("--mystery-key" not in a for _, a in commands() if a[:2] == ["kafka", "worker"])

"""The deployment files (Dockerfile, deploy/compose.yaml, deploy/k8s) checked offline: each
against its schema or linter (hadolint, the compose-spec schema, Kubernetes' own schemas),
then against the code they run: every command exists, every SLUICE_* variable is a real
setting, the grace periods cover the workers' SIGTERM grace, the image installs what the
docreader needs. The image itself is built only where a Docker daemon answers."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from workers.settings import Settings
from workers.settings_groups import QueueSettings

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
COMPOSE = REPO / "deploy" / "compose.yaml"
K8S = REPO / "deploy" / "k8s"
# Modules a container may run with `python -m`.
MODULES = {"server.docreader", "server.health_probe"}


def k8s_documents() -> list[dict[str, Any]]:
    return [
        doc
        for path in sorted(K8S.glob("*.yaml"))
        if path.name != "kustomization.yaml"
        for doc in yaml.safe_load_all(path.read_text())
        if doc
    ]


def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load(COMPOSE.read_text())
    return loaded


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(args, capture_output=True, text=True, timeout=120, check=False)


def check_command(command: list[str]) -> None:
    scripts = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["scripts"]
    if command[0] == "python":
        assert command[1] == "-m" and command[2] in MODULES, command
    else:
        assert command[0] in scripts, command


def check_variables(names: set[str]) -> None:
    sluice = {name for name in names if name.startswith("SLUICE_")}
    assert sluice - Settings.environment_variables() == set()


# Schemas and linters.


def test_dockerfile_passes_hadolint() -> None:
    done = run(
        str(BIN / "hadolint"), "--config", str(REPO / ".hadolint.yaml"), str(REPO / "Dockerfile")
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_compose_file_matches_the_compose_spec() -> None:
    done = run(
        str(BIN / "check-jsonschema"), "--builtin-schema", "vendor.compose-spec", str(COMPOSE)
    )
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize(
    "doc", k8s_documents(), ids=lambda d: f"{d['kind']}/{d['metadata']['name']}"
)
def test_kubernetes_manifest_matches_its_schema(doc: dict[str, Any]) -> None:
    kubernetes_validate.validate(doc, kubernetes_validate.latest_version(), strict=True)


def test_kustomization_lists_every_manifest() -> None:
    listed = set(yaml.safe_load((K8S / "kustomization.yaml").read_text())["resources"])
    assert listed == {p.name for p in K8S.glob("*.yaml")} - {"kustomization.yaml"}


# The Dockerfile.


def dockerfile() -> list[str]:
    text = (REPO / "Dockerfile").read_text().replace("\\\n", " ")
    return [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]


def test_image_is_multi_stage_and_runs_as_a_non_root_user() -> None:
    lines = dockerfile()
    stages = [line for line in lines if line.startswith("FROM ")]
    assert len(stages) >= 2
    assert any(line.startswith("COPY --from=build") for line in lines)
    users = [line.split()[1] for line in lines if line.startswith("USER ")]
    assert users and users[-1].split(":")[0] not in {"0", "root"}


def test_image_installs_the_docreader_tools_ci_installs() -> None:
    ci = (REPO / ".ci" / "run").read_text().replace("\\\n", " ")
    languages = re.search(r"for lang in ([\w ]+); do", ci)
    assert languages is not None
    wanted = {f"tesseract-ocr-{lang.replace('_', '-')}" for lang in languages.group(1).split()}
    for entry in re.findall(r"need_docreader\+=\(([^)]+)\)", ci):
        wanted |= {name for name in entry.split() if "$" not in name}
    lines = dockerfile()
    runtime = lines[max(i for i, line in enumerate(lines) if line.startswith("FROM ")) :]
    installed = set(re.findall(r"[a-z0-9][a-z0-9.+-]+", "\n".join(runtime)))
    assert {"tesseract-ocr-chi-sim", "libreoffice-writer-nogui"} <= wanted
    assert wanted - installed == set()


def test_image_default_command_is_a_sluice_program() -> None:
    cmd = [line for line in dockerfile() if line.startswith("CMD ")][-1]
    check_command(yaml.safe_load(cmd.removeprefix("CMD ")))


# compose.


def test_compose_runs_every_part_of_full_mode_with_health_checks() -> None:
    services = compose()["services"]
    assert {
        "postgres",
        "redis",
        "milvus",
        "minio",
        "api",
        "docreader",
        "worker",
        "housekeeper",
    } <= services.keys()
    for name in ("api", "docreader"):
        probe = services[name]["healthcheck"]["test"]
        assert probe[1:4] == ["python", "-m", "server.health_probe"], name
    # Nothing of ours starts before what it needs is healthy (or, for buckets, made).
    for name in ("api", "worker", "housekeeper"):
        conditions = services[name]["depends_on"]
        assert conditions and all(
            c["condition"] in {"service_healthy", "service_completed_successfully"}
            for c in conditions.values()
        ), name
    for service in services.values():
        if "command" in service and service.get("image") == "sluice:latest":
            check_command(service["command"])
    check_variables(set(compose()["x-sluice-env"]))
    grace = float(compose()["x-sluice-env"]["SLUICE_WORKER_SHUTDOWN_GRACE_S"])
    assert int(services["worker"]["stop_grace_period"].removesuffix("s")) > grace


# Kubernetes.


def deployments() -> dict[str, dict[str, Any]]:
    return {d["metadata"]["name"]: d for d in k8s_documents() if d["kind"] == "Deployment"}


def config_map() -> dict[str, str]:
    maps = [d for d in k8s_documents() if d["kind"] == "ConfigMap"]
    data: dict[str, str] = maps[0]["data"]
    return data


def test_kubernetes_deploys_each_process_with_known_settings() -> None:
    found = deployments()
    assert found.keys() == {"sluice-api", "sluice-docreader", "sluice-worker", "sluice-housekeeper"}
    for deployment in found.values():
        pod = deployment["spec"]["template"]["spec"]
        assert pod["securityContext"]["runAsNonRoot"] is True
        for container in pod["containers"]:
            check_command(container["command"])
    secrets = [d for d in k8s_documents() if d["kind"] == "Secret"]
    check_variables(set(config_map()) | {k for s in secrets for k in s.get("stringData", {})})


def test_workers_termination_grace_covers_their_sigterm_grace() -> None:
    grace = float(config_map().get("SLUICE_WORKER_SHUTDOWN_GRACE_S", 0))
    assert grace >= QueueSettings().worker_shutdown_grace_s
    for name in ("sluice-worker", "sluice-docreader"):
        pod = deployments()[name]["spec"]["template"]["spec"]
        assert pod["terminationGracePeriodSeconds"] > grace, name
    hpa = [d for d in k8s_documents() if d["kind"] == "HorizontalPodAutoscaler"]
    assert hpa[0]["spec"]["scaleTargetRef"]["name"] == "sluice-worker"


def metrics_ports(env: dict[str, str]) -> dict[str, int]:
    """The /metrics port each kind of process serves, read as the processes read them: the
    SLUICE_* settings of ``env``, the docreader's from its --metrics-port flag (added by the
    caller)."""
    # Only the metrics group's variables: the rest name services these checks cannot reach.
    read = Settings.from_env(env={k: v for k, v in env.items() if "_METRICS_" in k}).metrics
    assert read.metrics_host == "0.0.0.0", "a container's /metrics must listen beyond itself"
    return {
        "api": read.metrics_port,
        "worker": read.worker_metrics_port,
        "housekeeper": read.housekeeper_metrics_port,
    }


def flag(command: list[str], name: str) -> str:
    assert name in command, command
    return command[command.index(name) + 1]


def test_kubernetes_pods_serve_and_announce_their_metrics() -> None:
    ports = metrics_ports(config_map())
    found = deployments()
    docreader = found["sluice-docreader"]["spec"]["template"]["spec"]["containers"][0]
    assert flag(docreader["command"], "--metrics-host") == "0.0.0.0"
    ports["docreader"] = int(flag(docreader["command"], "--metrics-port"))
    assert all(ports.values()), ports
    for kind, port in ports.items():
        template = found[f"sluice-{kind}"]["spec"]["template"]
        assert template["metadata"]["annotations"] == {
            "prometheus.io/scrape": "true",
            "prometheus.io/port": str(port),
            "prometheus.io/path": "/metrics",
        }, kind
        container = template["spec"]["containers"][0]
        assert {"name": "metrics", "containerPort": port} in container["ports"], kind
    # The docreader's NetworkPolicy lets the scrapes in, not only the workers' reads.
    policy = next(d for d in k8s_documents() if d["kind"] == "NetworkPolicy")
    allowed = {p["port"] for rule in policy["spec"]["ingress"] for p in rule["ports"]}
    assert ports["docreader"] in allowed


def test_compose_exposes_every_metrics_port() -> None:
    services = compose()["services"]
    assert flag(services["docreader"]["command"], "--metrics-host") == "0.0.0.0"
    ports = compose_metrics_ports()
    assert all(ports.values()), ports
    assert len(set(ports.values())) == len(ports), "one environment: a port per kind"
    for kind, port in ports.items():
        assert str(port) in services[kind]["expose"], kind


def compose_metrics_ports() -> dict[str, int]:
    ports = metrics_ports(compose()["x-sluice-env"])
    ports["docreader"] = int(flag(compose()["services"]["docreader"]["command"], "--metrics-port"))
    return ports


def mounts(service: dict[str, Any]) -> dict[str, Path]:
    """A service's bind mounts of this repository's files: container path -> file here."""
    found = {}
    for volume in service["volumes"]:
        source, target = volume.split(":")[:2]
        if source.startswith("./"):
            found[target] = COMPOSE.parent / source
    return found


def test_compose_metrics_profile_scrapes_every_process_and_shows_the_dashboard() -> None:
    services = compose()["services"]
    assert services["prometheus"]["profiles"] == services["grafana"]["profiles"] == ["metrics"]
    prometheus_files = mounts(services["prometheus"])
    config = yaml.safe_load(prometheus_files["/etc/prometheus/prometheus.yml"].read_text())
    scraped: dict[str, int] = {}
    for job in config["scrape_configs"]:
        for static in job.get("static_configs", ()):
            for target in static["targets"]:
                host, port = target.split(":")
                scraped[host] = int(port)
        for dns in job.get("dns_sd_configs", ()):
            scraped.update(dict.fromkeys(dns["names"], dns["port"]))
    assert scraped == compose_metrics_ports()
    grafana_files = mounts(services["grafana"])
    provisioning = grafana_files["/etc/grafana/provisioning"]
    source = yaml.safe_load((provisioning / "datasources" / "prometheus.yaml").read_text())
    assert source["datasources"][0]["url"] == "http://prometheus:9090"
    provider = yaml.safe_load((provisioning / "dashboards" / "sluice.yaml").read_text())
    folder = provider["providers"][0]["options"]["path"]
    dashboard = grafana_files[f"{folder}/sluice-dashboard.json"]
    assert dashboard.resolve() == (REPO / "deploy" / "grafana" / "sluice-dashboard.json")


def test_grpc_servers_have_grpc_probes_and_the_api_mounts_its_tls_secret() -> None:
    docreader = deployments()["sluice-docreader"]["spec"]["template"]["spec"]["containers"][0]
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert docreader[probe]["grpc"]["port"] == 50061
    api_pod = deployments()["sluice-api"]["spec"]["template"]["spec"]
    api = api_pod["containers"][0]
    mount = {m["name"]: m["mountPath"] for m in api["volumeMounts"]}["tls"]
    assert config_map()["SLUICE_API_TLS_CERT"].startswith(mount)
    secret = {v["name"]: v for v in api_pod["volumes"]}["tls"]["secret"]["secretName"]
    assert secret in {d["metadata"]["name"] for d in k8s_documents() if d["kind"] == "Secret"}
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        command = api[probe]["exec"]["command"]
        assert command[:3] == ["python", "-m", "server.health_probe"]
        assert command[command.index("--tls-ca") + 1].startswith(mount)


# The image.


def test_image_builds_where_a_docker_daemon_answers() -> None:
    docker = shutil.which("docker")
    if docker is None or run(docker, "info").returncode != 0:
        pytest.skip("no Docker daemon on this machine: the image is not built here (README)")
    done = run(docker, "build", "-t", "sluice:test", str(REPO))
    assert done.returncode == 0, done.stderr[-4000:]

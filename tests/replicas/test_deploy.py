"""deploy/ against the code it deploys: the dashboard queries only metrics the server
exports, and every REFEREE_* variable the container configs set is a `referee serve` flag.
(Linting the files themselves is deploy/check.sh's job, run by CI.)"""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

from referee.cli import build_parser
from referee.metrics import Metrics

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"


def _exported() -> set[str]:
    """Every sample name the server's registry can export (histograms' _bucket etc.)."""
    names: set[str] = set()
    for family in Metrics().registry.collect():
        base = family.name
        names |= {base, f"{base}_total", f"{base}_bucket", f"{base}_sum", f"{base}_count"}
    return names


def _serve_variables() -> set[str]:
    serve = build_parser()._subparsers._group_actions[0].choices["serve"]  # type: ignore[union-attr]
    return {f"REFEREE_{a.dest.upper()}" for a in serve._actions if a.option_strings}


def test_dashboard_loads_and_queries_exported_metrics() -> None:
    dashboard = json.loads((DEPLOY / "grafana" / "dashboards" / "referee.json").read_text())
    exprs = [target["expr"] for panel in dashboard["panels"] for target in panel["targets"]]
    assert len(exprs) >= 10
    exported = _exported()
    for expr in exprs:
        used = set(re.findall(r"\b(?:referee|grpc_server)_[a-z_]+\b", expr))
        assert used, expr
        assert used <= exported, (expr, used - exported)
    ids = [panel["id"] for panel in dashboard["panels"]]
    assert len(ids) == len(set(ids))


def test_container_configs_use_only_serve_flags() -> None:
    known = _serve_variables()
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    configmap = yaml.safe_load((DEPLOY / "kubernetes" / "configmap.yaml").read_text())
    secret = yaml.safe_load((DEPLOY / "kubernetes" / "secret.yaml").read_text())
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    used = (
        set(compose["x-referee"]["environment"])
        | set(configmap["data"])
        | set(secret["stringData"])
        | set(re.findall(r"\bREFEREE_[A-Z_]+(?==)", dockerfile))
    )
    assert "REFEREE_STORE" in used
    assert used <= known, used - known
    for name in ("referee-1", "referee-2", "referee-3"):
        service = compose["services"][name]
        assert service["environment"]["REFEREE_STORE"].startswith("postgresql://")


def test_kubernetes_probes_use_native_grpc_on_the_serving_port() -> None:
    deployment = yaml.safe_load((DEPLOY / "kubernetes" / "deployment.yaml").read_text())
    container = deployment["spec"]["template"]["spec"]["containers"][0]
    grpc_port = next(p["containerPort"] for p in container["ports"] if p["name"] == "grpc")
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        assert container[probe]["grpc"]["port"] == grpc_port
    configmap = yaml.safe_load((DEPLOY / "kubernetes" / "configmap.yaml").read_text())
    assert configmap["data"]["REFEREE_LISTEN"].endswith(f":{grpc_port}")

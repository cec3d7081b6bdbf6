"""The deployment files, validated offline (no cluster, no systemd here):
contrib/kubernetes/*.yaml parse (python3-yaml) and hang together, and
contrib/cvisor-server.service runs what `cvisor-server` accepts, and
systemd-analyze verify (where installed) finds nothing to say about it.

What is checked: every manifest has apiVersion, kind and metadata.name; the
kinds are there (Namespace, RuntimeClass `cvisor` with handler `cvisor`,
the tokens Secret, the TLS Secret, a Service and a headless Service, a
StatefulSet); the StatefulSet's serviceName is the headless Service and its
selector matches its pod labels and both Services' selectors; the Services
target the container's named port; the container's --tokens and TLS files
are in volumes mounted from those Secrets; --node is the pod's name; the
probes hit /healthz on that port; the pod is not privileged, drops ALL and
adds exactly the capabilities the systemd unit keeps; the grace period
leaves the SIGTERM cleanup time; the server's own argument parser accepts
the arguments of both."""
import configparser
import glob
import os
import shlex

import pytest

yaml = pytest.importorskip("yaml", reason="python3-yaml is not installed (contrib/check.sh installs it)")

CONTRIB = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
K8S = os.path.join(CONTRIB, "kubernetes")
UNIT = os.path.join(CONTRIB, "cvisor-server.service")

if not os.path.isdir(K8S):
    pytest.skip("not in a source tree (no contrib/kubernetes)", allow_module_level=True)


def docs():
    out = []
    for f in sorted(glob.glob(os.path.join(K8S, "*.yaml"))):
        with open(f) as fh:
            out += [(os.path.basename(f), d) for d in yaml.safe_load_all(fh) if d is not None]
    return out


def by_kind(kind):
    return [d for _, d in docs() if d["kind"] == kind]


def unit():
    p = configparser.ConfigParser(strict=False, interpolation=None)
    p.optionxform = str
    with open(UNIT) as f:
        p.read_string(f.read().replace("\\\n", " "))
    return p


def test_every_manifest_is_well_formed():
    ds = docs()
    assert len(ds) >= 7
    for f, d in ds:
        assert d.get("apiVersion") and d.get("kind") and d.get("metadata", {}).get("name"), f
        if d["kind"] not in ("Namespace", "RuntimeClass"):
            assert d["metadata"].get("namespace") == "cvisor", (f, d["kind"])
    assert [d["metadata"]["name"] for d in by_kind("Namespace")] == ["cvisor"]


def test_runtimeclass():
    rc = by_kind("RuntimeClass")
    assert len(rc) == 1
    assert rc[0]["metadata"]["name"] == "cvisor"
    assert rc[0]["handler"] == "cvisor"
    assert rc[0]["apiVersion"] == "node.k8s.io/v1"


def test_statefulset_services_and_secrets_hang_together():
    (sts,) = by_kind("StatefulSet")
    services = {s["metadata"]["name"]: s for s in by_kind("Service")}
    secrets = {s["metadata"]["name"]: s for s in by_kind("Secret")}
    spec = sts["spec"]
    headless = services[spec["serviceName"]]
    assert headless["spec"]["clusterIP"] == "None"
    assert [s for s in services.values() if s["spec"].get("clusterIP") != "None"], "a Service that balances"
    labels = spec["template"]["metadata"]["labels"]
    assert spec["selector"]["matchLabels"].items() <= labels.items()
    pod = spec["template"]["spec"]
    (c,) = pod["containers"]
    port_names = {p["name"]: p["containerPort"] for p in c["ports"]}
    for s in services.values():
        assert s["spec"]["selector"].items() <= labels.items()
        for p in s["spec"]["ports"]:
            assert p["targetPort"] in port_names
    args = dict(a[2:].split("=", 1) for a in c["args"])
    mounts = {m["mountPath"]: m["name"] for m in c["volumeMounts"]}
    volumes = {v["name"]: v for v in pod["volumes"]}

    def secret_of(path):
        d = os.path.dirname(path)
        v = volumes[mounts[d]]
        name = v["secret"]["secretName"]
        assert name in secrets, name
        keys = set(secrets[name].get("stringData", {})) | set(secrets[name].get("data", {}))
        assert os.path.basename(path) in keys, (path, keys)
        return name

    assert secret_of(args["tokens"]) == "cvisor-server-tokens"
    assert secret_of(args["tls-cert"]) == secret_of(args["tls-key"]) == "cvisor-server-tls"
    # the tokens are hashes, as the server reads them
    from cvisor.server.tokens import parse_line
    lines = secrets["cvisor-server-tokens"]["stringData"]["tokens"].splitlines()
    assert [parse_line(l, "secret:%d" % i) for i, l in enumerate(lines) if parse_line(l, "x")]
    # the node in sandbox ids is the pod's name: the headless Service's DNS name
    assert args["node"] == "$(POD_NAME)"
    env = {e["name"]: e for e in c["env"]}
    assert env["POD_NAME"]["valueFrom"]["fieldRef"]["fieldPath"] == "metadata.name"
    for probe in (c["readinessProbe"], c["livenessProbe"]):
        assert probe["httpGet"]["path"] == "/healthz"
        assert probe["httpGet"]["port"] in port_names
        assert probe["httpGet"]["scheme"] == "HTTPS"
    assert pod["terminationGracePeriodSeconds"] >= 30
    # the server's parser takes these arguments (POD_NAME as Kubernetes expands it)
    from cvisor.server import _serve_parser
    a = _serve_parser().parse_args([x.replace("$(POD_NAME)", "cvisor-server-0") for x in c["args"]])
    assert a.listen == ("0.0.0.0", port_names[next(iter(port_names))])


def test_pod_privileges_are_the_units():
    (sts,) = by_kind("StatefulSet")
    (c,) = sts["spec"]["template"]["spec"]["containers"]
    sc = c["securityContext"]
    assert sc["privileged"] is False
    assert sc["allowPrivilegeEscalation"] is False
    assert sc["capabilities"]["drop"] == ["ALL"]
    caps = set(sc["capabilities"]["add"])
    unit_caps = {x[len("CAP_"):] for x in unit()["Service"]["CapabilityBoundingSet"].split()}
    assert caps == unit_caps
    assert "SYS_ADMIN" in caps
    assert not sts["spec"]["template"]["spec"].get("hostPID")
    assert not sts["spec"]["template"]["spec"].get("hostNetwork")


def test_systemd_unit():
    u = unit()
    s = u["Service"]
    argv = shlex.split(s["ExecStart"])
    assert argv[0] == "/usr/bin/cvisor-server"
    from cvisor.server import _serve_parser
    a = _serve_parser().parse_args(argv[1:])
    assert a.tokens == "/etc/cvisor/tokens"
    assert a.tls_cert and a.tls_key
    # SIGTERM to the server alone: it removes the sandboxes itself
    assert s["KillMode"] == "mixed"
    assert s["KillSignal"] == "SIGTERM"
    assert int(s["TimeoutStopSec"]) >= 30
    assert s["Delegate"] == "yes"
    assert s["NoNewPrivileges"] == "yes"
    assert a.state_root.startswith("/run/" + s["RuntimeDirectory"])
    assert u["Install"]["WantedBy"] == "multi-user.target"


def test_systemd_analyze_verifies_the_unit(tmp_path):
    """systemd's own check of every directive (an unknown key or a bad value
    is a warning there), where systemd-analyze is installed; the server
    binary need not be: a copy of the unit runs /bin/true instead."""
    import shutil
    import subprocess
    tool = shutil.which("systemd-analyze")
    if not tool:
        pytest.skip("systemd-analyze is not installed (package systemd)")
    with open(UNIT, encoding="utf-8") as f:
        text = f.read()
    assert "/usr/bin/cvisor-server" in text
    copy = tmp_path / "cvisor-server.service"
    copy.write_text(text.replace("/usr/bin/cvisor-server", "/bin/true"), encoding="utf-8")
    r = subprocess.run([tool, "verify", str(copy)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout + r.stderr == ""

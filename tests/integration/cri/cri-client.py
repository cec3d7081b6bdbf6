#!/usr/bin/python3
"""cri-client: the few Container Runtime Interface calls cri.bats makes, as a
command line (a small crictl). Debian's python3-grpcio and python3-grpc-tools
only; the stubs are generated from cri.proto (next to this file) into
--gen DIR on first use.

    cri-client.py --address SOCKET --gen DIR COMMAND [ARGS...]

Configs and results are the JSON form of the protobuf messages with the
.proto's field names (json_format). Exit status: 0, or the command's own
status for `exec`; 125 when the call itself fails (the gRPC status on
stderr)."""

import argparse
import compileall
import importlib
import os
import sys

FAIL = 125


def load_stubs(gen):
    """Imports cri_pb2 and cri_pb2_grpc from gen, generating them first if
    they are not there."""
    here = os.path.dirname(os.path.abspath(__file__))
    if not os.path.exists(os.path.join(gen, "cri_pb2_grpc.py")):
        from grpc_tools import protoc
        os.makedirs(gen, exist_ok=True)
        rc = protoc.main(["protoc", "-I" + here, "--python_out=" + gen,
                          "--grpc_python_out=" + gen, os.path.join(here, "cri.proto")])
        if rc != 0:
            raise SystemExit("cri-client: protoc failed on %s/cri.proto (status %d)" % (here, rc))
        # Byte-compiled once: every later call imports them.
        compileall.compile_dir(gen, quiet=1)
    sys.path.insert(0, gen)
    return importlib.import_module("cri_pb2"), importlib.import_module("cri_pb2_grpc")


def read_json(path, message):
    from google.protobuf import json_format
    with open(path, encoding="utf-8") as f:
        return json_format.Parse(f.read(), message)


def show(message):
    from google.protobuf import json_format
    print(json_format.MessageToJson(message, preserving_proto_field_name=True,
                                    including_default_value_fields=True))


def main():
    ap = argparse.ArgumentParser(prog="cri-client.py")
    ap.add_argument("--address", help="containerd's socket (unix path)")
    ap.add_argument("--gen", required=True, help="directory of the generated stubs")
    ap.add_argument("--timeout", type=float, default=60, help="seconds per call")
    sub = ap.add_subparsers(dest="cmd", required=True)
    sub.add_parser("gen", help="only generate the stubs")
    p = sub.add_parser("runp", help="RunPodSandbox; prints the pod id")
    p.add_argument("config", help="PodSandboxConfig JSON")
    p.add_argument("--runtime", default="", help="runtime handler")
    p = sub.add_parser("create", help="CreateContainer; prints the container id")
    p.add_argument("pod")
    p.add_argument("config", help="ContainerConfig JSON")
    p.add_argument("sandbox_config", help="the pod's PodSandboxConfig JSON")
    for name in ("start", "rm", "stopp", "rmp"):
        sub.add_parser(name).add_argument("id")
    p = sub.add_parser("stop")
    p.add_argument("--timeout", type=int, default=0, dest="grace")
    p.add_argument("id")
    sub.add_parser("inspect", help="ContainerStatus (verbose)").add_argument("id")
    sub.add_parser("inspectp", help="PodSandboxStatus (verbose)").add_argument("id")
    p = sub.add_parser("exec", help="ExecSync: the command's output and status")
    p.add_argument("--timeout", type=int, default=0, dest="exec_timeout")
    p.add_argument("id")
    p.add_argument("argv", nargs=argparse.REMAINDER)
    p = sub.add_parser("update", help="UpdateContainerResources")
    p.add_argument("id")
    p.add_argument("resources", help="LinuxContainerResources JSON")
    sub.add_parser("pods", help="ids of every pod sandbox")
    sub.add_parser("ps", help="ids of every container")
    args = ap.parse_args()

    pb, rpc = load_stubs(args.gen)
    if args.cmd == "gen":
        return 0
    if not args.address:
        ap.error("--address is required")

    import grpc
    channel = grpc.insecure_channel("unix://" + args.address)
    rt = rpc.RuntimeServiceStub(channel)
    t = args.timeout

    try:
        if args.cmd == "runp":
            cfg = read_json(args.config, pb.PodSandboxConfig())
            r = rt.RunPodSandbox(pb.RunPodSandboxRequest(config=cfg, runtime_handler=args.runtime),
                                 timeout=t)
            print(r.pod_sandbox_id)
        elif args.cmd == "create":
            cfg = read_json(args.config, pb.ContainerConfig())
            sbx = read_json(args.sandbox_config, pb.PodSandboxConfig())
            r = rt.CreateContainer(pb.CreateContainerRequest(pod_sandbox_id=args.pod, config=cfg,
                                                             sandbox_config=sbx), timeout=t)
            print(r.container_id)
        elif args.cmd == "start":
            rt.StartContainer(pb.StartContainerRequest(container_id=args.id), timeout=t)
        elif args.cmd == "stop":
            rt.StopContainer(pb.StopContainerRequest(container_id=args.id, timeout=args.grace),
                             timeout=t + args.grace)
        elif args.cmd == "rm":
            rt.RemoveContainer(pb.RemoveContainerRequest(container_id=args.id), timeout=t)
        elif args.cmd == "stopp":
            rt.StopPodSandbox(pb.StopPodSandboxRequest(pod_sandbox_id=args.id), timeout=t)
        elif args.cmd == "rmp":
            rt.RemovePodSandbox(pb.RemovePodSandboxRequest(pod_sandbox_id=args.id), timeout=t)
        elif args.cmd == "inspect":
            show(rt.ContainerStatus(pb.ContainerStatusRequest(container_id=args.id, verbose=True),
                                    timeout=t))
        elif args.cmd == "inspectp":
            show(rt.PodSandboxStatus(pb.PodSandboxStatusRequest(pod_sandbox_id=args.id, verbose=True),
                                     timeout=t))
        elif args.cmd == "exec":
            argv = args.argv[1:] if args.argv[:1] == ["--"] else args.argv
            if not argv:
                ap.error("exec: no command")
            r = rt.ExecSync(pb.ExecSyncRequest(container_id=args.id, cmd=argv,
                                               timeout=args.exec_timeout),
                            timeout=t + args.exec_timeout)
            sys.stdout.buffer.write(r.stdout)
            sys.stderr.buffer.write(r.stderr)
            return r.exit_code
        elif args.cmd == "update":
            res = read_json(args.resources, pb.LinuxContainerResources())
            rt.UpdateContainerResources(pb.UpdateContainerResourcesRequest(container_id=args.id,
                                                                           linux=res), timeout=t)
        elif args.cmd == "pods":
            for item in rt.ListPodSandbox(pb.ListPodSandboxRequest(), timeout=t).items:
                print(item.id)
        elif args.cmd == "ps":
            for c in rt.ListContainers(pb.ListContainersRequest(), timeout=t).containers:
                print(c.id)
    except grpc.RpcError as e:
        print("cri-client: %s: %s: %s" % (args.cmd, e.code().name, e.details()), file=sys.stderr)
        return FAIL
    except (OSError, ValueError) as e:
        print("cri-client: %s: %s" % (args.cmd, e), file=sys.stderr)
        return FAIL
    return 0


if __name__ == "__main__":
    sys.exit(main())

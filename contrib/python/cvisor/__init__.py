"""cvisor: run untrusted code in sandboxes of libcvisor.

Two APIs over the same library:

* ``cvisor.Sandbox``: a thin layer over libcvisor's sandbox calls (a
  persistent copy-on-write sandbox; runs, files, interactive sessions);
* ``cvisor.SandboxSession``: a policy-first session over a host workspace
  (limits, network, paths stated once; runs from threads or asyncio).
"""
from ._lib import load_library
from .remote import GraphQLClient, GraphQLError, RemoteSandbox
from .sandbox import Output, Sandbox, SandboxRunError, Session
from .session import (DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TIMEOUT, NetworkMode, SandboxClosedError,
                      SandboxCommandError, SandboxError, SandboxPolicyError, SandboxResources, SandboxResult,
                      SandboxSession, SandboxUnavailableError, parse_size)

__version__ = "0.1.0"

__all__ = ["load_library", "Sandbox", "Output", "Session", "SandboxRunError", "SandboxSession", "SandboxResult",
           "SandboxResources", "NetworkMode", "parse_size", "SandboxError", "SandboxPolicyError",
           "SandboxClosedError", "SandboxCommandError", "SandboxUnavailableError", "DEFAULT_TIMEOUT",
           "DEFAULT_MAX_OUTPUT_BYTES", "RemoteSandbox", "GraphQLClient", "GraphQLError"]

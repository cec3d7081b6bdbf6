"""The remote service's client names (cvisor issue 16). This version has no
remote service: each of them raises SandboxUnavailableError saying so."""
from __future__ import annotations

from typing import Any, NoReturn

from .session import SandboxUnavailableError

__all__ = ["RemoteSandbox", "GraphQLClient", "GraphQLError"]

_MESSAGE = ("%s: the remote cvisor service is not available in this version of cvisor; "
            "run sandboxes locally with cvisor.Sandbox or cvisor.SandboxSession (Linux)")


class GraphQLError(Exception):
    """An error the remote service's GraphQL endpoint returned."""


def _unavailable(name: str) -> NoReturn:
    raise SandboxUnavailableError(_MESSAGE % name)


class GraphQLClient:
    """A client of the remote service's GraphQL endpoint (not in this version:
    constructing one raises SandboxUnavailableError)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        _unavailable("cvisor.GraphQLClient")


class RemoteSandbox:
    """A sandbox run by the remote cvisor service (not in this version:
    constructing one raises SandboxUnavailableError)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        _unavailable("cvisor.RemoteSandbox")

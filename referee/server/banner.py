"""What ``referee serve`` tells a person when it is ready (stdout; the log records go to
stderr): where to play, whether the server's own bots play and who may register, and commands
that run as printed, from where the server was started (``.venv/bin/referee-cli`` when the
commands live in a virtual environment that is not on the PATH)."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from referee.application.house.levels import parse_levels
from referee.metrics import SERVICE


def command(name: str) -> str:
    """How to run one of this installation's commands from the current directory: its bare
    name when the PATH finds this one, else its path (relative when below the directory)."""
    here = Path(sys.executable).parent / name
    if not here.exists():
        return name
    found = shutil.which(name)
    if found is not None and Path(found).resolve() == here.resolve():
        return name
    try:
        return str(Path(os.path.relpath(here)))
    except ValueError:  # another drive
        return str(here)


def start_banner(
    *,
    address: str,
    store: str,
    metrics: str | None,
    http: str | None,
    web_client: bool,
    house_bots: str,
    open_registration: bool,
) -> str:
    """The lines printed once the server serves (``address`` its gRPC port, ``http`` its HTTP
    port's host:port or None, ``store`` already redacted)."""
    cli = command("referee-cli")
    lines = [f"referee listening on {address} (store {store})"]
    if http is not None:
        url = f"http://{http}/"
        lines.append(
            f"  play in a browser: {url}"
            if web_client
            else f"  web client: not built (needs Node.js and npm: make web), then {url}"
        )
    levels = parse_levels(house_bots)
    if levels:
        names = ", ".join(f"{level.name} ({level.accounts})" for level in levels)
        lines.append(f"  house bots (accounts): {names}: the first game can be against one")
    else:
        lines.append("  house bots: none (--house-bots easy,normal,hard runs the server's own)")
    if open_registration:
        lines.append(
            f"  registration: open: register a name on the page, or {cli} register NAME "
            f"--server {address}"
        )
    else:
        lines.append(
            "  registration: closed (the default): an account comes from "
            f"{command('referee')} account create --store {store} NAME; "
            "--open-registration lets anyone register"
        )
    lines.append(f"  try: {cli} new --game vampire-queen --players 4 --bots 3 --server {address}")
    grpcurl = command("grpcurl")
    if grpcurl != "grpcurl" or shutil.which("grpcurl"):
        lines.append(f"       {grpcurl} -plaintext {address} list")
    if metrics:
        lines.append(f"  metrics: http://{metrics}/metrics")
    if http is not None:
        lines.append(
            "  Connect/gRPC-Web: curl -H 'Content-Type: application/json' -d '{}' "
            f"http://{http}/{SERVICE}/ListGameTypes"
        )
    return "\n".join(lines) + "\n"

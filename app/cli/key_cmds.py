"""``docgraph keys``: the API keys of this data home (create, list, revoke)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from docgraph.app.auth.keys import ROLES, KeyStore, write_new_private, write_private
from docgraph.app.cli.common import JsonOption, console, handles_errors, print_json, print_rows
from docgraph.app.config import load_settings
from docgraph.errors import ConfigError

keys_app = typer.Typer(
    help="API keys for the HTTP API, the web UI and the MCP server: once one exists, every request "
    "needs one (readers ask and query; writers also upload and delete).",
    no_args_is_help=True,
)


def key_store() -> KeyStore:
    return KeyStore(load_settings().home)


@keys_app.command("create")
@handles_errors
def create_command(
    role: Annotated[str, typer.Option("--role", help=f"What the key may do: {' or '.join(ROLES)}.")],
    name: Annotated[str, typer.Option("--name", help="Whose key it is, for `keys list`.")] = "",
    if_none: Annotated[
        bool, typer.Option("--if-none", help="Only when no key is active yet (a deployment's first key).")
    ] = False,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Write the key to this file (owner-only) instead of printing it: a new file, or a revoked key's.",
        ),
    ] = None,
    json_out: JsonOption = False,
) -> None:
    """Make a key. It is shown once, as the last line; only its hash is kept."""
    keys = key_store()
    if if_none and keys.any_active():
        if json_out:
            print_json({"created": False, "reason": "a key is already active"})
        else:
            console.print("a key is already active: none made", highlight=False)
        return
    # an existing --out may be another key's only copy, or the key store: only a dead key's file is replaced
    replace_dead = out is not None and keys.holds_dead_key(out)
    if out is not None and not replace_dead and (out.exists() or out.is_symlink()):
        raise ConfigError(f"{out} exists: give a new file for the key; no key was made")
    record, secret = keys.create(role, name)
    if out is not None:
        try:
            (write_private if replace_dead else write_new_private)(out, secret + "\n")
        except OSError as error:  # nobody would hold the key: it is not kept
            keys.discard(record.key_id)
            raise ConfigError(f"cannot write the key to {out}: {error.strerror or error}; no key was made") from error
        if json_out:
            print_json({**record.to_json(), "out": str(out)})
        else:
            console.print(f"created {record.role} key {record.key_id}; the key is in {out}", highlight=False)
        return
    if json_out:
        print_json({**record.to_json(), "key": secret})
        return
    console.print(f"created {record.role} key {record.key_id}" + (f" ({name})" if name else ""), highlight=False)
    console.print("send it as `Authorization: Bearer KEY`; it is not shown again:", highlight=False)
    print(secret)


@keys_app.command("list")
@handles_errors
def list_command(json_out: JsonOption = False) -> None:
    """The keys of this data home (never the keys themselves)."""
    keys = [key.to_json() for key in key_store().records()]
    if json_out:
        print_json(keys)
    elif keys:
        print_rows(keys)
    else:
        console.print("no keys: the servers are open to anyone who can reach them (loopback only)")


@keys_app.command("revoke")
@handles_errors
def revoke_command(
    key_id: Annotated[str, typer.Argument(help="The key's id (from `keys list`).")],
    json_out: JsonOption = False,
) -> None:
    """Revoke a key: requests with it are refused from then on."""
    revoked = key_store().revoke(key_id)
    if json_out:
        print_json(revoked.to_json())
    else:
        console.print(f"revoked {revoked.role} key {revoked.key_id}", highlight=False)

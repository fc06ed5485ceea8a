"""`search-platform keys create|list|revoke|delete|prune`: manage API keys in Redis (the CLI talks to Redis, not the
API)."""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Column, Table

from search_platform.auth.errors import KeyPolicyError
from search_platform.auth.indices import IndexPolicy
from search_platform.auth.keys import ApiKey, KeyStore, parse_scopes
from search_platform.cli.common import redis_client, settings_or_exit
from search_platform.config import Settings

app = typer.Typer(no_args_is_help=True, add_completion=False, rich_markup_mode=None,
                  help="Create, list and revoke API keys.")
console = Console()
err_console = Console(stderr=True)


@contextmanager
def key_store(settings: Settings) -> Iterator[KeyStore]:
    """A KeyStore on the configured Redis, closed afterwards."""
    policy = IndexPolicy.build(default_alias=settings.elasticsearch.index_alias, log_alias=settings.analytics.log_alias)
    with redis_client(settings) as redis:
        yield KeyStore.from_settings(redis, settings.auth, policy)


def _when(timestamp: float | None) -> str:
    return "" if timestamp is None else dt.datetime.fromtimestamp(timestamp, dt.UTC).strftime("%Y-%m-%d %H:%M:%SZ")


def key_row(key: ApiKey, default_limit: int) -> tuple[str, ...]:
    """One row of `keys list`: never the secret."""
    limit = str(key.rate_limit_per_minute) if key.rate_limit_per_minute else f"{default_limit} (default)"
    state = f"revoked {_when(key.revoked_at)}" if key.revoked else "active"
    indices = ",".join(key.indices) or ("(defaults)" if key.tenant else "sp-* (all)")
    return (key.key_id, key.name, ",".join(sorted(s.value for s in key.scopes)), key.tenant or "* (all)", indices,
            limit, _when(key.created_at), state)


@app.command()
def create(
    name: Annotated[str, typer.Option(help="What the key is for (shown by `keys list`).")],
    scopes: Annotated[str, typer.Option(help="Comma-separated: search, ingest, admin.")],
    tenant: Annotated[str | None, typer.Option(help="Bind the key to this tenant; without it the key spans "
                                                    "every tenant and must hold the admin scope.")] = None,
    rate_limit: Annotated[int | None, typer.Option(min=1, help="Requests per minute (default: "
                                                               "SP_AUTH__RATE_LIMIT_PER_MINUTE).")] = None,
    index: Annotated[list[str] | None, typer.Option(
        help="An index (alias) or prefix ending in '*' the key may use; repeat for more. A tenant key without any "
             "gets the default alias and its own sp-tenant-<tenant>.* namespace.")] = None,
) -> None:
    """Create a key and print it once: only its hash is stored, it cannot be shown again."""
    settings = settings_or_exit()
    try:
        with key_store(settings) as store:
            key, plaintext = store.create(name=name, scopes=parse_scopes(scopes), tenant=tenant,
                                          rate_limit_per_minute=rate_limit, indices=index or ())
    except KeyPolicyError as error:
        err_console.print(f"[red]{error}[/red]", soft_wrap=True)
        raise typer.Exit(2) from error
    err_console.print(f"created key {key.key_id} ({key.name}); store it now, it is not shown again:")
    print(plaintext)  # stdout carries only the key, so `KEY=$(search-platform keys create ...)` works


@app.command("list")
def list_keys() -> None:
    """List keys (id, name, scopes, tenant, limit, state); secrets are never shown."""
    settings = settings_or_exit()
    with key_store(settings) as store:
        keys = store.list()
    table = Table(Column("key_id", no_wrap=True), "name", Column("scopes", no_wrap=True), "tenant", "indices",
                  "limit/min", "created", "state")
    for key in keys:
        table.add_row(*key_row(key, settings.auth.rate_limit_per_minute))
    console.print(table)


@app.command()
def revoke(key_id: Annotated[str, typer.Argument(help="The key's id (the part after `sp_`).")]) -> None:
    """Revoke a key: every later request with it gets 401."""
    settings = settings_or_exit()
    with key_store(settings) as store:
        found = store.revoke(key_id)
    if not found:
        err_console.print(f"[red]no key with id {key_id}[/red]")
        raise typer.Exit(1)
    console.print(f"revoked {key_id}")


@app.command()
def delete(key_id: Annotated[str, typer.Argument(help="The key's id (the part after `sp_`).")]) -> None:
    """Delete a key for good: it stops working and leaves `keys list`."""
    settings = settings_or_exit()
    with key_store(settings) as store:
        found = store.delete(key_id)
    if not found:
        err_console.print(f"[red]no key with id {key_id}[/red]")
        raise typer.Exit(1)
    console.print(f"deleted {key_id}")


@app.command()
def prune(
    revoked: Annotated[bool, typer.Option("--revoked", help="Delete every revoked key.")] = False,
    tenant: Annotated[str | None, typer.Option(help="Delete every key of this tenant.")] = None,
) -> None:
    """Delete revoked keys and/or every key of a tenant (at least one of --revoked, --tenant)."""
    if not revoked and tenant is None:
        err_console.print("[red]name --revoked and/or --tenant[/red]")
        raise typer.Exit(2)
    settings = settings_or_exit()
    with key_store(settings) as store:
        deleted = store.delete_where(tenant=tenant, revoked=True if revoked else None)
    console.print(f"deleted {len(deleted)} key(s): {', '.join(deleted)}" if deleted else "no key to delete")


BENCHMARK_INDICES = ("sp-bench-*",)  # the throwaway indices of benchmarks/


@contextmanager
def temporary_key(settings: Settings, *, name: str, scopes: str, tenant: str | None = "default",
                  rate_limit_per_minute: int | None = 1_000_000) -> Iterator[str]:
    """A key for one scripted run (benchmarks, load tests), deleted when the run ends; by default bound to the
    `default` tenant, granted the default alias and the benchmarks' sp-bench-* indices, and with a limit high
    enough not to throttle the measurement."""
    indices = (settings.elasticsearch.index_alias, *BENCHMARK_INDICES) if tenant is not None else ()
    with key_store(settings) as store:
        key, plaintext = store.create(name=name, scopes=parse_scopes(scopes), tenant=tenant,
                                      rate_limit_per_minute=rate_limit_per_minute, indices=indices)
        try:
            yield plaintext
        finally:
            store.delete(key.key_id)


def run_api_key(settings: Settings, *, name: str, scopes: str) -> AbstractContextManager[str]:
    """SP_API_KEY when set (read when called), else a temporary key for this run (see temporary_key)."""
    given = os.environ.get("SP_API_KEY")
    return nullcontext(given) if given else temporary_key(settings, name=name, scopes=scopes)

"""`python -m server.admin`: operator commands against the configured database.

Revoking or deleting a key, or deleting a tenant, takes effect at once in the database; in
full mode the tool then tells every API process over Redis to drop its key cache, so the
key stops working everywhere within a second. If Redis cannot be reached the tool says so
and exits 1: API processes that still reach Redis keep cached keys for up to 30 s.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

from redis.exceptions import RedisError

from storage.db.engine import Database
from storage.db.migrate import upgrade_to_head
from storage.db.repositories.tenants import TenantRepository
from storage.events.memory_bus import InMemoryEventBus
from storage.events.redis_bus import RedisEventBus
from storage.queue.lite import LiteTaskQueue
from workers.lifecycle.tenant_deletion import delete_tenant
from workers.settings import Settings, settings_or_exit
from workers.wiring import build_full_process_context, build_process_context


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m server.admin", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    create = commands.add_parser("create-key", help="create a tenant and print its API key")
    create.add_argument("tenant_name", nargs="?", default="")
    create.add_argument("--tenant-id", help="add a key to this existing tenant instead")
    create.add_argument("--admin", action="store_true", help="the key may act on every tenant")
    commands.add_parser("list-tenants", help="id, creation time and name of every tenant")
    keys = commands.add_parser("list-keys", help="every key's id, tenant, state and name")
    keys.add_argument("--tenant-id", help="only this tenant's keys")
    revoke = commands.add_parser("revoke-key", help="stop a key from working (kept, listed)")
    revoke.add_argument("key_id")
    remove = commands.add_parser("delete-key", help="revoke a key and forget it")
    remove.add_argument("key_id")
    drop = commands.add_parser(
        "delete-tenant",
        help="delete a tenant: its keys, knowledge bases, documents, files, index rows",
    )
    drop.add_argument("tenant_id")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    settings = settings_or_exit(parser.prog)
    upgrade_to_head(settings.storage.database_url)
    if args.command == "delete-tenant":
        return _delete_tenant(settings, args.tenant_id)
    db = Database.from_url(settings.storage.database_url)
    try:
        tenants = TenantRepository(db)
        commands: dict[str, Callable[[], int]] = {
            "create-key": lambda: _create_key(tenants, args),
            "list-tenants": lambda: _list_tenants(tenants),
            "list-keys": lambda: _list_keys(tenants, args.tenant_id),
            "revoke-key": lambda: _revoked(
                settings, args.key_id, tenants.revoke_api_key(args.key_id)
            ),
            "delete-key": lambda: _revoked(
                settings, args.key_id, tenants.delete_api_key(args.key_id)
            ),
        }
        return commands[args.command]()
    finally:
        db.dispose()


def _create_key(tenants: TenantRepository, args: argparse.Namespace) -> int:
    if args.tenant_id:
        tenant = tenants.get_tenant(args.tenant_id)
        if tenant is None:
            return _fail(f"no tenant {args.tenant_id}")
    elif args.tenant_name:
        tenant = tenants.create_tenant(args.tenant_name)
    else:
        return _fail("give a tenant name (a new tenant) or --tenant-id (an existing one)")
    new = tenants.create_api_key(tenant.id, f"{tenant.name} key", is_admin=args.admin)
    print(f"tenant {tenant.id}\nkey id {new.key_id}\napi key {new.key}")
    return 0


def _list_tenants(tenants: TenantRepository) -> int:
    for tenant in tenants.list_tenants():
        print(f"{tenant.id}\t{tenant.created_at.isoformat()}\t{tenant.name}")
    return 0


def _list_keys(tenants: TenantRepository, tenant_id: str | None) -> int:
    for key in tenants.list_api_keys(tenant_id):
        state = f"revoked {key.revoked_at.isoformat()}" if key.revoked_at else "active"
        role = "admin" if key.is_admin else "tenant"
        print(f"{key.id}\t{key.tenant_id}\t{role}\t{state}\t{key.name}")
    return 0


def _revoked(settings: Settings, key_id: str, done: bool) -> int:
    if not done:
        return _fail(f"no active key {key_id}")
    print(f"key {key_id} no longer works")
    return _tell_api_processes(settings, f"key {key_id}")


def _delete_tenant(settings: Settings, tenant_id: str) -> int:
    if settings.mode == "full":
        ctx = build_full_process_context(settings)
    else:
        # Lite mode: the index is a milvus-lite file only one process may open, so the
        # server must be stopped first; nothing is queued or watched in this process.
        ctx = build_process_context(settings, queue=LiteTaskQueue(), publisher=InMemoryEventBus())
    try:
        if ctx.tenants.get_tenant(tenant_id) is None:
            return _fail(f"no tenant {tenant_id}")
        deleted = delete_tenant(ctx, tenant_id)
    finally:
        ctx.close()
    print(
        f"tenant {tenant_id} deleted: {deleted.knowledges} knowledges, {deleted.files} files"
        + (f" ({deleted.files_left} left for housekeeping)" if deleted.files_left else "")
    )
    return _tell_api_processes(settings, f"tenant {tenant_id}")


def _tell_api_processes(settings: Settings, subject: str) -> int:
    """Full mode: every API process drops its key cache (lite mode caches no keys)."""
    if settings.mode != "full":
        return 0
    bus = RedisEventBus(settings.queue.redis_url, settings.queue.key_prefix)
    try:
        bus.publish_revocation(subject)
    except (RedisError, OSError) as exc:
        return _fail(
            f"could not tell the API processes over Redis ({exc}); "
            "a process that still reaches Redis may accept the key for up to 30 s"
        )
    finally:
        bus.close()
    return 0


def _fail(message: str) -> int:
    print(f"error: {message}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    raise SystemExit(main())

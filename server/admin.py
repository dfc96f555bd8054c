"""`python -m server.admin`: operator commands against the configured database."""

from __future__ import annotations

import argparse
from collections.abc import Sequence

from storage.db.engine import Database
from storage.db.migrate import upgrade_to_head
from storage.db.repositories.tenants import TenantRepository
from workers.settings import settings_or_exit


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m server.admin", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    create = commands.add_parser("create-key", help="create a tenant and print its API key")
    create.add_argument("tenant_name")
    create.add_argument("--admin", action="store_true", help="the key may act on every tenant")
    args = parser.parse_args(argv)
    settings = settings_or_exit(parser.prog)
    upgrade_to_head(settings.database_url)
    db = Database.from_url(settings.database_url)
    try:
        tenants = TenantRepository(db)
        tenant = tenants.create_tenant(args.tenant_name)
        key = tenants.create_api_key(tenant.id, f"{args.tenant_name} key", is_admin=args.admin)
        print(f"tenant {tenant.id}\napi key {key}")
    finally:
        db.dispose()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

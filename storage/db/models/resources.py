"""The resource catalog: stable ``resource://{id}`` references to stored files, and the
temporary access grants that expose them (see ``storage.files.access_grants``)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import BigInteger, ForeignKey, Index, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from storage.db.models.base import Base, new_id, utcnow


class StorageResource(Base):
    __tablename__ = "storage_resources"
    __table_args__ = (Index(None, "owner_type", "owner_id"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True, default=new_id)
    tenant_id: Mapped[str] = mapped_column(String(36), index=True)
    backend_id: Mapped[str] = mapped_column(String(64), default="")
    # The physical FileService path the resource currently points to.
    path: Mapped[str] = mapped_column(Text)
    # What the resource is bound to, e.g. ("knowledge", knowledge id); empty = unbound.
    owner_type: Mapped[str] = mapped_column(String(32), default="")
    owner_id: Mapped[str] = mapped_column(String(36), default="")
    size: Mapped[int] = mapped_column(BigInteger, default=0)
    content_type: Mapped[str] = mapped_column(String(255), default="")
    created_at: Mapped[datetime] = mapped_column(default=utcnow)
    deleted_at: Mapped[datetime | None] = mapped_column(default=None)


class AccessGrant(Base):
    __tablename__ = "access_grants"

    token: Mapped[str] = mapped_column(String(64), primary_key=True)
    resource_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("storage_resources.id", ondelete="CASCADE"), index=True
    )
    expires_at: Mapped[datetime] = mapped_column(index=True)
    created_at: Mapped[datetime] = mapped_column(default=utcnow)

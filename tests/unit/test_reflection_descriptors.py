"""The descriptor set reflection answers from (server/reflection.py) is the compiled
contract plus its comments: the same files, field for field, as the generated code."""

from __future__ import annotations

import importlib

from google.protobuf import descriptor_pb2

from server.reflection import commented_files
from tests.support.processes import REPO


def test_the_set_holds_every_proto_file_with_its_comments() -> None:
    files = commented_files()
    assert sorted(files) == sorted(
        str(p.relative_to(REPO / "proto")) for p in (REPO / "proto").rglob("*.proto")
    )
    search = descriptor_pb2.FileDescriptorProto.FromString(files["sluice/v1/search.proto"])
    comments = [loc.leading_comments for loc in search.source_code_info.location]
    assert " Default 10, at most 100.\n" in comments


def test_each_file_without_its_comments_is_the_generated_codes_descriptor() -> None:
    for name, serialized in commented_files().items():
        commented = descriptor_pb2.FileDescriptorProto.FromString(serialized)
        commented.ClearField("source_code_info")
        module = importlib.import_module(name.removesuffix(".proto").replace("/", ".") + "_pb2")
        compiled = descriptor_pb2.FileDescriptorProto()
        module.DESCRIPTOR.CopyToProto(compiled)
        assert commented == compiled, name

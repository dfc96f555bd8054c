"""The README's grpcurl upload of a file above the gRPC message limit, run as written with
the real grpcurl: one data frame per 4 MiB piece. The same file in one frame is refused."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import subprocess
from pathlib import Path

from tests.e2e.stacks import lite_stack
from tests.support.grpcurl import grpcurl_binary
from tests.support.processes import REPO

# Verbatim from README.md (checked below), so the two cannot drift apart.
SPLIT_UPLOAD = """\
{ printf '{"header": {"knowledge_base_id": "%s", "file_name": "%s"}}\\n' "$KB" big.pdf
  split -b 4M --filter 'printf "{\\"data\\": \\"%s\\"}\\n" "$(base64 -w0)"' big.pdf
} | grpcurl -plaintext -d @ 127.0.0.1:50051 sluice.v1.KnowledgeService/CreateFromFile
"""
MESSAGE_LIMIT = 5 << 20


def shell(command: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    path = f"{Path(grpcurl_binary()).parent}{os.pathsep}{os.environ['PATH']}"
    return subprocess.run(
        ["bash", "-c", command],
        cwd=cwd,
        env={**os.environ, "PATH": path, **env},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def test_the_readme_uploads_a_file_above_the_message_limit_in_several_frames(
    tmp_path: Path,
) -> None:
    assert SPLIT_UPLOAD in (REPO / "README.md").read_text()
    line = b"Pump maintenance: hold the red button for five seconds to reset it.\n"
    content = line * ((9 << 20) // len(line))  # 9 MiB: three 4 MiB frames, above the limit
    (tmp_path / "big.md").write_bytes(content)
    extra_env = {
        "SLUICE_MAX_MESSAGE_BYTES": str(MESSAGE_LIMIT),
        "SLUICE_MAX_UPLOAD_BYTES": str(16 << 20),
    }
    with lite_stack(tmp_path / "data", extra_env) as stack:
        grpcurl = [grpcurl_binary(), "-plaintext"]
        made = subprocess.run(
            [
                *grpcurl,
                "-d",
                '{"name": "frames"}',
                stack.target,
                "sluice.v1.KnowledgeBaseService/CreateKnowledgeBase",
            ],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        kb = json.loads(made.stdout)["knowledgeBase"]["id"]
        one_frame = "\n".join(
            [
                json.dumps({"header": {"knowledge_base_id": kb, "file_name": "big.md"}}),
                json.dumps({"data": base64.b64encode(content).decode()}),
            ]
        )
        refused = subprocess.run(
            [*grpcurl, "-d", "@", stack.target, "sluice.v1.KnowledgeService/CreateFromFile"],
            input=one_frame,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert refused.returncode != 0
        assert "ResourceExhausted" in refused.stderr

        command = SPLIT_UPLOAD.replace("127.0.0.1:50051", stack.target).replace("big.pdf", "big.md")
        done = shell(command, tmp_path, {"KB": kb})
        assert done.returncode == 0, done.stderr
        knowledge = json.loads(done.stdout)["knowledge"]
        assert knowledge["fileName"] == "big.md"
        assert int(knowledge["fileSize"]) == len(content)
        assert knowledge["fileHash"] == hashlib.md5(content).hexdigest()  # every frame, in order

"""What to print when documents are still in flight at the deadline: each row, its last
heartbeat, what the queue says about its task, and the housekeeper's own account."""

from __future__ import annotations

from redis import Redis
from rq.job import Job
from sqlalchemy import text

from storage.db.engine import Database
from storage.queue.rq_queue import RQTaskQueue
from tests.chaos.monkey import ChaosMonkey
from tests.e2e.stacks import Stack


def diagnose(stack: Stack, db: Database, redis_url: str, monkey: ChaosMonkey) -> str:
    prefix = stack.env["SLUICE_KEY_PREFIX"]
    queue = RQTaskQueue(redis_url, key_prefix=prefix)
    redis = Redis.from_url(redis_url)
    lines = ["-- in flight --"]
    try:
        with db.engine.connect() as conn:
            rows = conn.execute(
                text(
                    "SELECT k.id, k.parse_status, k.attempt, k.auto_requeues, k.updated_at, "
                    "k.error_message, (SELECT max(s.updated_at) FROM knowledge_processing_spans s"
                    " WHERE s.knowledge_id = k.id AND s.attempt = k.attempt) AS heartbeat "
                    "FROM knowledges k WHERE k.parse_status IN "
                    "('pending', 'processing', 'finalizing', 'deleting', 'failed')"
                )
            ).all()
        for row in rows[:10]:
            rq_id = queue.rq_job_id(f"document-process-{row.id}-{row.attempt}")
            status = redis.hget(Job.key_for(rq_id), "status")
            lines.append(
                f"{row.id} {row.parse_status} attempt={row.attempt} "
                f"requeues={row.auto_requeues} updated={row.updated_at} "
                f"heartbeat={row.heartbeat} rq_status={status!r} "
                f"queued={queue.is_queued(row.id)} error={row.error_message!r}"
            )
    finally:
        queue.close()
        redis.close()
    own = [
        line
        for line in stack.processes["housekeeper"].lines
        if "rq." not in line and "cleaning registries" not in line
    ]
    lines += ["-- housekeeper --", *own[-40:]]
    lines += [f"-- {monkey.killed} killed, {monkey.exited_by_themselves} exited --"]
    return "\n".join(lines)

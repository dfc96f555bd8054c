"""RQ 3 adapter of :class:`TaskQueue`.

Key layout for a deployment with key prefix ``P`` (several deployments share one Redis):

* RQ queue ``P:<queue>`` (Redis key ``rq:queue:P:<queue>``); workers listen on these.
* RQ job id ``<ns>-<job_id>`` where ``ns`` is P made job-id safe, so equal logical ids of two
  deployments never meet in ``rq:job:*``.
* ``P:queue:group:<group>``: set of RQ job ids of the group, for cheap ``is_queued`` and
  ``cancel_group``; members leave when their job succeeds, finally fails or is stopped.
* ``P:queue:stop:<rq job id>``: cancel flag read by ``cancel_requested()`` in the handler.

Jobs are stored with RQ's JSON serializer (payloads must be JSON anyway); workers must be
started through :func:`storage.queue.rq_worker.run_worker`, which uses the same.

RQ calls ``on_failure`` after every failed attempt; :func:`on_job_failure` turns that into the
single ``on_final_failure`` call by checking ``job.retries_left``.

A handler interrupted by the worker's shutdown (TaskInterrupted) makes the job function
return RQ's ``Retry``: RQ puts the job back at the front of its queue and counts it in
``number_of_retries``, while ``retries_left`` (our attempts) stays as it was.
"""

from __future__ import annotations

import hashlib
import logging
import re
import time
from typing import Any
from uuid import uuid4

from redis import Redis
from redis.exceptions import RedisError
from rq import Callback, Queue, Retry
from rq.command import send_stop_job_command
from rq.exceptions import DuplicateJobError, InvalidJobOperation, NoSuchJobError
from rq.job import Job, get_current_job
from rq.serializers import JSONSerializer
from rq.utils import now, utcparse

from storage.queue import shutdown
from storage.queue.base import (
    JOB_ID_PATTERN,
    PICKUP_GRACE_S,
    AttemptInfo,
    QueueError,
    QueueName,
    TaskInterrupted,
    TaskSpec,
)
from storage.queue.execution import (
    call_final_failure,
    current_attempt,
    describe_error,
    run_handler,
)
from storage.queue.execution import (
    cancel_requested as _cancel_requested,
)
from storage.queue.execution import (
    shutdown_requested as _shutdown_requested,
)
from storage.queue.rq_liveness import DEFAULT_HEARTBEAT_TTL_S, alive_key, heartbeat
from storage.queue.trace_context import current_carrier

logger = logging.getLogger(__name__)

SERIALIZER = JSONSerializer
_PREFIX_PATTERN = re.compile(r"[A-Za-z0-9_.:-]+")
_WAITING = frozenset({"queued", "scheduled", "deferred"})
_ACTIVE = _WAITING | {"started"}
_STOP_FLAG_TTL_S = 24 * 3600
# How often one job may be handed back by shutting-down workers before RQ fails it (a
# deployment that restarts its workers forever); housekeeping then recovers the round.
MAX_HANDBACKS = 100
# A job popped off its queue list is marked started a moment later, in the worker's next
# Redis round trip; a "queued" job in no list is looked at again after this long.
_PICKUP_SETTLE_S = 0.5

_META_JOB_ID = "sluice_job_id"
_META_GROUP = "sluice_group"
_META_PREFIX = "sluice_prefix"
_META_MAX_ATTEMPTS = "sluice_max_attempts"
_META_FINAL_FAILURE = "sluice_on_final_failure"
# The enqueuer's trace context (storage.queue.trace_context), continued by every attempt.
_META_TRACE = "sluice_trace"
_META_HEARTBEAT = "sluice_heartbeat_ttl_s"

# Drops group members whose job is gone or finished, atomically with the status check, so a
# job re-enqueued under the same id in between is never dropped.
_PRUNE_GROUP = """
local job_key_prefix = ARGV[1]
for i = 2, #ARGV do
  local status = redis.call('HGET', job_key_prefix .. ARGV[i], 'status')
  if (not status) or status == 'finished' or status == 'failed'
     or status == 'stopped' or status == 'canceled' then
    redis.call('SREM', KEYS[1], ARGV[i])
  end
end
return 0
"""


def rq_queue_name(key_prefix: str, queue: QueueName) -> str:
    return f"{key_prefix}:{queue.value}"


def validate_key_prefix(key_prefix: str) -> None:
    if not _PREFIX_PATTERN.fullmatch(key_prefix):
        raise ValueError(f"key_prefix allows letters, digits and _.:- only, got {key_prefix!r}")


def _job_namespace(key_prefix: str) -> str:
    if JOB_ID_PATTERN.fullmatch(key_prefix):
        return key_prefix
    readable = re.sub(r"[^A-Za-z0-9_-]", "_", key_prefix)
    return f"{readable}_{hashlib.sha1(key_prefix.encode()).hexdigest()[:8]}"


def _group_key(key_prefix: str, group: str) -> str:
    return f"{key_prefix}:queue:group:{group}"


def _stop_key(key_prefix: str, rq_job_id: str) -> str:
    return f"{key_prefix}:queue:stop:{rq_job_id}"


def _text(value: bytes | str | None) -> str | None:
    return value.decode() if isinstance(value, bytes) else value


# ---- functions RQ calls by import path inside workers -------------------------------------


def run_task(handler_path: str, payload: dict[str, Any]) -> Retry | None:
    """The job function of every RQ job: imports the handler and calls it with its context."""
    job = get_current_job()
    if job is None:
        raise QueueError("run_task runs only inside an RQ job")
    meta = job.meta
    max_attempts = int(meta.get(_META_MAX_ATTEMPTS, 1))
    # retries_left still counts the running attempt's retries: RQ decrements after failure.
    info = AttemptInfo(
        job_id=str(meta.get(_META_JOB_ID, job.id)),
        group=meta.get(_META_GROUP),
        attempt_number=max_attempts - (job.retries_left or 0),
        max_attempts=max_attempts,
        timeout_s=int(job.timeout or 0),
    )
    stop_key = _stop_key(str(meta.get(_META_PREFIX, "")), job.id)
    connection = job.connection

    def stop_flag_set() -> bool:
        try:
            return bool(connection.exists(stop_key))
        except RedisError:
            # Redis away: the task goes on; a cancel also shows in the knowledge's own row,
            # which the handler's checkpoints read as well.
            logger.warning("cancel flag of job %s unreadable; going on", job.id)
            return False

    # cancel_group may catch a job between a worker's dequeue and its start, or a retry of
    # an attempt that failed after being cancelled: such a job ends without running.
    if stop_flag_set():
        logger.info("job %s was cancelled; not running it", job.id)
        return None
    shutdown.enter_task()
    ttl_s = float(meta.get(_META_HEARTBEAT, DEFAULT_HEARTBEAT_TTL_S))
    try:
        with heartbeat(connection, alive_key(str(meta.get(_META_PREFIX, "")), job.id), ttl_s):
            run_handler(
                handler_path,
                payload,
                info,
                stop_flag_set,
                shutdown.is_requested,
                meta.get(_META_TRACE),
            )
    except TaskInterrupted:
        logger.warning("job %s interrupted by shutdown; back to the front of its queue", job.id)
        return Retry(max=MAX_HANDBACKS, enqueue_at_front=True)
    finally:
        shutdown.leave_task()
    return None


def _forget_job(job: Job, connection: Redis) -> None:
    prefix = job.meta.get(_META_PREFIX)
    if prefix is None:
        return
    group = job.meta.get(_META_GROUP)
    with connection.pipeline() as pipe:
        if group is not None:
            pipe.srem(_group_key(prefix, group), job.id)
        pipe.delete(_stop_key(prefix, job.id))
        pipe.execute()


def _was_cancelled(job: Job, connection: Redis) -> bool:
    prefix = job.meta.get(_META_PREFIX)
    return prefix is not None and bool(connection.exists(_stop_key(prefix, job.id)))


def finish_failed_job(job: Job, connection: Redis, error: str) -> None:
    """The job failed for good (no retries left): leave the group, call the dead letter.
    A task stopped by ``cancel_group`` was cancelled, not failed: no dead letter."""
    cancelled = _was_cancelled(job, connection)
    _forget_job(job, connection)
    callback = job.meta.get(_META_FINAL_FAILURE)
    if callback and not cancelled:
        payload = job.args[1] if len(job.args) > 1 else {}
        call_final_failure(str(callback), payload, error)


def on_job_success(job: Job, connection: Redis, result: Any) -> None:
    try:
        _forget_job(job, connection)
    except Exception:
        logger.exception("cleanup after job %s succeeded failed", job.id)


def on_job_failure(
    job: Job,
    connection: Redis,
    exc_type: type[BaseException] | None,
    exc: BaseException | None,
    traceback: Any,
) -> None:
    """RQ's on_failure, called after EVERY failed attempt; acts only on the last one. An
    attempt that failed after ``cancel_group`` flagged it is the last one: RQ reads
    ``retries_left`` after this callback, so no retry is scheduled for a cancelled task."""
    try:
        if _was_cancelled(job, connection):
            job.retries_left = 0
        if job.retries_left:
            return
        error = describe_error(exc) if exc is not None else "unknown error"
        finish_failed_job(job, connection, error)
    except Exception:
        # Raising here would replace the task's own error in RQ's failure record.
        logger.exception("final-failure handling of job %s failed", job.id)


def on_job_stopped(job: Job, connection: Redis) -> None:
    try:
        _forget_job(job, connection)
    except Exception:
        logger.exception("cleanup after job %s was stopped failed", job.id)


# ---- the adapter ---------------------------------------------------------------------------


class RQTaskQueue:
    def __init__(
        self,
        redis_url: str,
        *,
        key_prefix: str,
        result_ttl_s: int = 3600,
        failure_ttl_s: int = 7 * 24 * 3600,
        callback_timeout_s: int = 300,
        pickup_grace_s: float = PICKUP_GRACE_S,
        heartbeat_ttl_s: float = DEFAULT_HEARTBEAT_TTL_S,
    ) -> None:
        validate_key_prefix(key_prefix)
        self._prefix = key_prefix
        self._namespace = _job_namespace(key_prefix)
        self._redis = Redis.from_url(redis_url)
        self._result_ttl_s = result_ttl_s
        self._failure_ttl_s = failure_ttl_s
        self._callback_timeout_s = callback_timeout_s
        self._pickup_grace_s = pickup_grace_s
        self._heartbeat_ttl_s = heartbeat_ttl_s
        self._prune_group = self._redis.register_script(_PRUNE_GROUP)

    @property
    def key_prefix(self) -> str:
        return self._prefix

    def _queue(self, name: QueueName | str) -> Queue:
        queue_name = rq_queue_name(self._prefix, name) if isinstance(name, QueueName) else name
        return Queue(queue_name, connection=self._redis, serializer=SERIALIZER)

    def rq_job_id(self, job_id: str) -> str:
        """The RQ job id under which this deployment stores task ``job_id``."""
        return f"{self._namespace}-{job_id}"

    def enqueue(self, spec: TaskSpec) -> str:
        job_id = spec.job_id or uuid4().hex
        rq_id = self.rq_job_id(job_id)
        try:
            # The lock makes "is it active? else drop the old record and enqueue" one step for
            # concurrent enqueuers of the same id.
            lock_key = f"{self._prefix}:queue:enqueue-lock:{rq_id}"
            with self._redis.lock(lock_key, timeout=30, blocking_timeout=10):
                status = _text(self._redis.hget(Job.key_for(rq_id), "status"))
                if status in _ACTIVE:
                    return job_id
                if status is not None:
                    self._delete_job(rq_id)
                self._submit(spec, job_id, rq_id)
        except DuplicateJobError:
            return job_id
        except (RedisError, InvalidJobOperation) as exc:
            raise QueueError(f"enqueue of {spec.handler} [{job_id}] failed: {exc}") from exc
        return job_id

    def _submit(self, spec: TaskSpec, job_id: str, rq_id: str) -> None:
        with self._redis.pipeline() as pipe:
            pipe.delete(_stop_key(self._prefix, rq_id))
            if spec.group is not None:
                pipe.sadd(_group_key(self._prefix, spec.group), rq_id)
            pipe.execute()
        retry = None
        if spec.max_retries:
            intervals = [spec.retry_delay(k) for k in range(1, spec.max_retries + 1)]
            retry = Retry(max=spec.max_retries, interval=intervals)
        meta = {
            _META_JOB_ID: job_id,
            _META_GROUP: spec.group,
            _META_PREFIX: self._prefix,
            _META_MAX_ATTEMPTS: spec.max_attempts,
            _META_FINAL_FAILURE: spec.on_final_failure,
            _META_TRACE: current_carrier(),
            _META_HEARTBEAT: self._heartbeat_ttl_s,
        }
        try:
            self._queue(spec.queue).enqueue(
                run_task,
                args=(spec.handler, spec.payload),
                job_id=rq_id,
                job_timeout=spec.timeout_s,
                retry=retry,
                result_ttl=self._result_ttl_s,
                failure_ttl=self._failure_ttl_s,
                meta=meta,
                description=f"{spec.handler} [{job_id}]",
                on_success=Callback(on_job_success),
                on_failure=Callback(on_job_failure, timeout=self._callback_timeout_s),
                on_stopped=Callback(on_job_stopped),
                unique=True,
                at_front=spec.at_front,
            )
        except DuplicateJobError:
            raise
        except Exception:
            if spec.group is not None:
                self._redis.srem(_group_key(self._prefix, spec.group), rq_id)
            raise

    def _fetch(self, rq_id: str) -> Job | None:
        try:
            return Job.fetch(rq_id, connection=self._redis, serializer=SERIALIZER)
        except NoSuchJobError:
            return None

    def _delete_job(self, rq_id: str) -> None:
        job = self._fetch(rq_id)
        if job is not None:
            job.delete()

    def _group_members(self, group: str) -> list[tuple[str, str | None]]:
        """(rq job id, status) of the group's tracked jobs."""
        ids = sorted(_text(m) or "" for m in self._redis.smembers(_group_key(self._prefix, group)))
        if not ids:
            return []
        with self._redis.pipeline(transaction=False) as pipe:
            for rq_id in ids:
                pipe.hget(Job.key_for(rq_id), "status")
            statuses = [_text(s) for s in pipe.execute()]
        finished = [i for i, s in zip(ids, statuses, strict=True) if s not in _ACTIVE]
        if finished:
            self._prune_group(
                keys=[_group_key(self._prefix, group)],
                args=[Job.key_for(""), *finished],
            )
        return list(zip(ids, statuses, strict=True))

    def is_queued(self, group: str) -> bool:
        try:
            return any(
                self._still_waiting(rq_id, status)
                for rq_id, status in self._group_members(group)
                if status in _ACTIVE
            )
        except RedisError as exc:
            raise QueueError(f"is_queued({group!r}) failed: {exc}") from exc

    def _still_waiting(self, rq_id: str, status: str | None) -> bool:
        """Waiting, or taken by a worker so recently that its handler may not have written
        its first heartbeat. A worker pops a job off its queue list before marking it
        started; one killed in between leaves the job "queued" in no list, where nothing
        will ever run it, so such a job is looked at once more before it counts as lost."""
        if status == "started":
            return self._started_recently(rq_id)
        if self._redis.exists(_stop_key(self._prefix, rq_id)):
            # Cancelled: it ends without running when a worker takes it (a retry scheduled
            # just before the cancel flag was set).
            return False
        if status != "queued" or self._in_a_queue_list(rq_id):
            return True
        time.sleep(_PICKUP_SETTLE_S)
        status = _text(self._redis.hget(Job.key_for(rq_id), "status"))
        if status == "started":
            return self._started_recently(rq_id)
        return status == "queued" and self._in_a_queue_list(rq_id)

    def _in_a_queue_list(self, rq_id: str) -> bool:
        """In its queue's list, or in the intermediate list a single-queue worker moves it
        to while taking it."""
        origin = _text(self._redis.hget(Job.key_for(rq_id), "origin"))
        if origin is None:
            return False
        queue = self._queue(origin)
        return any(
            self._redis.lpos(key, rq_id) is not None
            for key in (queue.key, queue.intermediate_queue_key)
        )

    def _started_recently(self, rq_id: str) -> bool:
        raw = _text(self._redis.hget(Job.key_for(rq_id), "started_at"))
        if not raw:
            return True  # being marked started right now
        return (now() - utcparse(raw)).total_seconds() < self._pickup_grace_s

    def has_live_task(self, group: str) -> bool:
        try:
            return any(
                self._beating(rq_id) if status == "started" else self._still_waiting(rq_id, status)
                for rq_id, status in self._group_members(group)
                if status in _ACTIVE
            )
        except RedisError as exc:
            raise QueueError(f"has_live_task({group!r}) failed: {exc}") from exc

    def _beating(self, rq_id: str) -> bool:
        """Its heartbeat is fresh, or it was taken less than a heartbeat TTL ago."""
        if self._redis.exists(alive_key(self._prefix, rq_id)):
            return True
        raw = _text(self._redis.hget(Job.key_for(rq_id), "started_at"))
        return not raw or (now() - utcparse(raw)).total_seconds() < self._heartbeat_ttl_s

    def forget_dead_tasks(self, group: str) -> int:
        try:
            dead = [
                rq_id
                for rq_id, status in self._group_members(group)
                if status == "started" and not self._beating(rq_id)
            ]
            for rq_id in dead:
                # Its worker is gone: RQ would keep the record "started" until the time
                # limit, and an enqueue of the same id would take it for a running task.
                self._delete_job(rq_id)
                self._redis.srem(_group_key(self._prefix, group), rq_id)
            return len(dead)
        except RedisError as exc:
            raise QueueError(f"forget_dead_tasks({group!r}) failed: {exc}") from exc

    def cancel_group(self, group: str) -> int:
        try:
            return sum(
                self._cancel_job(rq_id, status)
                for rq_id, status in self._group_members(group)
                if status in _ACTIVE
            )
        except RedisError as exc:
            raise QueueError(f"cancel_group({group!r}) failed: {exc}") from exc

    def _cancel_job(self, rq_id: str, status: str | None) -> int:
        job = self._fetch(rq_id)
        if job is None:
            return 0
        # Try both waiting places whatever status was read: the scheduler may have moved a
        # retry from its registry to the queue list since the group was listed.
        queue = self._queue(job.origin)
        taken_off = (
            bool(
                self._redis.lrem(queue.key, 0, rq_id)
                + self._redis.zrem(queue.scheduled_job_registry.key, rq_id)
            )
            or status == "deferred"
        )
        if taken_off:
            job.delete()
            _forget_job(job, self._redis)
            return 1
        # Running, or just dequeued by a worker: flag it for the handler's cooperative checks,
        # and have a forking worker kill its work horse.
        self._redis.set(_stop_key(self._prefix, rq_id), b"1", ex=_STOP_FLAG_TTL_S)
        try:
            send_stop_job_command(self._redis, rq_id, serializer=SERIALIZER)
        except (InvalidJobOperation, NoSuchJobError):
            logger.info("job %s is not executing yet; its stop flag is set", rq_id)
        return 1

    def attempt_info(self) -> AttemptInfo:
        return current_attempt()

    def cancel_requested(self) -> bool:
        return _cancel_requested()

    def shutdown_requested(self) -> bool:
        return _shutdown_requested()

    def close(self) -> None:
        self._redis.close()

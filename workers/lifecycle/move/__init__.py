"""MoveKnowledge's maintenance task (knowledge:move): the job's knowledges moved one by one,
in reuse_vectors (``reuse``) or reparse (``reparse``) mode, the job's progress written and
published (``job``)."""

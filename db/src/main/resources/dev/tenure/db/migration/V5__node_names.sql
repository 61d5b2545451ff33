-- Tenure ledger, version 5: the node (process) behind each claim and run, by the name people read ("web-3/invoicing/
-- 22418", see dev.tenure.NodeName), next to the owner id that fencing compares. Nullable and without a default, so adding
-- them rewrites no row and takes the exclusive lock only for a moment; rows written before this version have no node
-- name, and readers fall back to the owner id for them.

-- The node of the current holder: set with the owner by every claim and hand-off, cleared with it.
ALTER TABLE ${schema}.job_execution ADD COLUMN IF NOT EXISTS node text;
-- The node that started the run (of the last attempt: a take-over sets it with the owner).
ALTER TABLE ${schema}.job_run ADD COLUMN IF NOT EXISTS node text;
-- The node of the holder an operator's force-release took the job from.
ALTER TABLE ${schema}.audit_log ADD COLUMN IF NOT EXISTS old_node text;

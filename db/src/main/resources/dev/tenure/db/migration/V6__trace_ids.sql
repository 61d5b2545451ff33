-- Tenure ledger, version 6: the trace of each run, when the application traces its runs (Micrometer Observation with a
-- tracer, see dev.tenure.observation): the console links a run to its trace with it. Nullable and without a default, so
-- adding it rewrites no row and takes the exclusive lock only for a moment; rows of untraced runs keep it null.

-- The trace id of the run's last attempt: set once the run started, cleared when another attempt takes the fire over.
ALTER TABLE ${schema}.job_run ADD COLUMN IF NOT EXISTS trace_id text;

-- see ../run-pg-shapes.sh
\set k random(1, 1000)
\set f random(1, 1000000000000)
BEGIN;
INSERT INTO public.biz(job, fire) VALUES ('j' || :k, 'f' || :f);
COMMIT;

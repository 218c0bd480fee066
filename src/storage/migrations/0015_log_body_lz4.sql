-- The request log's bodies compressed with lz4 instead of pglz where PostgreSQL was built with lz4 (PGlite is not):
-- TOAST's pglz was a third of the batch INSERT's time a row (docs/performance.md). Only the setting changes; rows
-- already stored stay as they are. Partitions made later take the parent's setting; the existing ones are set here.
DO $$
DECLARE
  part regclass;
BEGIN
  BEGIN
    ALTER TABLE "request_logs" ALTER COLUMN "request_body" SET COMPRESSION lz4, ALTER COLUMN "response_body" SET COMPRESSION lz4;
  EXCEPTION WHEN feature_not_supported THEN
    RETURN;
  END;
  FOR part IN SELECT inhrelid::regclass FROM pg_inherits WHERE inhparent = '"request_logs"'::regclass LOOP
    EXECUTE format('ALTER TABLE %s ALTER COLUMN "request_body" SET COMPRESSION lz4, ALTER COLUMN "response_body" SET COMPRESSION lz4', part);
  END LOOP;
END $$;

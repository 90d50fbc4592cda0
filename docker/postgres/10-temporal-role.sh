#!/bin/sh
# Runs once, when the Postgres volume is initialised: a separate role for the Temporal server
# (it creates and migrates its own `temporal` and `temporal_visibility` databases), so the DocQA
# role and the Temporal role do not share a password.
set -eu
psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
  -v pw="$TEMPORAL_DB_PASSWORD" <<'SQL'
CREATE ROLE temporal LOGIN CREATEDB PASSWORD :'pw';
SQL

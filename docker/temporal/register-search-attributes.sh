#!/bin/sh
# One-shot job of the compose stack (temporalio/admin-tools image): registers the search
# attributes that make DocQA runs findable by tenant in the Temporal UI and CLI. Idempotent: an
# attribute that already exists is left alone, so the job can run on every `docker compose up`.
# The list is search-attributes.txt (`Name:Type` lines), generated from libs/workflow-contract by
# `npm run contract:generate` (a unit test fails when it is stale).
set -eu

ADDRESS="${TEMPORAL_ADDRESS:-temporal:7233}"
NAMESPACE="${TEMPORAL_NAMESPACE:-default}"
ATTRIBUTES_FILE="${ATTRIBUTES_FILE:-$(dirname "$0")/search-attributes.txt}"
ATTRIBUTES="$(grep -v '^#' "$ATTRIBUTES_FILE")"
TRIES="${REGISTER_TRIES:-90}"

t() { temporal "$@" --address "$ADDRESS"; }

# auto-setup creates the namespace shortly after the frontend answers: wait for it.
i=0
until t operator namespace describe --namespace "$NAMESPACE" >/dev/null 2>&1; do
  i=$((i + 1))
  if [ "$i" -ge "$TRIES" ]; then
    echo "namespace $NAMESPACE not reachable on $ADDRESS" >&2
    exit 1
  fi
  sleep 2
done

existing="$(t operator search-attribute list --namespace "$NAMESPACE")"
for pair in $ATTRIBUTES; do
  name="${pair%%:*}"
  type="${pair#*:}"
  if printf '%s\n' "$existing" | grep -qw "$name"; then
    echo "search attribute $name already registered"
  else
    t operator search-attribute create --namespace "$NAMESPACE" --name "$name" --type "$type"
    echo "search attribute $name ($type) registered"
  fi
done

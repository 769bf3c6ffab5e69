#!/bin/sh
# Starts the program after BENCH_DELAY seconds: a known, fixed addition to a run's wall time.
sleep "${BENCH_DELAY:-0}"
exec "$@"

#!/usr/bin/env bash
# Runs a command (a bench) with the CPU before other jobs on a shared machine: in a cgroup of maximum
# CPU shares, so their load slows neither it nor the reference it measures beside it.
# Usage: bash bench/cpu-priority.sh npm run bench -- browser   (needs root and cgroup v1's cpu controller)
set -euo pipefail
group=/sys/fs/cgroup/cpu/toolroom-bench
if ! mkdir -p "$group" 2>/dev/null || ! echo 262144 >"$group/cpu.shares" 2>/dev/null; then
  echo "cpu-priority: cannot make a cgroup under /sys/fs/cgroup/cpu (needs root and cgroup v1); run the bench as is" >&2
  exit 1
fi
echo $$ >"$group/cgroup.procs"
exec "$@"

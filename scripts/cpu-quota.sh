#!/usr/bin/env bash
# cpu-quota.sh PERCENT CMD...: runs CMD in a cgroup (v1 cpu controller, or
# v2) whose CPU time is capped at PERCENT of one core, then removes the
# group. With two cores, this is how a generator is made the slower side of
# a benchmark: the target on its own core is then faster than the
# generator, and req/s compares the generators' CPU per request.
set -euo pipefail
pct=$1; shift
if [ -d /sys/fs/cgroup/cpu ] && [ -f /sys/fs/cgroup/cpu/cpu.cfs_period_us ]; then
	g=/sys/fs/cgroup/cpu/gust-quota-$$
	mkdir "$g"
	echo 100000 > "$g/cpu.cfs_period_us"
	echo $((pct * 1000)) > "$g/cpu.cfs_quota_us"
	top=/sys/fs/cgroup/cpu
elif [ -f /sys/fs/cgroup/cgroup.controllers ]; then
	g=/sys/fs/cgroup/gust-quota-$$
	mkdir "$g"
	echo "$((pct * 1000)) 100000" > "$g/cpu.max"
	top=/sys/fs/cgroup
else
	echo "cpu-quota.sh: no cgroup cpu controller here" >&2
	exit 1
fi
cleanup() { echo $$ > "$top/cgroup.procs" 2>/dev/null || true; rmdir "$g" 2>/dev/null || true; }
trap cleanup EXIT
echo $$ > "$g/cgroup.procs"
"$@"

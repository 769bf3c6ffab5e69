#!/usr/bin/env bash
# The new verify checks (issue 27 item 16) natively on the H200, with the probe built there.
set -u
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:?}
{
  echo "date_utc: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "uname: $(uname -srm)"
  echo "compiler: $(g++ --version | head -1)"
  nvidia-smi --query-gpu=name,driver_version,memory.total,pci.bus_id --format=csv,noheader 2>&1 | sed 's/^/gpu: /'
} > "$out/environment.txt"
s=$(date +%s%N)
g++ -std=c++23 -O2 -pthread -o /tmp/zcuda-probe $(ls "$here"/probe/*.cpp | grep -v win32) -ldl > "$out/build.log" 2>&1 || { echo build failed; cat "$out/build.log"; exit 1; }
echo "build_ms: $(( ($(date +%s%N) - s) / 1000000 ))" >> "$out/environment.txt"
new="driver.texture driver.pitch_2d driver.cache_config driver.pci_bus_id cusparse.spmm_coo_row_major"
for c in $new; do
  s=$(date +%s%N)
  timeout 120 /tmp/zcuda-probe --check "$c" >> "$out/alone.jsonl" 2>> "$out/stderr.txt"
  echo "$c alone exit=$? wall_ms=$(( ($(date +%s%N) - s) / 1000000 ))" >> "$out/times.txt"
done
# As verify schedules them: the driver group and the cusparse group, each in one process.
for group in driver cusparse; do
  args=()
  for c in $(/tmp/zcuda-probe --plan | grep "^shared $group" | cut -d' ' -f2-); do args+=(--check "$c"); done
  s=$(date +%s%N)
  timeout 600 /tmp/zcuda-probe "${args[@]}" --watchdog 120 >> "$out/groups.jsonl" 2>> "$out/stderr.txt"
  echo "$group group exit=$? wall_ms=$(( ($(date +%s%N) - s) / 1000000 ))" >> "$out/times.txt"
done
cat "$out/environment.txt" "$out/times.txt"
grep -o '"check":"[^"]*","status":"[^"]*"' "$out/alone.jsonl" "$out/groups.jsonl"

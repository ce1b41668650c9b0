#!/usr/bin/env bash
# Issue 40's cold check, three builds: B before (74037cc), R (idle take skips ReturnToPool), D (R + the chain loop compiled optimised with a direct call).
set -u
declare -A DLL=([B]=BEFORE/Concurrency.Benchmarks.dll [R]=IDLE_FIX/Concurrency.Benchmarks.dll [D]=AFTER/Concurrency.Benchmarks.dll)
n=0
for side in B R D D R B B R D D R B B R D D R B; do
  n=$((n+1))
  echo "$(date -u +%T) $n $side" >> OUT/log
  DOTNET_gcConcurrent=1 dotnet ${DLL[$side]} actors --runs 5 --steady-seconds 5 --contender BatchDrainMailbox --result OUT/$n-$side.json > OUT/$n-$side.log 2>&1
done
echo "$(date -u +%T) done" >> OUT/log

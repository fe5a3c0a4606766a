#!/usr/bin/env bash
# Draws the whole-pipeline benchmark's plots (PNG) from the CSV files that
# `scripts/bench.sh matrix` and `scripts/bench.sh soak` write (default .local/bench):
#   push-latency-vs-camera.png   alarm -> push p50 and p99 against the camera's latency
#   push-latency-over-time.png   the soak: every alarm's push latency, p50 and p99 per 10 s
#   memory-over-time.png         the soak: RSS of each worker type, every second
#   scripts/plot-bench.sh [DIR] [OUT_DIR]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-.local/bench}
out=${2:-$dir}
command -v gnuplot >/dev/null || apt-get install -y -q gnuplot-nox >/dev/null
mkdir -p "$out"

if [ -f "$dir/matrix.csv" ]; then
  # One line per rate: rows of matrix.csv are rate,camera_ms,...; p50 is column 7, p99 8.
  for rate in $(tail -n +2 "$dir/matrix.csv" | cut -d, -f1 | sort -un); do
    awk -F, -v r="$rate" 'NR > 1 && $1 + 0 == r + 0 { print $2 / 1000, $7, $8, $9 }' \
      "$dir/matrix.csv" | sort -n >"$dir/matrix-$((${rate%.*})).dat"
  done
  plots=""
  for file in "$dir"/matrix-*.dat; do
    rate=$(basename "$file" .dat | cut -d- -f2)
    plots+="'$file' using 1:2 with linespoints title '$rate alarms/s, median', "
    plots+="'$file' using 1:3 with linespoints dashtype 2 title '$rate alarms/s, p99', "
  done
  gnuplot <<PLOT
set terminal pngcairo size 900,520
set output '$out/push-latency-vs-camera.png'
set title 'Alarm to push against camera latency (20% never answer)'
set xlabel 'camera latency (s)'
set ylabel 'alarm to push (ms, log scale)'
set logscale xy
set xtics (0.5, 5, 20)
set yrange [1:*]
set key outside right
set grid
plot ${plots%, }
PLOT
fi

soak=$(ls "$dir"/pushes-soak-*.csv 2>/dev/null | head -n 1 || true)
if [ -n "$soak" ]; then
  label=$(basename "$soak" .csv | sed 's/^pushes-//')
  gnuplot <<PLOT
set terminal pngcairo size 900,520
set output '$out/push-latency-over-time.png'
set title 'Soak: alarm to push over time (100 alarms/s, camera 5 s, 20% timeouts)'
set xlabel 'minutes since the load began'
set ylabel 'alarm to push (ms)'
set datafile separator ','
set logscale y
set grid
set key top right
plot '$soak' every ::1 using (\$1/60):2 with dots linecolor rgb '#9aa9c8' title 'each alarm', \
     '$dir/latency-$label.csv' every ::1 using (\$1/60):2 with lines linewidth 2 title 'median per 10 s', \
     '$dir/latency-$label.csv' every ::1 using (\$1/60):3 with lines linewidth 2 title 'p99 per 10 s'
PLOT
  memory="$dir/memory-$label.csv"
  columns=$(head -n 1 "$memory" | tr ',' '\n' | wc -l)
  plots=""
  for column in $(seq 2 "$columns"); do
    name=$(head -n 1 "$memory" | cut -d, -f"$column" | sed 's/_rss_mib//')
    plots+="'$memory' every ::1 using (\$1/60):$column with lines linewidth 2 title '$name', "
  done
  gnuplot <<PLOT
set terminal pngcairo size 900,520
set output '$out/memory-over-time.png'
set title 'Soak: resident memory of the largest replica of each process type'
set xlabel 'minutes since the sampling began'
set ylabel 'RSS (MiB)'
set datafile separator ','
set yrange [0:*]
set grid
set key outside right
plot ${plots%, }
PLOT
fi
ls "$out"/*.png

#!/usr/bin/env bash
# Builds the test collector (./collector: the OpenTelemetry Collector's
# OTLP receiver and file exporter, from the collector's published
# modules) into DIR/otelcol. .ci/run calls it once per collector version
# and caches DIR under ~/.cache/llmmetrics/otelcol-VERSION.
#   bash testing/otelcol/build.sh DIR
set -euo pipefail
dir=${1:?usage: build.sh DIR}
mkdir -p "$dir"
cd "$(dirname "$0")/collector"
GOWORK=off go build -trimpath -o "$dir/otelcol.tmp" .
mv "$dir/otelcol.tmp" "$dir/otelcol"

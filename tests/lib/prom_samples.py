#!/usr/bin/python3
"""Prometheus text exposition to one line per sample, 'name{k="v",...} value
TYPE', labels sorted by name and le and values as floats, so that two
renderings of the same samples (idlescope's textfile, node_exporter's scrape
of it) compare with diff. Parsed by Debian's python3-prometheus-client.

Usage: prom_samples.py [--series] FILE [PREFIX]
  --series  no values: the series only (name and labels)
  PREFIX    only the samples whose name starts with it
"""
import sys

from prometheus_client.parser import text_string_to_metric_families

args = sys.argv[1:]
series = args[:1] == ['--series']
if series:
    args = args[1:]
path, prefix = args[0], args[1] if len(args) > 1 else ''
with open(path, encoding='utf-8') as f:
    text = f.read()
out = []
for fam in text_string_to_metric_families(text):
    for s in fam.samples:
        if not s.name.startswith(prefix):
            continue
        labels = {k: repr(float(v)) if k == 'le' else v for k, v in s.labels.items()}
        lab = ','.join(f'{k}="{labels[k]}"' for k in sorted(labels))
        value = '' if series else f' {float(s.value)!r}'
        out.append(f'{s.name}{{{lab}}}{value} {fam.type}')
print('\n'.join(sorted(out)))

#!/usr/bin/env python3
"""Every row of each run's grpc.md, before against after: the median of the runs' medians, the lowest and highest run,
and "beyond the intervals" only where every run of one side lies beyond every run of the other.
Usage: python3 table.py DIR (DIR holds before/run-N/grpc.md and after/run-N/grpc.md)."""
import glob, os, statistics, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import markdown_tables

def rows(path):
    out = {}
    for header, cells in markdown_tables.rows(path):
        key = cells[0] if header[0] not in ('mode',) else f'{cells[0]} buffer {cells[1]}'
        first = 2 if header[0] == 'mode' else 1
        for name, cell in zip(header[first:], cells[first:]):
            value = markdown_tables.number(cell)
            if value is not None and not name.startswith('round') and name not in ('goal', 'verdict'):
                out[f'{header[0]}: {key}, {name}'] = value
    return out

def side(root, name):
    return [rows(p) for p in sorted(glob.glob(os.path.join(root, name, 'run-*', 'grpc.md')))]

root = sys.argv[1]
before, after = side(root, 'before'), side(root, 'after')
lower_better = ('µs', 'ns/msg', 'B/msg', 'lost', 'resent', 'reconnects')
print('| row | before: median of runs [lowest, highest] | after: median of runs [lowest, highest] | after ÷ before | verdict |')
print('|---|---:|---:|---:|---|')
for key in before[0]:
    b = [r[key] for r in before if key in r]
    a = [r[key] for r in after if key in r]
    if len(b) != len(before) or len(a) != len(after):
        continue
    mb, ma = statistics.median(b), statistics.median(a)
    ratio = ma / mb if mb else float('nan')
    if min(a) > max(b) or max(a) < min(b):
        better_if_higher = not any(t in key.split(', ')[-1] for t in lower_better)
        higher = min(a) > max(b)
        verdict = 'after better, beyond the intervals' if higher == better_if_higher else 'after worse, beyond the intervals'
    else:
        verdict = 'within noise'
    fmt = lambda v: f'{v:,.2f}' if v < 100 else f'{v:,.0f}'
    print(f'| {key} | {fmt(mb)} [{fmt(min(b))}, {fmt(max(b))}] | {fmt(ma)} [{fmt(min(a))}, {fmt(max(a))}] | {ratio:.2f} | {verdict} |')

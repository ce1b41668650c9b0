#!/usr/bin/env python3
"""Issue 40's ABBA: every figure of every table in each letter's Markdown (LOOP-2.md from `loop`, LOOP-SHAPES-2.md from
`loop --shapes`, actors-runs.md from the actors children, grpc.md from `lab grpc`), before against after: the median of
the launches [lowest, highest], after ÷ before, and "beyond the intervals" only where every launch of one side lies
beyond every launch of the other.
Usage: python3 table.py DIR   (DIR holds N-before/ and N-after/ letters)."""
import glob, os, statistics, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
import markdown_tables

SKIP = ('goal', 'verdict', 'at least', 'rounds at goal', 'launches at goal', 'runs (M msg/s)', 'spread')

def rows(path, prefix):
    out = {}
    for header, cells in markdown_tables.rows(path):
        # the row's name: its cells that are not figures (and the goal's name in a goals table)
        name = ', '.join(c for h, c in zip(header, cells) if markdown_tables.number(c) is None and not h.startswith('round') and h not in ('verdict',))
        for h, c in zip(header, cells):
            v = markdown_tables.number(c)
            if v is not None and h not in SKIP and not h.startswith('round'):
                out[f'{prefix}: {name}; {h}'] = v
    return out

root = sys.argv[1]
letters = sorted(glob.glob(os.path.join(root, '[0-9]*-*')), key=lambda p: int(os.path.basename(p).split('-')[0]))
sides = {'before': [], 'after': []}
for letter in letters:
    figures = {}
    for path in sorted(glob.glob(os.path.join(letter, '*.md'))):
        figures.update(rows(path, os.path.basename(path)[:-3]))
    sides[os.path.basename(letter).split('-', 1)[1]].append(figures)

lower_better = ('µs', 'ns', 'B/msg', 'lost', 'resent', 'reconnects', 'CPU', 'p50', 'p99', 'p999', 'max', 'round trip', 'hand-off')
before, after = sides['before'], sides['after']
print(f'{len(before)} launches before, {len(after)} after; letters in order: {", ".join(os.path.basename(l) for l in letters)}')
print()
print('| figure | before: median [lowest, highest] | after: median [lowest, highest] | after ÷ before | verdict |')
print('|---|---:|---:|---:|---|')
counts = {'worse': 0, 'better': 0, 'rows': 0}
for key in before[0]:
    b = [r[key] for r in before if key in r]
    a = [r[key] for r in after if key in r]
    if len(b) != len(before) or len(a) != len(after):
        continue
    counts['rows'] += 1
    mb, ma = statistics.median(b), statistics.median(a)
    ratio = ma / mb if mb else float('nan')
    verdict = 'within noise'
    if min(a) > max(b) or max(a) < min(b):
        column = key.rsplit('; ', 1)[1]
        better_if_higher = not any(t in column for t in lower_better)
        if (min(a) > max(b)) == better_if_higher:
            verdict = 'after better, beyond the intervals'
            counts['better'] += 1
        else:
            verdict = '**after worse, beyond the intervals**'
            counts['worse'] += 1
    fmt = lambda v: f'{v:,.2f}' if abs(v) < 100 else f'{v:,.0f}'
    print(f'| {key} | {fmt(mb)} [{fmt(min(b))}, {fmt(max(b))}] | {fmt(ma)} [{fmt(min(a))}, {fmt(max(a))}] | {ratio:.2f} | {verdict} |')
print()
print(f"{counts['rows']} figures; beyond the intervals: {counts['worse']} worse, {counts['better']} better")

import json, glob, os, statistics, sys
d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
rows = {}
for f in sorted(glob.glob(os.path.join(d, '*.json')), key=lambda p: int(os.path.basename(p).split('-')[0])):
    side = os.path.basename(f).split('-')[1].split('.')[0]
    for s in json.load(open(f)):
        key = (s['Game'], 'cold' if s['Phase'] == 0 else 'steady')
        rows.setdefault(key, {'B': [], 'N': []})[side].append(s['Median'] / 1e6)
print('| game | phase | before: median [low, high] | after: median [low, high] | after ÷ before | verdict |')
print('|---|---|---:|---:|---:|---|')
for (g, ph), v in rows.items():
    b, n = v['B'], v['N']
    mb, mn = statistics.median(b), statistics.median(n)
    verdict = 'slower beyond the intervals' if max(n) < min(b) else ('faster beyond the intervals' if min(n) > max(b) else 'within')
    print(f'| {g} | {ph} | {mb:.1f} [{min(b):.1f}, {max(b):.1f}] | {mn:.1f} [{min(n):.1f}, {max(n):.1f}] | {mn/mb:.2f} | {verdict} |')
print()
print('Each launch (msg/s, M), in launch order:')
for (g, ph), v in rows.items():
    print(f'- {g}, {ph}: before ' + ', '.join(f'{x:.0f}' for x in v['B']) + '; after ' + ', '.join(f'{x:.0f}' for x in v['N']))

import json, glob, os, statistics, sys
d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
names = {'R': 'R', 'D': 'D', 'E': 'E'}
rows = {}
for f in sorted(glob.glob(os.path.join(d, '*.json')), key=lambda p: int(os.path.basename(p).split('-')[0])):
    side = os.path.basename(f).split('-')[1].split('.')[0]
    for s in json.load(open(f)):
        key = (s['Game'], 'cold' if s['Phase'] == 0 else 'steady')
        rows.setdefault(key, {}).setdefault(side, []).append(s['Median'] / 1e6)
sides = [s for s in 'RDE' if any(s in v for v in rows.values())]
def cell(x): return f'{statistics.median(x):.1f} [{min(x):.1f}, {max(x):.1f}]'
print('| game | phase | ' + ' | '.join(names[s] for s in sides) + ' | ' + ' | '.join(f'{s} ÷ R' for s in sides if s != 'R') + ' |')
print('|---|---|' + '---:|' * len(sides) + '---|' * (len(sides) - 1))
for (g, ph), v in rows.items():
    b = v.get('R', [])
    out = [cell(v[s]) if s in v else '' for s in sides]
    ratios = []
    for s in sides:
        if s == 'R' or s not in v or not b: continue
        n = v[s]
        verdict = 'slower beyond' if max(n) < min(b) else ('faster beyond' if min(n) > max(b) else 'within')
        ratios.append(f'{statistics.median(n)/statistics.median(b):.2f} ({verdict})')
    print(f'| {g} | {ph} | ' + ' | '.join(out) + ' | ' + ' | '.join(ratios) + ' |')
print()
print('Each launch (M/s), in launch order:')
for (g, ph), v in rows.items():
    print(f'- {g}, {ph}: ' + '; '.join(f'{s} ' + ', '.join(f'{x:.0f}' for x in v[s]) for s in sides if s in v))

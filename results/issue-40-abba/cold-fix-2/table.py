# python3 table.py DIR [BASE]: each game and phase, every build's median launch [lowest, highest] and its ratio to BASE
# (default B, else the first build); builds are the letters after the launch number in DIR's N-X.json file names.
import json, glob, os, statistics, sys
d = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
names = {'B': 'before (74037cc)', 'R': 'idle take fix', 'D': 'idle take fix + chain loop'}
rows, sides = {}, []
for f in sorted(glob.glob(os.path.join(d, '*.json')), key=lambda p: int(os.path.basename(p).split('-')[0])):
    side = os.path.basename(f).split('-')[1].split('.')[0]
    sides += [side] if side not in sides else []
    for s in json.load(open(f)):
        key = (s['Game'], 'cold' if s['Phase'] == 0 else 'steady')
        rows.setdefault(key, {}).setdefault(side, []).append(s['Median'] / 1e6)
base = sys.argv[2] if len(sys.argv) > 2 else ('B' if 'B' in sides else sides[0])
sides = [base] + [s for s in sides if s != base]
others = sides[1:]
def cell(x): return f'{statistics.median(x):.1f} [{min(x):.1f}, {max(x):.1f}]'
print('| game | phase | ' + ' | '.join(names.get(s, s) for s in sides) + ' | ' + ' | '.join(f'{s} ÷ {base}' for s in others) + ' |')
print('|---|---|' + '---:|' * len(sides) + '---|' * len(others))
for (g, ph), v in rows.items():
    b = v.get(base, [])
    out = [cell(v[s]) if s in v else '' for s in sides]
    ratios = []
    for s in others:
        if s not in v or not b: continue
        n = v[s]
        verdict = 'slower beyond' if max(n) < min(b) else ('faster beyond' if min(n) > max(b) else 'within')
        ratios.append(f'{statistics.median(n)/statistics.median(b):.2f} ({verdict})')
    print(f'| {g} | {ph} | ' + ' | '.join(out) + ' | ' + ' | '.join(ratios) + ' |')
print()
print('Each launch (M/s), in launch order:')
for (g, ph), v in rows.items():
    print(f'- {g}, {ph}: ' + '; '.join(f'{s} ' + ', '.join(f'{x:.0f}' for x in v[s]) for s in sides if s in v))

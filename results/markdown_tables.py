"""What the results folders' table scripts share: the figures of the pipe tables in a Markdown file."""
import re


def number(cell):
    """The figure a cell starts with ("1,234.5 [..]" gives 1234.5), or None where it starts with no figure."""
    m = re.match(r'\s*([0-9][0-9,]*(?:\.[0-9]+)?)', cell)
    return float(m.group(1).replace(',', '')) if m else None


def rows(path):
    """Every body row of every table in the file at PATH, as (its table's header cells, its cells)."""
    header = None
    for line in open(path, encoding='utf-8'):
        if not line.startswith('|'):
            header = None
            continue
        cells = [c.strip() for c in line.strip().strip('|').split('|')]
        if set(''.join(cells)) <= set('-: '):
            continue
        if header is None:
            header = cells
            continue
        yield header, cells

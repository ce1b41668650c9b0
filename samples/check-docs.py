#!/usr/bin/env python3
"""Checks the documentation against the repository; exits 1 with one line per problem.

- Every code block under a "<!-- snippet: NAME -->" line in a Markdown file is, verbatim, the region
  "#region README: NAME" or "#region package: NAME" of samples/Concurrency.Samples/Program.cs, which CI runs.
- Every relative link in README.md, results/README.md, docs/ and the packages' READMEs names a file or folder that
  exists; the packages' READMEs (shown on a package feed, away from the repository) have no relative links at all.

Run from anywhere: python3 samples/check-docs.py
"""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent
program = (root / "samples/Concurrency.Samples/Program.cs").read_text()
regions = {
    m.group(2): m.group(3)
    for m in re.finditer(r"^#region (README|package): (.+?)\n(.*?)^#endregion\n", program, re.M | re.S)
}

package_readmes = sorted(root.glob("src/*/README.md"))
pages = [root / "README.md", root / "results/README.md", *sorted((root / "docs").glob("*.md")), *package_readmes]
problems = []
for page in pages:
    text = page.read_text()
    name = page.relative_to(root)
    for m in re.finditer(r"^<!-- snippet: (.+?) -->\n```csharp\n(.*?)^```\n", text, re.M | re.S):
        if m.group(1) not in regions:
            problems.append(f"{name}: snippet '{m.group(1)}' has no region in Program.cs")
        elif m.group(2) != regions[m.group(1)]:
            problems.append(f"{name}: snippet '{m.group(1)}' differs from its region in Program.cs")
    markers = len(re.findall(r"^<!-- snippet: ", text, re.M))
    checked = len(re.findall(r"^<!-- snippet: (.+?) -->\n```csharp\n", text, re.M))
    if markers != checked:
        problems.append(f"{name}: a snippet marker is not followed by a csharp code block")
    # Links outside code: [text](target) and <img src="target">.
    prose = re.sub(r"^```.*?^```\n", "", text, flags=re.M | re.S)
    prose = re.sub(r"`[^`\n]*`", "", prose)
    for target in re.findall(r"\]\(([^)\s]+)\)", prose) + re.findall(r'src="([^"]+)"', prose):
        if re.match(r"[a-z]+:", target) or target.startswith("#"):
            continue
        if page in package_readmes:
            problems.append(f"{name}: relative link '{target}' (a package's README needs absolute links)")
            continue
        path = (page.parent / target.split("#")[0]).resolve()
        if not path.exists():
            problems.append(f"{name}: link '{target}' names nothing")

for problem in problems:
    print(problem)
print(f"{len(pages)} pages, {len(regions)} regions: {'ok' if not problems else f'{len(problems)} problems'}")
sys.exit(1 if problems else 0)

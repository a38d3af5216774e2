#!/usr/bin/env python3
"""Checks that the maps of the repository name what is there: docs/README.md links every page
of docs/ (and no page that is missing), and the README's layout block names every folder of
src/ and every sub-folder of src/serve/.
Usage: scripts/check_docs_map.py [REPO]   (exit 0: they agree; 1: each difference, one a line)
"""
import pathlib
import re
import sys

repo = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
problems = []

index = (repo / "docs" / "README.md").read_text()
linked = set(re.findall(r"\]\(([\w.-]+\.md)\)", index))
pages = {p.name for p in (repo / "docs").glob("*.md")} - {"README.md"}
for page in sorted(pages - linked):
    problems.append(f"docs/{page} is not listed in docs/README.md")
for page in sorted(linked - pages):
    problems.append(f"docs/README.md links {page}, which docs/ does not have")

readme = (repo / "README.md").read_text()
layout = readme.split("## Layout", 1)[1].split("```")[1] if "## Layout" in readme else ""
named = set(re.findall(r"^(src/\w+)/", layout, re.M))
serve_named = set(re.findall(r"^  (\w+)/", layout.split("src/serve/", 1)[1].split("\nsrc/", 1)[0], re.M)) \
    if "src/serve/" in layout else set()
for folder in sorted(p for p in (repo / "src").iterdir() if p.is_dir()):
    if f"src/{folder.name}" not in named:
        problems.append(f"src/{folder.name}/ is not in the README's layout")
for sub in sorted(p for p in (repo / "src" / "serve").iterdir() if p.is_dir()):
    if sub.name not in serve_named:
        problems.append(f"src/serve/{sub.name}/ is not in the README's layout (under src/serve/)")

for p in problems:
    print(p)
if problems:
    print(f"check_docs_map: {len(problems)} difference(s)")
    sys.exit(1)
print(f"check_docs_map: docs/README.md lists the {len(pages)} pages of docs/, the README's layout every folder of src/")

#!/usr/bin/env python3
"""Checks docs/contributing.md's layer table against the libraries' link lines.

Every folder of src/ holds one or more libraries (add_library in the folder's CMakeLists.txt);
target_link_libraries names what each links. The table in docs/contributing.md ("## Layout")
has a row per folder (or sub-folder, where a folder's libraries sit at different layers): its
libraries and the rows it may depend on (with outside libraries, which are not checked). This script fails, naming each
difference, when:
  - a folder of src/ has no row, a library is in no row (or in two), or a row names a folder
    or library that does not exist;
  - a row's "May depend on" rows differ from the rows whose libraries the row's libraries
    link (in any configuration: every target_link_libraries call counts);
  - a row depends on one that is not above it (the table is the layering: a
    library reaches only libraries listed above it, so no dependency points back up).
Usage: scripts/check_layers.py [REPO]   (exit 0: they agree; 1: the differences, one a line)
"""
import pathlib
import re
import sys

repo = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
src = repo / "src"


def cmake_calls(text, command):
    """The argument lists of every `command(...)` call in CMake `text` (comments removed)."""
    text = re.sub(r"#[^\n]*", "", text)
    for m in re.finditer(r"\b" + command + r"\s*\(", text):
        depth, i = 1, m.end()
        while depth and i < len(text):
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        yield text[m.end():i - 1].split()


folders = sorted(p.name for p in src.iterdir() if (p / "CMakeLists.txt").exists())
library_folder = {}  # ironbench_x -> the folder of src/ whose CMakeLists.txt defines it
links = {}  # ironbench_x -> the ironbench_y it links
for folder in folders:
    for path in (src / folder).rglob("CMakeLists.txt"):
        text = path.read_text()
        for args in cmake_calls(text, "add_library"):
            if args and args[0].startswith("ironbench_"):
                library_folder[args[0]] = folder
        for args in cmake_calls(text, "target_link_libraries"):
            if args and args[0].startswith("ironbench_"):
                links.setdefault(args[0], set()).update(a for a in args[1:] if a.startswith("ironbench_"))

# The table's rows: (label, its libraries, what it may depend on). A label is a folder of src/,
# or a sub-folder where a folder's libraries sit at different layers (`benchmarks/tp/`).
doc = (repo / "docs" / "contributing.md").read_text()
section = doc.split("## Layout", 1)[1].split("\n## ", 1)[0]
rows = []
for line in section.splitlines():
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) != 4 or not re.fullmatch(r"`[\w/]+/`", cells[0]):
        continue
    rows.append((cells[0].strip("`").rstrip("/"), re.findall(r"`(ironbench_\w+)`", cells[1]),
                 [d.strip() for d in re.split(r",| and ", cells[3]) if d.strip()]))

problems = []
order = {label: i for i, (label, _, _) in enumerate(rows)}
library_row = {}
for label, libraries, _ in rows:
    for lib in libraries:
        if lib not in library_folder:
            problems.append(f"the layer table's row {label}/ names {lib}, which no CMakeLists.txt of src/ defines")
        elif library_folder[lib] != label.split("/")[0]:
            problems.append(f"the layer table's row {label}/ names {lib}, which src/{library_folder[lib]}/ defines")
        elif lib in library_row:
            problems.append(f"{lib} is in two rows of the layer table: {library_row[lib]}/ and {label}/")
        else:
            library_row[lib] = label
for folder in folders:
    if not any(label.split("/")[0] == folder for label in order):
        problems.append(f"src/{folder}/ has no row in docs/contributing.md's layer table")
for lib in sorted(set(library_folder) - set(library_row)):
    problems.append(f"{lib} (src/{library_folder[lib]}/) is in no row of the layer table")
for label, libraries, may in rows:
    if label.split("/")[0] not in folders:
        problems.append(f"the layer table's row {label}/ names no folder of src/")
        continue
    linked = {library_row[dep] for lib in libraries for dep in links.get(lib, ()) if dep in library_row} - {label}
    listed = {d.rstrip("/") for d in may if d.rstrip("/") in order}
    for dep in sorted(linked - listed):
        users = sorted(lib for lib in libraries if any(library_row.get(d) == dep for d in links.get(lib, ())))
        problems.append(f"{label}/: {', '.join(users)} links {dep}/'s libraries, "
                        f"which its row's \"May depend on\" leaves out")
    for dep in sorted(listed - linked):
        problems.append(f"{label}/: its row says it may depend on {dep}/, which none of its libraries links")
    for dep in sorted(linked):
        if order[dep] > order[label]:
            problems.append(f"{label}/ depends on {dep}/, whose row is below its own: "
                            "a dependency that points back up the table")

for p in problems:
    print(p)
if problems:
    print(f"check_layers: {len(problems)} difference(s) between docs/contributing.md and the link lines")
    sys.exit(1)
print(f"check_layers: the layer table's {len(rows)} rows match the link lines of {len(library_folder)} libraries")

#!/usr/bin/env bash
# The built wheel works on its own: install it into a fresh virtual environment and, from an empty
# folder, run the command line and import the library. Usage: scripts/check_wheel.sh [python]
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
py=${1:-python3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

"$py" -m pip wheel --quiet --no-deps --wheel-dir "$work/dist" "$repo" 2>&1 | grep -v "is ignored" || true
# the chip renderer's folder and the manifest that declares it to Streamlit travel with the package
"$py" - "$work"/dist/citation_core-*.whl <<'PY'
import sys, zipfile
names = set(zipfile.ZipFile(sys.argv[1]).namelist())
missing = {"citation_core/pyproject.toml", "citation_core/components/chips/chips.css",
           *(f"citation_core/components/chips/{m}" for m in ("chips.js", "chip_model.js", "citation_parser.js"))} - names
assert not missing, f"the wheel lacks {sorted(missing)}"
PY
"$py" -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet "$work"/dist/citation_core-*.whl 2>&1 | grep -v "is ignored" || true
cli="$work/venv/bin/citation-studio"
mkdir "$work/empty" && cd "$work/empty"

cat > sources.json <<'JSON'
{"lecture": {"pages": [{"uuid": "p1", "lecture_unit_id": 7, "page_number": 1,
  "text": "Merge sort\nMerge sort splits the list into two halves and merges the sorted halves."}]},
 "faqs": [{"id": 3, "question": "Is the exam open book?", "answer": "The final exam is open book."}]}
JSON
printf 'Merge sort splits the list into two halves. The final exam is open book.\n' > answer.md

"$cli" cite --sources sources.json --answer answer.md | grep -q '\[cite:L:7:1:::' 
"$cli" cite --sources sources.json --answer answer.md --json | grep -q '"type": "F"'
"$cli" deck "$repo/sample_decks/decks/merge_sort.pdf" --json | grep -q '"display_source"'
printf 'See [cite:L:7:1:::Merge:Splits the list.:va1].' | "$cli" parse --pattern stored | grep -q '"version": "va1"'
"$cli" ask --course "$repo/sample_decks" --unit 101 --page 3 --question "How does merging work?" --json \
  | grep -q '"citations"'
"$work/venv/bin/python" -c "from citation_core import cite, CitationPipeline, Sources, CitationResult, errors"
"$work/venv/bin/python" - <<'PY'
import sys
import citation_core.cli.main  # noqa: F401
loaded = sorted(m for m in ("streamlit", "lingua", "pypdfium2", "openai") if m in sys.modules)
assert not loaded, f"the library loaded {loaded} on import"
PY
if "$work/venv/bin/python" -c "import streamlit" 2>/dev/null; then
  echo "the wheel's own dependencies pull in streamlit" >&2; exit 1
fi
echo "wheel check: cite, deck, parse, ask and the public import work from an empty folder"

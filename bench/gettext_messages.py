#!/usr/bin/env python3
"""Pasted messages that a Python program marks for translation (`_("...")`): found?

usage: PYTHONPATH=. python3 bench/gettext_messages.py HOME ROOT [ROOT ...]

Cases come from a text scan independent of Cruxe: each `_("...")` literal of 15-160 characters
and 3+ words without holes or quotes inside, in a source file (tests, docs and examples left
out); at most ~150 per ROOT, every k-th in sorted order. Each is pasted as `Error: <message>`
into `search_code` (limit 5) on an index of ROOT in HOME; a result is right when it spans a line
holding the literal. Corpora used: click 8.1.7 (PyPI sdist) and py-5k (Django + Salt).
"""
import re,sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from cruxe.index import run_index
from cruxe.tools import Server
from cruxe.model import is_non_source_path
PAT=re.compile(r'''\b_\(\s*(["'])([^"'\\{}%\n]{15,160})\1\s*\)''')
def main():
    home=Path(sys.argv[1]); n=a1=a5=0
    for root in map(Path, sys.argv[2:]):
        run_index(root, home=home); s=Server(root, home=home)
        cases={}
        for f in sorted(root.rglob('*.py')):
            rel=str(f.relative_to(root))
            if is_non_source_path(rel): continue
            for i,l in enumerate(f.read_text(errors='replace').splitlines(),1):
                for m in PAT.finditer(l):
                    msg=m.group(2).strip()
                    if len(msg.split())>=3: cases.setdefault(msg,[]).append((rel,i))
        for msg,sites in sorted(cases.items())[:: max(1,len(cases)//150)]:
            pl,_=s.call_tool('search_code',{'query':'Error: '+msg,'limit':5})
            rs=[r for r in pl.get('results') or [] if r.get('path')]
            ok=[any(r['path']==p and int(r['line_start'])<=ln<=int(r.get('line_end') or r['line_start']) for p,ln in sites) for r in rs]
            n+=1; a1+=bool(ok[:1] and ok[0]); a5+=any(ok)
    print(f"n={n} @1 {a1/n:.3f} @5 {a5/n:.3f}")

if __name__ == '__main__':
    main()

#!/usr/bin/env python3
"""JavaScript `Obj.name = function` definitions at a file's top level: does locate find them?

usage: PYTHONPATH=. python3 bench/js_member_methods.py HOME ROOT [ROOT ...]

Cases come from a text scan independent of Cruxe: every line of a `.js` file (outside
node_modules) that starts with `Obj.name = function` / `= async function`, Obj not `exports`,
`module`, `this` or a global. ROOT is indexed into HOME, then `locate_symbol(name, limit=10)`;
a case is found when a result's path is the file and its range holds the line. Prints top-1 and
top-10 (the corpora used: npm packs of express 4.19.2, ejs 3.1.10, connect 3.7.0, superagent
8.1.2, mocha 10.4.0, fetched with `npm pack`).
"""
import re,sys
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from cruxe.index import run_index
from cruxe.tools import Server
PAT=re.compile(r"^([A-Za-z_$][\w$]*)\.([A-Za-z_$][\w$]*) = (?:async )?function\b")
home=Path(sys.argv[1]); tot=t1=t10=0
for root in map(Path, sys.argv[2:]):
    run_index(root, home=home)
    s=Server(root, home=home)
    for f in sorted(root.rglob('*.js')):
        if 'node_modules' in f.parts: continue
        rel=str(f.relative_to(root))
        for i,l in enumerate(f.read_text(errors='replace').splitlines(),1):
            m=PAT.match(l)
            if not m or m.group(1) in ('exports','module','this','window','global','globalThis','self','process'): continue
            pl,_=s.call_tool('locate_symbol',{'name':m.group(2),'limit':10})
            rs=pl.get('results') or []
            ok=[r['path']==rel and r['line_start']<=i<=r.get('line_end',r['line_start']) for r in rs]
            tot+=1; t1+=bool(ok[:1] and ok[0]); t10+=any(ok)
print(f"n={tot} top1 {t1/tot:.3f} top10 {t10/tot:.3f}")

#!/usr/bin/env python3
"""Pasted messages whose text lives in a capitalised constant that an emitting call uses.

usage: PYTHONPATH=. python3 bench/message_constants.py HOME ROOT [ROOT ...]   (SHOW=1: each case)

Cases are found by text, independently of Cruxe: a constant named in capitals given a plain
string literal of 3+ words without holes (`const CONTEXT_MISSING_ERROR: &str = "there is no
reactor running, ..."`, `MSG = "..."`) in a source file, whose name appears on a line with an
emitting call (`panic!`, `raise `, `throw `, `.expect(`, `Error(`, `errors.New`, `Errorf`,
`bail!`). The message is pasted as its runtime prints it (Rust panic wrapper, `RuntimeError: `,
`panic: `, `Error: `) into `search_code` (limit 5) on an index of ROOT in HOME (index it first);
a result is right when it spans the constant's line or a line that emits it.
"""
import re,sys,os
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from cruxe.tools import Server
from cruxe.model import is_non_source_path
EXT={'.rs':'rust','.py':'python','.go':'go','.ts':'typescript'}
CONST=re.compile(r'^[ \t]*(?:(?:pub(?:\([\w: ]*\))?|export|const|static)\s+)*([A-Z][A-Z0-9_]*[A-Z0-9])\s*(?::[^=\n]{1,80})?=\s*\n?\s*"([^"\\\n]{12,200})"', re.M)
EMIT=re.compile(r'panic!|raise |throw |\.expect\(|Error\(|errors\.New|Errorf|bail!|panic\(')
def wrap(lang,msg):
    return {"rust":f"thread 'main' panicked at '{msg}', src/main.rs:5:5","python":f"RuntimeError: {msg}","go":f"panic: {msg}","typescript":f"Error: {msg}"}[lang]
out=[]
for root in sys.argv[2:]:
    root=Path(root); files=[f for f in root.rglob('*') if f.suffix in EXT and f.is_file() and not is_non_source_path(str(f.relative_to(root)))]
    texts={f:f.read_text(errors='replace') for f in files}
    for f,t in texts.items():
        for m in CONST.finditer(t):
            name,msg=m.group(1),m.group(2)
            if len(msg.split())<3 or '{' in msg or '%' in msg: continue
            uses=[(g,i+1) for g,tt in texts.items() for i,l in enumerate(tt.splitlines()) if re.search(r'\b'+name+r'\b',l) and EMIT.search(l)]
            if not uses: continue
            line=t[:m.start(1)].count('\n')+1
            out.append((root,EXT[f.suffix],msg,[(str(f.relative_to(root)),line)]+[(str(g.relative_to(root)),i) for g,i in uses]))
home=Path(sys.argv[1]); a1=a5=0; servers={}
for root,lang,msg,truth in out:
    s=servers.setdefault(root,Server(root,home=home))
    pl,_=s.call_tool('search_code',{'query':wrap(lang,msg),'limit':5})
    rs=[r for r in pl.get('results') or [] if r.get('path')]
    good=[any(r['path']==p and int(r['line_start'])<=l<=int(r.get('line_end') or r['line_start']) for p,l in truth) for r in rs]
    a1+=bool(good[:1] and good[0]); a5+=any(good)
    if os.environ.get('SHOW'): print(bool(good[:1] and good[0]), any(good), root.name, msg[:60])
n=len(out); print(f"n={n} @1 {a1/max(n,1):.2f} @5 {a5/max(n,1):.2f}")

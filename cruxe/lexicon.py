"""A software-English lexicon: the words a question uses and the words code uses for them.

A question about code says "address", "secret", "equal", "digest"; the code says `addr`,
`pwd`, `cmp`, `hash`. English inflection (`codetokens.word_variants`) cannot bridge that,
so natural-language queries also search, more weakly, the words this lexicon relates to
theirs. Two tables, written from general knowledge of how code is named (every area: files,
network, text, time, crypto, databases, concurrency, errors, parsing, UI, build), never from
what any benchmark's answers are called:

- SPELLINGS: each line is one word and the shortenings code spells it with
  (`address addr adr`): the same meaning, so the stronger relation;
- RELATED: each line is a group of words programmers use for one idea (`remove delete drop
  strip erase`): close, not the same, so weaker.

Lines are symmetric (any word of a line brings the others) and one hop only (`res` is in the
lines of `result`, `response` and `resource`, but `result` never brings `response`). Words are
lower-case index terms: single words, as `codetokens` splits identifiers. A query word is
looked up as written and through its stems (`parsing` finds the line of `parse`).
"""
from __future__ import annotations

from functools import lru_cache

from . import codetokens as ct

MIN_TERM_LEN = 2  # one-letter names (`i`, `s`, `b`) are everywhere and mean nothing alone

# The function words of English prose: a doc comment says them as the question does ("reports
# whether the two strings are equal"), so a question's doc-field query keeps them, but as
# names they pick unrelated symbols (`under`, `such`, `other`): the planner leaves them out of
# the name fields' query.
FUNCTION_WORDS = frozenset("""
about again against also am among any anything because both but doing during either else even
ever every few further here however itself just many may might much must neither nor once onto ought
own per rather several shall she since some something somewhere such thing things though through
thus too two under until upon us very via way ways whatever whenever whereas wherever whether
while whom whose within without yet
""".split())

# One word per line, then the spellings code uses for it.
SPELLINGS = """
absolute abs
accumulate accumulator acc accum
acknowledge acknowledgement ack
action act
activate activation act
address addr adr
administrator admin adm
advance adv
aggregate agg
algorithm algo alg
alias aka
allocate allocation allocator alloc
alphabet alpha
alternative alternate alt
amount amt
anchor anc
annotation anno annot
anonymous anon
append app
application app apps
approximate approx
architecture arch
argument arg args argv argc
arithmetic arith
array arr ary
ascending asc
assign assignment asgn
asynchronous async
attachment attach
attribute attr attrs attrib
audio aud
authenticate authentication auth authn
authorize authorization auth authz
automatic auto
auxiliary aux
available avail
average avg
background bg
backward back bwd
balance bal
binary bin
bitmap bmp
block blk
boolean bool
boundary bound bnd
buffer buf buff bufs
button btn
calculate calculation calc
calendar cal
callback cb callbacks
cancel cncl
candidate cand
capability cap caps
capacity cap
capture capt
category cat
certificate cert certs
channel chan ch
character char chr chars
check chk
checksum cksum csum
child chld
cipher ciph
class cls klass clazz
clear clr
click clk
clock clk
collection coll
column col cols
command cmd cmds
comment cmt
common comm
communication comm comms
compare comparison cmp
comparator cmp
compatibility compat
compile compilation comp
component comp
compress compression comp
concatenate concatenation concat
condition cond
config configuration configure cfg conf
connection connect conn conns
constant const
constructor ctor
container cntr
context ctx
continue cont
control ctrl ctl
conversion convert conv
coordinate coord coords
copy cp
count cnt
counter ctr
credential cred creds
current cur curr
cursor cur
database db
datetime dt
debug dbg
decimal dec
declaration declare decl
decode dec
decrement decr dec
default def dflt
define definition def defn
delete del
delimiter delim
dependency dep deps
descending desc
description describe desc
descriptor desc fd
destination dest dst
destroy destructor dtor
development dev
device dev
diagnostic diag
dictionary dict
difference diff
digest dgst
dimension dim dims
directory dir dirs
disable dis
display disp
distance dist
distribution dist
divide div
division div
document doc docs
documentation doc docs
double dbl
duration dur
dynamic dyn
element elem elt elems
encode enc
encrypt encryption enc
entry ent
environment env
equal equals eq
error err errs
escape esc
evaluate eval
event evt ev
example ex
exception exc ex
exchange xchg
execute execution exec
exit ex
exponent exp
export exp
expression expr
extend ext
extension ext
external ext extern
field fld
figure fig
filename fname
filesystem fs
filter flt
flag flg
foreign fk
format fmt
forward fwd
fraction frac
frame frm
frequency freq
function fn func fun funcs
generate generator gen
global glob gbl
graph gr
greater gt gte ge
group grp
handle hdl hnd
handler hdlr
hash hsh
header hdr hdrs
height hgt
hexadecimal hex
history hist
horizontal horiz
hour hr
identifier ident id ids
image img
implementation implement impl
include inc incl
increment incr inc
index idx ix
information info
initialize initialise initialization init
input inp
insert ins
instance inst
instruction instr insn
integer int
interface iface intf
intermediate interm
interrupt intr irq
iterator iterate iteration iter
jump jmp
keyboard kbd
language lang
latitude lat
length len
less lt lte le
level lvl
library lib libs
line ln
link lnk
list lst
literal lit
local loc
location loc
longitude lon lng
lookup lkup
manager mgr
mapping map
matrix mat
maximum max
memory mem
message msg msgs
metadata meta
middleware mw
millisecond ms msec millis
microsecond usec micros
nanosecond ns nsec nanos
minimum min
minute min mins
miscellaneous misc
modify modification mod
module mod mods
multiply multiplication mul mult
mutable mut
mutex mtx mu
namespace ns
navigation nav
negative neg
network net
next nxt
notequal ne neq
number num nr nb
object obj objs
offset off ofs
operand opnd
operation op ops
operator op
option opt opts
optional opt
original orig
output out
package pkg pkgs
parameter param params parm
parent par
password pwd passwd pw pass
pattern pat
performance perf
permission perm perms
pointer ptr
position pos
positive pos
previous prev
primary pri
priority prio pri
private priv
privilege priv
process proc procs
processor proc cpu
program prog
property prop props
protocol proto
public pub
quantity qty
query qry
random rand rnd
range rng
receive recv rcv
receiver recv rcvr
record rec
rectangle rect
recursive rec
reference ref refs
register reg
registry reg
regular regexp regex
relative rel
remove rm
repeat rep
replace repl
reply rep
repository repo
request req reqs
require required req
reserve rsv
resource res rsrc
response resp res rsp
result res
return ret
reverse rev
revision rev
sample smpl
second sec secs
section sect
segment seg
select sel
sequence seq
server srv svr
service svc srv
session sess
signal sig
signature sig
size sz
socket sock
source src
specification spec
standard std
statement stmt
statistics stats stat
status stat
string str
structure struct
subscribe sub
subtract sub
synchronize synchronous sync
system sys
table tbl
target tgt
template tmpl tpl
temporary tmp temp
terminal term tty
text txt
threshold thresh
timestamp ts
token tok
total tot
transaction tx txn
transform xform
transmit tx
receive rx
unsigned uns
update upd
user usr
utility util utils
validate validation val
value val vals
variable var vars
vector vec
version ver vers
vertical vert
window win wnd
word wd
write wr
"""

# Groups of words programmers use for one idea.
RELATED = """
remove delete drop strip erase discard purge evict unlink prune
create make new build construct spawn instantiate
insert add append push put
get fetch retrieve obtain lookup load
set assign store put
find search lookup locate seek
compare equal equals match same identical
hash digest checksum fingerprint
url link uri href address endpoint
check validate verify ensure
start begin launch boot
stop end finish halt terminate shutdown
error failure fault exception problem
fail failure error
convert transform translate cast coerce
parse decode unmarshal deserialize scan tokenize
serialize encode marshal dump stringify
format render pretty print
split divide separate partition
join concat concatenate merge combine
copy clone duplicate replicate
move rename relocate transfer
size length len count
limit maximum max cap bound threshold
minimum min floor
wait sleep block pause delay
timeout deadline expire expiry ttl
retry repeat reattempt backoff attempt
lock mutex latch guard acquire
unlock release
thread goroutine worker coroutine fiber
concurrent parallel async
queue buffer channel pipe stream
send emit post publish transmit dispatch
receive recv accept consume
listen bind serve accept
connect dial open attach
disconnect close detach hangup
cache memoize memo
password secret credential passphrase
token credential bearer jwt
user account principal
permission privilege access grant role acl
encrypt cipher seal encipher
decrypt decipher unseal
sign signature hmac mac
random rand entropy nonce salt seed
config configuration settings options preferences setup
option flag switch setting
argument parameter param arg
return result output
path filename pathname location route
directory folder dir
file document blob
temporary tmp temp scratch ephemeral
environment env
log logger logging journal audit
debug trace inspect diagnose
warning warn caution
time clock timestamp instant
date day calendar
duration interval period elapsed
timezone zone tz locale
schedule cron timer ticker periodic
now current today
compress zip gzip deflate pack compact
decompress unzip inflate gunzip unpack extract
archive tar zip bundle
image picture bitmap icon
color colour rgb hue
dimension width height
draw paint render
window view pane frame
widget control component
click press tap
mouse pointer cursor
keyboard key keystroke
screen display monitor
font typeface glyph
text string characters
character char rune letter glyph
whitespace space blank indent padding
trim strip chomp
upper uppercase capitalize capital
lower lowercase
escape quote sanitize
unescape unquote
substring slice substr
prefix leading starts
suffix trailing ends
replace substitute swap
reverse invert flip
sort order arrange
filter select predicate
map transform apply
reduce fold accumulate aggregate
iterate loop traverse walk visit each foreach
tree node branch leaf root
graph edge vertex node
parent ancestor enclosing outer owner
child children descendant nested inner
sibling neighbor neighbour adjacent
list array vector slice sequence collection
map dictionary dict hashmap mapping
set unique distinct
stack push pop lifo
queue enqueue dequeue fifo deque
heap priority
index position offset
count tally number
sum total accumulate
average mean median
number numeric digit integer
float double real decimal
boolean bool truth
null nil none missing absent
empty blank zero void
default fallback initial preset
overflow wrap exceed
round truncate ceil
absolute magnitude
power exponent pow
square sqrt root
largest biggest greatest maximum
smallest least minimum
request query call
response reply answer
header headers metadata
body payload content
cookie session
redirect forward redirection
proxy gateway tunnel relay
host hostname server machine domain
port socket endpoint
address addr ip host
network net socket
http https web
server serve daemon service listener
client consumer caller
api endpoint interface
route router dispatch
handler callback hook listener observer
event signal notification
notify alert inform
message packet frame datagram
protocol scheme
dns resolve resolver nameserver
mail email smtp
database db datastore storage
row record entry tuple
column field attribute property
sql select statement
transaction commit atomic rollback
commit save persist flush
rollback revert undo
migrate migration schema upgrade
key primary identifier
foreign relation reference
model entity record
field attribute property member
method function procedure routine
class type struct
interface protocol trait abstract contract
instance object
inherit extend subclass derive
override overwrite shadow
module package namespace library crate
import require include
export expose publish
private internal hidden
constant immutable final
static shared global
generic template parameterized
closure lambda anonymous
iterator cursor generator enumerator
generator yield producer
pointer reference address
memory heap allocation
allocate reserve malloc grow
free release dealloc deallocate dispose destroy
garbage collect sweep reclaim
chunk block piece fragment segment
read load input
write store output save dump
flush sync drain
close shutdown finalize dispose
exit quit terminate halt
process subprocess job task
command shell exec execute invoke
execute run invoke perform call
signal interrupt kill trap
pipe stdout stdin stderr stream
terminal tty console shell
grammar syntax rule production
token lexeme
expression formula
statement instruction
compile compiler build
build make compile assemble
version revision release semver
dependency requirement
plugin extension addon
permission mode chmod
owner chown uid gid
link symlink hardlink shortcut
mount volume disk drive partition
exist exists present
valid correct legal wellformed
invalid bad illegal malformed corrupt wrong
unique distinct dedup deduplicate
duplicate copy clone repeated
match regexp regex pattern glob wildcard
encoding charset codec
unicode utf rune codepoint
binary bytes octets
json serialize marshal
xml markup html
csv delimited comma tabular
yaml yml toml ini
template layout render
expire stale evict invalidate
invalidate purge evict
refresh renew reload rotate
update modify change edit alter patch mutate
patch diff delta
diff difference delta
merge combine union
conflict clash collision
progress percent
status state condition health
health liveness readiness alive heartbeat
heartbeat keepalive ping
metric measure gauge counter statistic
monitor watch observe track poll
middleware interceptor wrapper decorator
wrapper adapter wrap facade shim
factory builder creator constructor maker provider
singleton instance global
registry register catalog
register enroll subscribe
unregister deregister unsubscribe
subscribe observe listen watch
publish emit broadcast announce
dispatch route forward deliver
schedule enqueue defer
defer postpone delay
cancel abort interrupt revoke
abort panic crash fatal
raise throw
catch handle recover rescue except
restore reset recover revert
reset clear reinitialize restart
restart reboot reload
clean cleanup tidy purge
sanitize clean escape scrub normalize
normalize canonicalize canonical standardize
resolve lookup determine
contains has includes holds
exclude ignore skip omit
allow permit whitelist allowlist
deny reject forbid refuse blacklist blocklist
accept approve
enable activate
disable deactivate
visible shown display
hidden hide invisible
show display print render
mask hide redact obscure
secret private confidential sensitive
login signin authenticate logon
logout signout logoff
admin superuser root administrator
active enabled live running
idle inactive unused
ready prepared available
available free vacant spare
complete done finished
partial incomplete
pending waiting queued
begin start initiate
first initial head front
last final tail
previous prev prior
next following subsequent
top upper above
bottom lower below
section part region block
region area zone span
range interval span extent bounds
boundary bound border edge
position offset location coordinate
line row
word term
page paginate pagination
batch bulk chunk
group cluster category bucket
category kind type
tag label mark annotation
label caption title
title heading caption
description summary detail
comment remark note annotation
help usage manual
example sample demo
backup snapshot archive
snapshot checkpoint savepoint
mode setting option
style css theme
resize scale zoom stretch
crop trim clip cut
truncate shorten cut
pad padding fill align
indent indentation tab
bracket paren brace
separator delimiter sep delim
newline linebreak eol crlf
locale language translation
translate localize
price cost amount fee
payment charge bill invoice
phone telephone mobile
crypto cryptography cipher
certificate cert x509 tls ssl
tls ssl secure
verify check validate
semaphore permit
atomic cas
deadlock livelock starvation
spawn fork launch
wait await join
future promise deferred
executor runner scheduler
pool workers executor
context cancellation deadline
unexpected unknown unrecognized unsupported
unsupported unimplemented
deprecated obsolete legacy
lexer scanner tokenizer
ast syntax
literal constant value
install setup deploy
deploy release publish ship
platform os arch system
feature capability
script shell bash
descriptor fd handle
filesystem fs disk storage
extension suffix
basename filename
stat metadata info
walk traverse recursive
seek offset
eof end
socket conn connection
tcp udp ip
upload send post
download fetch retrieve
websocket ws
mime media content
hour minute second
millisecond milliseconds
epoch unix timestamp
elapsed since ago
timer ticker alarm
expire expiry expiration lapse ttl
"""


def _groups(table: str) -> list[tuple[str, ...]]:
    out = []
    for line in table.strip().splitlines():
        words = tuple(dict.fromkeys(w for w in line.lower().split() if len(w) >= MIN_TERM_LEN))
        if len(words) >= 2:
            out.append(words)
    return out


def _index(table: str) -> dict[str, tuple[str, ...]]:
    """word -> the other words of every line holding it, in line order, without repeats."""
    found: dict[str, dict[str, None]] = {}
    for words in _groups(table):
        for w in words:
            bucket = found.setdefault(w, {})
            for other in words:
                if other != w:
                    bucket.setdefault(other, None)
    return {w: tuple(others) for w, others in found.items()}


_SPELLINGS = _index(SPELLINGS)
_RELATED = _index(RELATED)


@lru_cache(maxsize=4096)
def expand(term: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(other spellings, related words) of a lower-case query term: the lines holding the term
    as written, else those holding one of its stems (`connections` -> connection -> conn). The
    term itself and its stems are never in the answer (inflection is `word_variants`' job)."""
    keys = [term]
    if term not in _SPELLINGS and term not in _RELATED:
        keys = [s for s in ct.word_stems(term) if s in _SPELLINGS or s in _RELATED]
    own = {term, *keys}
    spellings = _collect(_SPELLINGS, keys, own)
    related = _collect(_RELATED, keys, own | set(spellings))
    return spellings, related


def _collect(index: dict[str, tuple[str, ...]], keys: list[str], skip: set[str]) -> tuple[str, ...]:
    out: dict[str, None] = {}
    for k in keys:
        for w in index.get(k, ()):
            if w not in skip:
                out.setdefault(w, None)
    return tuple(out)


def words() -> frozenset[str]:
    """Every word the lexicon knows (for tests and the docs' counts)."""
    return frozenset(_SPELLINGS) | frozenset(_RELATED)

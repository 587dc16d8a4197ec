"""Concept questions for the holdout corpora (corpora.HOLDOUT), written the way concepts.py's
were: by reading each function, in words that use none of its identifiers, before Cruxe was run
on them (and not changed after). `also` lists equally correct alternatives (path, name, scope)."""
from __future__ import annotations

HOLDOUT_CONCEPTS: list[dict] = [
    # ---- py-std: stdlib packages and modules
    {"corpus": "py-std", "path": "logging/handlers.py", "name": "shouldRollover", "scope": "RotatingFileHandler",
     "question": "decide whether writing the next log record would push the current log file past its maximum size in bytes"},
    {"corpus": "py-std", "path": "urllib/request.py", "name": "proxy_bypass_environment", "scope": "",
     "question": "check whether a host matches the comma-separated domain suffixes that exempt it from going through "
                 "the configured web intermediary"},
    {"corpus": "py-std", "path": "email/generator.py", "name": "_make_boundary", "scope": "Generator",
     "question": "pick a random separator string for a multipart message that does not appear in the text of its parts"},
    {"corpus": "py-std", "path": "subprocess.py", "name": "list2cmdline", "scope": "",
     "question": "join a list of arguments into one command line, quoting spaces and escaping backslashes and double "
                 "quotes the way the Microsoft C runtime parses them"},
    {"corpus": "py-std", "path": "urllib/parse.py", "name": "urljoin", "scope": "",
     "question": "resolve a relative link against the address of the page it was found on, removing dot segments"},
    {"corpus": "py-std", "path": "zipfile.py", "name": "_EndRecData", "scope": "",
     "question": "locate the end-of-central-directory record of an archive by searching backwards from the end of the "
                 "file past a trailing comment"},
    {"corpus": "py-std", "path": "asyncio/tasks.py", "name": "wait_for", "scope": "",
     "question": "await a coroutine but cancel it and raise a timeout error if it has not finished within a given "
                 "number of seconds"},
    # ---- go-hold: Go 1.19 std packages outside go-5k
    {"corpus": "go-hold", "path": "image/png/paeth.go", "name": "paeth", "scope": "png",
     "question": "predict a pixel byte from its left, upper and upper-left neighbours by choosing the one closest to "
                 "their linear estimate"},
    {"corpus": "go-hold", "path": "container/heap/heap.go", "name": "Fix", "scope": "heap",
     "question": "restore the priority queue ordering after the value at a given position has changed"},
    {"corpus": "go-hold", "path": "math/hypot.go", "name": "hypot", "scope": "math",
     "question": "square root of the sum of two squares computed without overflow or underflow of the intermediate "
                 "products",
     "also": [("math/hypot.go", "Hypot", "math")]},
    {"corpus": "go-hold", "path": "crypto/x509/verify.go", "name": "VerifyHostname", "scope": "x509.Certificate",
     "question": "check that a server certificate is valid for a given host name, allowing a wildcard in the "
                 "leftmost label",
     "also": [("crypto/x509/verify.go", "matchHostnames", "x509")]},
    {"corpus": "go-hold", "path": "sync/once.go", "name": "Do", "scope": "sync.Once",
     "question": "run an initialization function exactly one time even when many goroutines call it at once",
     "also": [("sync/once.go", "doSlow", "sync.Once")]},
    {"corpus": "go-hold", "path": "unicode/utf8/utf8.go", "name": "DecodeLastRuneInString", "scope": "utf8",
     "question": "decode the final multi-byte character at the end of a string by stepping backwards to its first byte",
     "also": [("unicode/utf8/utf8.go", "DecodeLastRune", "utf8")]},
    # ---- rs-hold: crates of the Debian cargo registry
    {"corpus": "rs-hold", "path": "petgraph/src/algo/dijkstra.rs", "name": "dijkstra", "scope": "",
     "question": "compute the cheapest path cost from a start node to every reachable node of a graph with "
                 "non-negative edge weights"},
    {"corpus": "rs-hold", "path": "petgraph/src/algo/mod.rs", "name": "toposort", "scope": "",
     "question": "order the nodes of a directed graph so that every edge points forward, reporting a cycle when there "
                 "is one"},
    {"corpus": "rs-hold", "path": "serde/src/private/size_hint.rs", "name": "cautious", "scope": "",
     "question": "cap the number of elements to preallocate when the length comes from untrusted input, so a "
                 "malicious length cannot exhaust memory"},
    {"corpus": "rs-hold", "path": "tokio/src/time/sleep.rs", "name": "sleep", "scope": "",
     "question": "pause the current asynchronous task for a duration without blocking the worker thread"},
    {"corpus": "rs-hold", "path": "regex-syntax/src/hir/interval.rs", "name": "canonicalize", "scope": "IntervalSet",
     "question": "sort a set of character ranges and merge any that overlap or are adjacent"},
    {"corpus": "rs-hold", "path": "tokio/src/sync/mpsc/bounded.rs", "name": "channel", "scope": "",
     "question": "create a queue between tasks with a limited capacity so that senders wait when it is full, "
                 "returning the sending and receiving halves"},
    # ---- ts-hold: effect
    {"corpus": "ts-hold", "path": "effect/src/Schedule.ts", "name": "jittered", "scope": "",
     "question": "add random variation to each wait between retries, scaling it by up to twenty percent either way"},
    {"corpus": "ts-hold", "path": "effect/src/Schedule.ts", "name": "fibonacci", "scope": "",
     "question": "a repetition policy whose delays grow like the sequence where each number is the sum of the two "
                 "before it"},
    {"corpus": "ts-hold", "path": "effect/src/cli/internal/auto-suggest.ts", "name": "levenshtein", "scope": "",
     "question": "count the insertions, deletions and substitutions needed to turn one word into another, to propose "
                 "the command a user probably meant",
     "also": [("effect/src/cli/internal/auto-suggest.ts", "suggest", "")]},
    {"corpus": "ts-hold", "path": "effect/src/Array.ts", "name": "dedupe", "scope": "",
     "question": "remove repeated elements from a list, keeping the first occurrence of each",
     "also": [("effect/src/Array.ts", "dedupeWith", ""), ("effect/src/Chunk.ts", "dedupe", "")]},
    {"corpus": "ts-hold", "path": "effect/src/Duration.ts", "name": "fromInputUnsafe", "scope": "",
     "question": "convert a length of time given as a number of milliseconds, a big integer of nanoseconds or text "
                 "such as five minutes into a time span value, throwing when it cannot"},
]

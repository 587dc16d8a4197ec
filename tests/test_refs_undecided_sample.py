"""bench/refs/undecided_sample.py: the sample of undecided sites can be drawn again, and the
precision estimate combines the run's counts with the audited share as its docstring says."""
from __future__ import annotations

import json
import random

import pytest

from support.benches import BENCH, load

mod = load(BENCH / "refs" / "undecided_sample.py")


def _sites(n: int) -> list[dict]:
    return [{"site": f"pkg/m{i % 7}.py:{i}", "symbol": f"pkg.C.f{i % 5}", "definition": f"pkg/c.py:{i % 5}",
             "text": f"x.f{i % 5}()", "occurrences": 1, "jedi": []} for i in range(n)]


def test_sample_is_the_same_whatever_the_listing_order():
    sites = _sites(300)
    shuffled = sites[:]
    random.Random(3).shuffle(shuffled)
    first = mod.sample(sites, 80, 17)
    assert first == mod.sample(shuffled, 80, 17)
    assert len(first) == 80 and len({(r["site"], r["symbol"]) for r in first}) == 80
    assert first != mod.sample(sites, 80, 18)
    assert set(first[0]) == {"site", "symbol", "definition", "text"}


def test_wilson_interval():
    lo, hi = mod.wilson(77, 80)
    assert lo == pytest.approx(0.8955, abs=1e-4) and hi == pytest.approx(0.9872, abs=1e-4)
    assert mod.wilson(0, 10)[0] == 0.0 and mod.wilson(10, 10)[1] == pytest.approx(1.0)


def test_estimate_counts_unknowable_as_wrong_only_when_pessimistic():
    overall = {"listed_sites": 1000, "jedi_confirmed": 20, "jedi_other": 5, "jedi_undecided": 100}
    got = mod.estimate(overall, ["right"] * 6 + ["wrong"] * 2 + ["unknowable"] * 2)
    assert got["confirmed_by_scip_or_jedi"] == 1000 - 125 + 20
    assert got["precision_lower_bound"] == 0.895
    assert got["decided"]["right_share"] == 0.75 and got["decided"]["precision"] == 0.97
    assert got["pessimistic"]["right_share"] == 0.6 and got["pessimistic"]["precision"] == 0.955


def test_command_line_round_trip(tmp_path, capsys):
    run = tmp_path / "run.json"
    overall = {"listed_sites": 50, "jedi_confirmed": 1, "jedi_other": 0, "jedi_undecided": 30}
    run.write_text(json.dumps({"by_kind": {"all": overall}, "jedi_undecided": _sites(30)}))
    assert mod.main(["sample", str(run), "--n", "4"]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    audit = tmp_path / "audit.jsonl"
    audit.write_text("".join(json.dumps({**r, "verdict": "right"}) + "\n" for r in rows))
    assert mod.main(["estimate", str(run), str(audit)]) == 0
    assert json.loads(capsys.readouterr().out)["decided"]["precision"] == 1.0
    audit.write_text(json.dumps({**rows[0], "verdict": "maybe"}) + "\n")
    assert mod.main(["estimate", str(run), str(audit)]) == 2


def test_self_attr_lists_a_wrappers_attribute_linked_to_its_own_method():
    source = (
        "class Base:\n"
        "    def commit(self):\n"
        "        pass\n"
        "\n"
        "\n"
        "class Wrapper(mod.Base):\n"
        "    def _commit(self):\n"
        "        return self.connection.commit()\n"
        "\n"
        "    def other(self, x):\n"
        "        return x.commit()\n"
        "\n"
        "\n"
        "def free(self):\n"
        "    return self.connection.commit()\n"
    )
    def rec(line: int, text: str) -> dict:
        return {"site": f"w.py:{line}", "symbol": "w.Base.commit", "definition": "w.py:2", "text": text}
    sites = [rec(8, "return self.connection.commit()"), rec(11, "return x.commit()"),
             rec(15, "return self.connection.commit()")]
    got = mod.self_attr(sites, lambda path: source)
    assert [(r["site"], r["class"]) for r in got] == [("w.py:8", "Wrapper")]

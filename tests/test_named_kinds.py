"""Which region kind a question names as the place of its answer (app.retrieval.kinds), and the
hybrid fusion's bonus for regions of that kind."""

from __future__ import annotations

import pytest

from docgraph.app.retrieval.document_index import RegionInfo
from docgraph.app.retrieval.hybrid import Candidate, HybridWeights, fuse
from docgraph.app.retrieval.kinds import named_kinds


@pytest.mark.parametrize(
    ("question", "kinds"),
    [
        ("In the table of Emaxima mode commands, what does C-c C-u s do?", {"table"}),
        ("In the flat contingency table of UCB admissions, how many were admitted?", {"table"}),
        ("According to Table 6-2, what short synonym can I use?", {"table"}),
        ("What does Table II list for the Sugar variant?", {"table"}),
        ("In the figure illustrating PKCS #11 module usage, which component is used?", {"figure"}),
        ("In the diagram of the dblatex transforming process, which tool converts SGML?", {"figure"}),
        ("In the multi-panel plot of average reaction time, which subject is top left?", {"figure"}),
        ("What is the y-axis label in Figure 3?", {"figure"}),
        ("As Fig. 2 shows, which curve is steeper?", {"figure"}),
        ("Does the table in Figure 4 give the totals?", {"table", "figure"}),
        # The noun inside a name, any table, the contents, and the verb name no kind.
        ("When exporting a data frame, which write.table argument adds the row names?", set()),
        ("With RODBC, which function copies a data frame into a table of the database?", set()),
        ("Where does the table of contents start?", set()),
        ("How does the application figure out the address of the OCSP server?", set()),
        ("Which tables does sqlTables list?", set()),
    ],
)
def test_named_kinds(question: str, kinds: set[str]) -> None:
    assert named_kinds(question) == kinds


def _candidate(region_id: str, kind: str, dense: float, page: float) -> Candidate:
    info = RegionInfo(region_id, "doc", 1, 0, kind, (0.0, 0.0, 1.0, 1.0), region_id, None)
    return Candidate(info, {"dense": dense, "bm25": 0.0, "page": page, "section": 0.0, "gnn": 0.0})


def test_a_region_of_the_named_kind_gains_the_bonus() -> None:
    candidates = [_candidate("prose", "paragraph", 0.80, 10.0), _candidate("grid", "table", 0.60, 10.0)]
    weights = HybridWeights()
    assert [h.region_id for h in fuse(candidates, weights)] == ["prose", "grid"]
    ranked = fuse(candidates, weights, frozenset({"table"}))
    assert [h.region_id for h in ranked] == ["grid", "prose"]
    assert ranked[0].signals["kind"] == weights.kind and "kind" not in ranked[1].signals
    # A bonus of 0 turns it off; another named kind leaves both as they were.
    assert fuse(candidates, HybridWeights(kind=0.0), frozenset({"table"}))[0].region_id == "prose"
    assert fuse(candidates, weights, frozenset({"figure"}))[0].region_id == "prose"

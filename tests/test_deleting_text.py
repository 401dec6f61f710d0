"""What a delete leaves of a document's text: nothing in the store's files or logs (FalkorDB's
query log and slow logs, the append-only file), no cached page image, and a delete of a document
still being ingested is refused as such. A real local store, PDFs made here."""

from __future__ import annotations

import json
from pathlib import Path

import pymupdf
import pytest
import redis
from typer.testing import CliRunner

from docgraph.app.cli.main import app
from docgraph.app.config import Settings
from docgraph.app.jobs.documents import delete_document
from docgraph.app.pipeline.build import build_ingest_pipeline
from docgraph.app.stores import falkordb_server
from docgraph.app.stores.factory import open_store
from docgraph.app.stores.falkordb_store import FalkorDBStore
from docgraph.app.stores.ingest_claims import ingest_claim
from docgraph.app.stores.kept_copies import kept_copies_dir
from docgraph.app.stores.page_cache import page_cache_dir
from docgraph.app.ui_support.page_images import page_image
from docgraph.errors import DocumentBusyError
from tests.conftest import fresh_graph_name

SECRET = "quuxcontractword"


def contract(folder: Path, name: str = "contract.pdf", word: str = SECRET) -> Path:
    pdf = folder / name
    with pymupdf.open() as doc:
        for number in range(2):
            page = doc.new_page()
            page.insert_text((72, 72), f"Supply contract, part {number + 1}", fontname="hebo", fontsize=14)
            page.insert_text((72, 110), f"The {word} clause binds both parties for ten years.", fontsize=11)
        doc.save(pdf)
    return pdf


def _cli_uses(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    """The CLI runner's commands open the store ``settings`` names."""
    for variable, value in (
        ("DOCGRAPH_HOME", str(settings.home)),
        ("DOCGRAPH_STORE", ""),
        ("DOCGRAPH_GRAPH", settings.graph),
    ):
        monkeypatch.setenv(variable, value)


def _files_holding(folder: Path, word: bytes) -> list[str]:
    return [str(path) for path in folder.rglob("*") if path.is_file() and word in path.read_bytes()]


def test_a_deleted_documents_text_is_not_kept_in_the_stores_files_or_logs(
    falkordb_store: FalkorDBStore, local_home: Path, tmp_path: Path
) -> None:
    """FalkorDB logged the last 1,000 queries with their parameters (every region's text) in a key
    saved with the data, and the append-only file kept the writes until it was next compacted: a
    deleted contract could be read back from the store's folder after the delete, even after a
    restart."""
    settings = Settings(home=local_home, graph=falkordb_store.graph_name, store="")
    pipeline = build_ingest_pipeline(falkordb_store, settings, embed=False)
    assert pipeline.ingest(contract(tmp_path)).status == "ingested"
    assert pipeline.ingest(contract(tmp_path, "other.pdf", "keeperword")).status == "ingested"
    falkordb_store.read("CALL db.idx.fulltext.queryNodes('Region', $word) YIELD node RETURN node", {"word": SECRET})
    data_dir = falkordb_server.server_paths(local_home).data_dir
    client = redis.Redis(unix_socket_path=str(falkordb_server.server_paths(local_home).socket))
    assert client.execute_command("GRAPH.CONFIG", "GET", "CMD_INFO")[1] in (0, False)
    client.config_set("rdbcompression", "no")  # the snapshot's strings as written, for the search below

    files_dir = kept_copies_dir(local_home, falkordb_store)
    deleted = delete_document(falkordb_store, "contract", files_dir, page_cache_dir(local_home, falkordb_store))

    assert deleted.deleted_nodes > 0 and deleted.same_content == []
    assert _files_holding(data_dir, SECRET.encode()) == []
    assert _files_holding(data_dir, b"keeperword")  # what is still stored is still on disk
    logged = [str(entry) for entry in client.execute_command("GRAPH.SLOWLOG", falkordb_store.graph_name)]
    assert not any(SECRET in entry for entry in logged)
    assert not any(SECRET.encode() in key for key in client.keys("telemetry*"))


def test_a_deleted_documents_cached_page_images_go_with_it(falkordb_store: FalkorDBStore, tmp_path: Path) -> None:
    """The web app's rendered pages (readable images of the document) stayed under
    ``<home>/cache/pages`` for ever."""
    settings = Settings(home=tmp_path / "home", graph=falkordb_store.graph_name, store="")
    pipeline = build_ingest_pipeline(falkordb_store, settings, embed=False)
    assert pipeline.ingest(contract(tmp_path)).status == "ingested"
    assert pipeline.ingest(contract(tmp_path, "other.pdf", "keeperword")).status == "ingested"
    images = [page_image(falkordb_store, settings, doc, 1) for doc in ("contract", "other")]
    force = build_ingest_pipeline(falkordb_store, settings, embed=False, force=True)
    assert force.ingest(tmp_path / "contract.pdf").status == "replaced"  # read again: rendered anew
    images.append(page_image(falkordb_store, settings, "contract", 1))
    assert len(set(images)) == 3 and [image.is_file() for image in images] == [False, True, True]

    files_dir = kept_copies_dir(settings.home, falkordb_store)
    deleted = delete_document(falkordb_store, "contract", files_dir, page_cache_dir(settings.home, falkordb_store))

    assert deleted.page_images == 1
    assert [image.is_file() for image in images] == [False, True, False]


def test_a_replaced_versions_page_images_go_at_once_but_another_documents_stay(
    falkordb_store: FalkorDBStore, tmp_path: Path
) -> None:
    """A document replaced by another file (--replace) kept the old version's rendered pages, its
    text readable in them, until the document itself was deleted, and after a delete for ever."""
    settings = Settings(home=tmp_path / "home", graph=falkordb_store.graph_name, store="")
    pipeline = build_ingest_pipeline(falkordb_store, settings, embed=False)
    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir(), (tmp_path / "c").mkdir()
    assert pipeline.ingest(contract(tmp_path / "a")).status == "ingested"
    assert pipeline.ingest(contract(tmp_path / "c", "copy.pdf")).status == "ingested"  # the same content
    old_images = [page_image(falkordb_store, settings, doc, 1) for doc in ("contract", "copy")]
    renamed = contract(tmp_path / "b", word="novelword")
    assert pipeline.ingest(renamed, replace=True).status == "replaced"
    assert pipeline.ingest(contract(tmp_path / "a", "copy.pdf", "novelword"), replace=True).status == "replaced"
    assert [image.is_file() for image in old_images] == [False, False]
    kept = [page_image(falkordb_store, settings, doc, 1) for doc in ("contract", "copy")]

    assert pipeline.ingest(contract(tmp_path / "c", "copy.pdf"), replace=True).status == "replaced"
    assert [image.is_file() for image in kept] == [True, False]  # contract still has that content


def test_an_older_servers_query_log_is_dropped_for_every_graph(falkordb_store: FalkorDBStore, local_home: Path) -> None:
    """Switching the log off kept what a server an older release started had logged: the queries
    of every graph, deleted documents' text among them, stayed in the saved data."""
    client = redis.Redis(unix_socket_path=str(falkordb_server.server_paths(local_home).socket))
    client.xadd("telemetry{an_old_graph}", {"query": f"CREATE (:Region {{text: '{SECRET}'}})"})
    open_store(Settings(home=local_home, graph=falkordb_store.graph_name, store="")).close()
    assert client.keys("telemetry*") == []


def test_a_delete_of_a_document_being_ingested_for_the_first_time_says_so(
    falkordb_store: FalkorDBStore, tmp_path: Path
) -> None:
    """It said "no document 'inflight' in the store", and a moment later the ingest stored it."""
    files_dir = kept_copies_dir(tmp_path / "home", falkordb_store)
    with ingest_claim(files_dir, "inflight"), pytest.raises(DocumentBusyError, match="being ingested"):
        delete_document(falkordb_store, "inflight.pdf", files_dir)


def test_a_delete_names_the_documents_still_holding_the_same_file(
    falkordb_store: FalkorDBStore, tmp_path: Path
) -> None:
    settings = Settings(home=tmp_path / "home", graph=falkordb_store.graph_name, store="")
    pipeline = build_ingest_pipeline(falkordb_store, settings, embed=False)
    first = contract(tmp_path)
    assert pipeline.ingest(first).status == "ingested"
    assert pipeline.ingest(first.rename(tmp_path / "contract-signed.pdf")).status == "ingested"
    deleted = delete_document(falkordb_store, "contract", kept_copies_dir(settings.home, falkordb_store))
    assert deleted.same_content == ["contract-signed"]
    assert "still stored as contract-signed" in deleted.note


def test_the_cli_deletes_several_documents_at_once_and_a_typo_deletes_none(
    falkordb_store: FalkorDBStore, local_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each delete rewrote the server's whole append-only file (seconds per GB): several documents
    named at once are deleted with one rewrite, and a name that is not stored stops all of them."""
    settings = Settings(home=local_home, graph=falkordb_store.graph_name, store="")
    pipeline = build_ingest_pipeline(falkordb_store, settings, embed=False)
    for name, word in (("contract.pdf", SECRET), ("other.pdf", "keeperword"), ("third.pdf", "thirdword")):
        assert pipeline.ingest(contract(tmp_path, name, word)).status == "ingested"
    _cli_uses(settings, monkeypatch)

    typo = CliRunner().invoke(app, ["delete", "contract", "nosuchdoc", "--json"])
    assert typo.exit_code == 1 and "no document 'nosuchdoc'" in typo.stdout
    assert len(falkordb_store.read("MATCH (d:Document) RETURN d.doc_id AS doc")) == 3

    both = CliRunner().invoke(app, ["delete", "contract", "other", "--json"])
    assert both.exit_code == 0, both.stderr
    assert [one["doc_id"] for one in json.loads(both.stdout)] == ["contract", "other"]
    assert falkordb_store.read("MATCH (d:Document) RETURN d.doc_id AS doc") == [{"doc": "third"}]
    data_dir = falkordb_server.server_paths(local_home).data_dir
    assert _files_holding(data_dir, SECRET.encode()) == []


def test_several_names_of_one_document_and_a_busy_one_delete_nothing_twice_or_half(
    falkordb_store: FalkorDBStore, local_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`delete alpha alpha.pdf` deleted alpha, then failed on its second name; a document being
    ingested, named after others, was found busy only after those were deleted, unreported; and the
    note said the same file was still stored as a document deleted by the same command."""
    settings = Settings(home=local_home, graph=falkordb_store.graph_name, store="")
    pipeline = build_ingest_pipeline(falkordb_store, settings, embed=False)
    alpha = contract(tmp_path, "alpha.pdf")
    assert pipeline.ingest(alpha).status == "ingested"
    assert pipeline.ingest(alpha.rename(tmp_path / "alpha-copy.pdf")).status == "ingested"  # the same file
    assert pipeline.ingest(contract(tmp_path, "beta.pdf", "betaword")).status == "ingested"
    _cli_uses(settings, monkeypatch)

    with ingest_claim(kept_copies_dir(local_home, falkordb_store), "beta"):
        busy = CliRunner().invoke(app, ["delete", "alpha", "beta"])
    assert busy.exit_code == 1 and "'beta' is being ingested" in busy.stderr
    assert len(falkordb_store.read("MATCH (d:Document) RETURN d.doc_id AS doc")) == 3

    named_twice = CliRunner().invoke(app, ["delete", "alpha", "alpha.pdf", "alpha-copy", "--json"])
    assert named_twice.exit_code == 0, named_twice.stderr
    deleted = json.loads(named_twice.stdout)
    assert [(one["doc_id"], one["same_content"]) for one in deleted] == [("alpha", []), ("alpha-copy", [])]
    assert falkordb_store.read("MATCH (d:Document) RETURN d.doc_id AS doc") == [{"doc": "beta"}]


def test_delete_all_empties_the_store_and_asks_for_either_names_or_all(
    falkordb_store: FalkorDBStore, local_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """There was no way to delete every document but to name each one (or drop the graph, which
    leaves the kept copies and page images behind)."""
    settings = Settings(home=local_home, graph=falkordb_store.graph_name, store="")
    pipeline = build_ingest_pipeline(falkordb_store, settings, embed=False)
    for name, word in (("contract.pdf", SECRET), ("other.pdf", "keeperword")):
        assert pipeline.ingest(contract(tmp_path, name, word)).status == "ingested"
    _cli_uses(settings, monkeypatch)

    for wrong, said in ((["delete"], "or --all for every one"), (["delete", "contract", "--all"], "not both")):
        refused = CliRunner().invoke(app, wrong)
        assert refused.exit_code != 0 and said in refused.stderr
        assert len(refused.stderr.strip().splitlines()) == 1
    assert len(falkordb_store.read("MATCH (d:Document) RETURN d.doc_id AS doc")) == 2

    every = CliRunner().invoke(app, ["delete", "--all", "--json"])
    assert every.exit_code == 0, every.stderr
    assert sorted(one["doc_id"] for one in json.loads(every.stdout)) == ["contract", "other"]
    assert falkordb_store.read("MATCH (d:Document) RETURN d.doc_id AS doc") == []
    assert list(kept_copies_dir(local_home, falkordb_store).glob("*.pdf")) == []
    assert _files_holding(falkordb_server.server_paths(local_home).data_dir, SECRET.encode()) == []

    again = CliRunner().invoke(app, ["delete", "--all", "--json"])
    assert again.exit_code == 0 and json.loads(again.stdout) == []
    said = CliRunner().invoke(app, ["delete", "--all"])
    assert said.exit_code == 0 and "nothing deleted" in said.stderr


def test_another_graphs_page_images_and_an_older_releases_are_dropped_as_they_should(
    falkordb_store: FalkorDBStore, local_home: Path, tmp_path: Path
) -> None:
    """Page images were cached in one folder for every graph of a data home, and which to keep was
    asked of the graph at hand: a --force re-read in one graph dropped another graph's images of
    the same file. Images an older release cached in that folder go with a delete of their file."""
    settings = Settings(home=local_home, graph=falkordb_store.graph_name, store="")
    other_settings = Settings(home=local_home, graph=fresh_graph_name(), store="")
    other = open_store(other_settings)
    try:
        other.apply_schema()
        pdf = contract(tmp_path)
        for store, each in ((falkordb_store, settings), (other, other_settings)):
            assert build_ingest_pipeline(store, each, embed=False).ingest(pdf).status == "ingested"
        images = [page_image(falkordb_store, settings, "contract", 1), page_image(other, other_settings, "contract", 1)]
        force = build_ingest_pipeline(falkordb_store, settings, embed=False, force=True)
        assert force.ingest(pdf).status == "replaced"
        assert [image.is_file() for image in images] == [False, True]

        older = images[1].parent.parent / images[1].name  # where an older release kept it
        older.write_bytes(images[1].read_bytes())
        files_dir = kept_copies_dir(local_home, other)
        deleted = delete_document(other, "contract", files_dir, page_cache_dir(local_home, other))
        assert deleted.page_images == 2 and not older.exists() and not images[1].exists()
    finally:
        other.delete_graph()  # type: ignore[attr-defined]
        other.close()

"""Index integrity: corrupt files and manifests, concurrent rebuilds, umask, malformed
collections and topics, bad search parameters. Every case must end in a clear error
(IndexFormatError / ValueError / exit status 2 with file:line), never a traceback or a crash."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
import textwrap
import threading
import zlib
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from tiebreak.cli import main
from tiebreak.index import IndexFormatError, build_index, open_index
from tiebreak.index.readers import iter_documents, read_topics
from tiebreak.retrieval.search import check_params, format_run, search

SRC = str(Path(__file__).resolve().parents[1] / "src")

DOCS = [
    ("d1", "the quick brown fox jumps over the lazy dog"),
    ("d2", "quick dogs outrun foxes and brown bears"),
    ("d3", "nothing in common except a fox"),
    ("d4", "lazy afternoon, lazy dog"),
]


def write_jsonl(path, docs=DOCS):
    path.write_text("".join(json.dumps({"docno": d, "text": t}) + "\n" for d, t in docs))
    return path


@pytest.fixture(scope="module")
def pristine(tmp_path_factory):
    d = tmp_path_factory.mktemp("pristine")
    build_index(write_jsonl(d / "c.jsonl"), d / "idx", progress=False)
    return d / "idx"


@pytest.fixture(scope="module")
def pristine_v1(tmp_path_factory):
    """The same collection in format version 1 (flat uncompressed arrays)."""
    d = tmp_path_factory.mktemp("pristine_v1")
    build_index(write_jsonl(d / "c.jsonl"), d / "idx", progress=False, compressed=False)
    return d / "idx"


@pytest.fixture
def built(pristine, tmp_path):
    shutil.copytree(pristine, tmp_path / "idx")
    return tmp_path / "idx"


@pytest.fixture
def built_v1(pristine_v1, tmp_path):
    shutil.copytree(pristine_v1, tmp_path / "idx")
    return tmp_path / "idx"


def manifest(idx_dir):
    return json.loads((idx_dir / "manifest.json").read_text())


def array_file(idx_dir, name):
    return idx_dir / manifest(idx_dir).get("data", ".") / f"{name}.npy"


def run_cli(args, env=None):
    res = CliRunner().invoke(main, args, env=env)
    if res.exception is not None and not isinstance(res.exception, SystemExit):
        raise AssertionError(f"traceback: {res.exception!r}") from res.exception
    return res


def assert_clean_error(res, *needles):
    assert res.exit_code == 2, res.output
    assert "Traceback" not in res.output and "Aborted" not in res.output
    for n in needles:
        assert n in res.output, res.output


# ---------------------------------------------------------------- corrupt arrays (subprocess)
CORRUPTOR = textwrap.dedent(r"""
    import json, shutil, sys, zlib
    from pathlib import Path
    import numpy as np
    from tiebreak.index import IndexFormatError, open_index
    from tiebreak.retrieval.models import MODELS

    pristine, work = Path(sys.argv[1]), Path(sys.argv[2])
    version = json.loads((pristine / "manifest.json").read_text())["version"]
    names = sorted(json.loads((pristine / "manifest.json").read_text())["arrays"])

    def fresh(tag):
        d = work / tag
        shutil.copytree(pristine, d)
        m = json.loads((d / "manifest.json").read_text())
        return d, m, d / m["data"]

    def use(d, verify="lazy"):
        idx = open_index(d, verify=verify)
        for model in ("bm25", "ql", "sdm", "lkp"):
            MODELS[model](idx, ["quick", "fox", "dog", "lazy"], 10)
        idx.verify()

    def outcome(d, verify="lazy"):
        try:
            use(d, verify)
            return "ok"
        except IndexFormatError as e:
            return "IndexFormatError: " + str(e)
        except Exception as e:
            return "OTHER " + type(e).__name__ + ": " + str(e)

    out = {}
    for name in names:
        # flip one bit in the data part of the file (the header is 128 bytes)
        d, m, g = fresh("flip-" + name)
        f = g / (name + ".npy")
        b = bytearray(f.read_bytes())
        b[128 + (len(b) - 128) // 2] ^= 0x10
        f.write_bytes(bytes(b))
        out["flip-" + name] = outcome(d)
        # truncate by 4 bytes
        d, m, g = fresh("trunc-" + name)
        f = g / (name + ".npy")
        f.write_bytes(f.read_bytes()[:-4])
        out["trunc-" + name] = outcome(d)

    def forge(tag, name, fn):
        # an adversarial array with a matching crc32 in the manifest: only invariants catch it
        d, m, g = fresh(tag)
        f = g / (name + ".npy")
        a = np.load(f).copy()
        fn(a)
        np.save(f, a)
        m["arrays"][name]["crc32"] = zlib.crc32(a.tobytes())
        m["arrays"][name]["file_bytes"] = f.stat().st_size
        (d / "manifest.json").write_text(json.dumps(m))
        out[tag] = outcome(d)
        out[tag + "/structure"] = outcome(d, "structure")

    def scramble(a):
        a[1:-1] = a[1:-1][::-1].copy()
    forge("forge-post_ptr-scrambled", "post_ptr", scramble)
    forge("forge-post_ptr-huge", "post_ptr", lambda a: a.__setitem__(1, 10**12))
    if version == 1:
        forge("forge-post_docid-range", "post_docid", lambda a: a.__setitem__(0, 10**6))
        forge("forge-post_docid-negative", "post_docid", lambda a: a.__setitem__(-1, -7))
        forge("forge-pos_ptr-scrambled", "pos_ptr", scramble)
        forge("forge-pos-range", "pos", lambda a: a.__setitem__(0, 10**6))
        forge("forge-post_tf-zero", "post_tf", lambda a: a.__setitem__(0, 0))
    else:
        # block 0's docid width byte; a width above 32; a block length that lies; blk_last off
        forge("forge-post_bytes-width", "post_bytes", lambda a: a.__setitem__(0, 32))
        forge("forge-post_bytes-width-huge", "post_bytes", lambda a: a.__setitem__(0, 200))
        forge("forge-post_off-scrambled", "post_off", scramble)
        forge("forge-post_off-huge", "post_off", lambda a: a.__setitem__(1, 10**12))
        forge("forge-blk_last", "blk_last", lambda a: a.__setitem__(0, a[0] + 1))
        forge("forge-pos_bytes-width", "pos_bytes", lambda a: a.__setitem__(0, 31))
        forge("forge-pos_off-scrambled", "pos_off", scramble)
    forge("forge-docno_rank-dup", "docno_rank", lambda a: a.__setitem__(0, a[1]))
    forge("forge-doclen-negative", "doclen", lambda a: a.__setitem__(0, -3))
    forge("forge-df", "df", lambda a: a.__setitem__(0, a[0] + 1))
    print(json.dumps(out))
""")


def _subprocess_json(script, *args):
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = subprocess.run([sys.executable, "-c", script, *map(str, args)],
                       capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, f"corruptor died (rc {p.returncode}): {p.stderr[-2000:]}"
    return json.loads(p.stdout.strip().splitlines()[-1])


@pytest.mark.slow
@pytest.mark.parametrize("version", [2, 1])
def test_corrupt_arrays_never_crash(pristine, pristine_v1, tmp_path, version):
    """Bit flips, truncations and forged arrays (crc32 fixed up) in every array: each ends in
    IndexFormatError; run in a subprocess so that a segfault would be seen as such."""
    out = _subprocess_json(CORRUPTOR, pristine if version == 2 else pristine_v1, tmp_path)
    assert len(out) == (24 + 24 if version == 2 else 22 + 20)
    for case, res in out.items():
        assert res.startswith("IndexFormatError"), (case, res)
        assert "rebuild the index" in res, (case, res)
    if version == 1:
        assert "checksum mismatch" in out["flip-post_docid"]
        assert "truncated" in out["trunc-pos"]
        assert "post_docid" in out["forge-post_docid-range"]
        assert "pos_ptr" in out["forge-pos_ptr-scrambled/structure"]
    else:
        assert "checksum mismatch" in out["flip-post_bytes"]
        assert "truncated" in out["trunc-pos_bytes"]
        assert "post_bytes.npy: corrupt index: block 0" in out["forge-post_bytes-width/structure"]
        assert "bit width" in out["forge-post_bytes-width-huge"]
        assert "blk_last" in out["forge-blk_last/structure"]


FUZZER = textwrap.dedent(r"""
    import json, shutil, sys, zlib
    from pathlib import Path
    import numpy as np
    from tiebreak.index import IndexFormatError, open_index
    from tiebreak.retrieval.models import MODELS

    pristine, work, n = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])
    rng = np.random.default_rng(0)
    m0 = json.loads((pristine / "manifest.json").read_text())
    counts = {}
    for case in range(n):
        name = ["post_bytes", "pos_bytes", "post_off", "pos_off", "blk_last"][case % 5]
        d = work / f"z{case}"
        shutil.copytree(pristine, d)
        f = d / m0["data"] / (name + ".npy")
        a = np.load(f).copy()
        raw = a.view(np.uint8)
        for _ in range(int(rng.integers(1, 4))):    # 1-3 random bytes replaced
            raw[rng.integers(raw.size)] = rng.integers(256)
        np.save(f, a)
        m = json.loads((d / "manifest.json").read_text())
        m["arrays"][name]["crc32"] = zlib.crc32(a.tobytes())
        (d / "manifest.json").write_text(json.dumps(m))
        try:
            idx = open_index(d)
            for t in range(idx.vocab_size):      # one term's blocks, before any full decode
                idx.postings(t)
            idx = open_index(d)
            for model in ("bm25", "ql", "sdm"):
                MODELS[model](idx, ["quick", "fox", "dog", "lazy"], 10)
            idx.verify()
            res = "ok"
        except IndexFormatError:
            res = "IndexFormatError"
        except Exception as e:
            res = "OTHER " + type(e).__name__ + ": " + str(e)
        counts[res] = counts.get(res, 0) + 1
        shutil.rmtree(d)
    print(json.dumps(counts))
""")


@pytest.mark.slow
def test_fuzzed_compressed_blocks_never_crash(pristine, tmp_path):
    """Random bytes in the compressed arrays with the crc32 fixed up (only the decoder's
    checks and the invariants can catch them): every case is a sound index (a changed padding
    bit) or an IndexFormatError, never another exception or a crash."""
    counts = _subprocess_json(FUZZER, pristine, tmp_path, 150)
    assert set(counts) <= {"ok", "IndexFormatError"}, counts
    assert counts.get("IndexFormatError", 0) >= 100, counts


def test_checksum_detects_rank_changing_flip(built_v1):
    """A flipped low bit in post_tf keeps every structural invariant except tf = number of
    positions; a flip in a docid that keeps the order is caught by the crc32 only."""
    f = array_file(built_v1, "post_docid")
    a = np.load(f)
    ptr = np.load(array_file(built_v1, "post_ptr"))
    # find a posting whose docid can move by one without breaking the ascending order
    j = next(j for t in range(len(ptr) - 1) for j in range(ptr[t], ptr[t + 1])
             if a[j] + 1 < len(DOCS) and (j + 1 == ptr[t + 1] or a[j + 1] > a[j] + 1))
    raw = bytearray(f.read_bytes())
    off = len(raw) - a.nbytes + 4 * j
    raw[off:off + 4] = np.int32(a[j] + 1).tobytes()
    f.write_bytes(bytes(raw))
    idx = open_index(built_v1, verify="structure")
    assert idx.post_docid[j] == a[j] + 1     # the invariants hold ...
    with pytest.raises(IndexFormatError, match="checksum mismatch"):
        len(open_index(built_v1).post_docid)     # ... the checksum does not
    with pytest.raises(IndexFormatError, match="checksum"):
        search(open_index(built_v1), [("1", "fox")], "bm25")


def test_verified_once_per_process(built, monkeypatch):
    from tiebreak.index import store

    open_index(built, verify="eager")
    calls = []
    monkeypatch.setattr(store, "crc32", lambda a: calls.append(1) or 0)
    idx = open_index(built)
    assert len(idx.post_docid) == len(idx.post_tf)
    assert calls == []           # unchanged files that passed are not hashed again
    with pytest.raises(IndexFormatError):
        idx.verify()             # an explicit verify always re-hashes


# ---------------------------------------------------------------- manifests
@pytest.mark.parametrize("edit, needle", [
    (lambda m: m.__setitem__("arrays", list(m["arrays"])), "arrays: expected an object"),
    (lambda m: m.__setitem__("num_docs", "abc"), "num_docs: expected an integer"),
    (lambda m: m.__setitem__("num_docs", True), "num_docs"),
    (lambda m: m.__setitem__("num_docs", -1), "num_docs"),
    (lambda m: m.__setitem__("vocab_size", 2.5), "vocab_size"),
    (lambda m: m.__setitem__("analyzer", None), "analyzer: expected an object"),
    (lambda m: m["analyzer"].__setitem__("stemmer", "snowball9"), "analyzer.stemmer"),
    (lambda m: m["analyzer"].__setitem__("stopword_list", [1, 2]), "stopword_list"),
    (lambda m: m["analyzer"].__setitem__("tokenizer", None), "bad analyser"),
    (lambda m: m.__setitem__("version", "1"), "version"),
    (lambda m: m.__setitem__("data", "../elsewhere"), "data"),
    (lambda m: m.__setitem__("data", 7), "data"),
    (lambda m: m["arrays"].__setitem__("pos_bytes", None), "arrays.pos_bytes: expected an object"),
    (lambda m: m["arrays"]["pos_bytes"].__setitem__("shape", "x"), "arrays.pos_bytes.shape"),
    (lambda m: m["arrays"]["pos_bytes"].__setitem__("crc32", -1), "arrays.pos_bytes.crc32"),
    (lambda m: m["arrays"]["pos_bytes"].__setitem__("file_bytes", "9"),
     "arrays.pos_bytes.file_bytes"),
    (lambda m: m.__setitem__("block_size", 0), "block_size"),
    (lambda m: m.__setitem__("num_blocks", m["num_blocks"] + 1), "blk_last length"),
    (lambda m: m["arrays"].pop("df"), "lacks arrays.df"),
    (lambda m: m.pop("collection_length"), "lacks 'collection_length'"),
    (lambda m: m["arrays"]["df"].__setitem__("dtype", "int64"), "df.npy is int32"),
    (lambda m: m.__setitem__("num_docs", m["num_docs"] + 1), "docnos length != num_docs"),
])
def test_manifest_wrong_types(built, edit, needle):
    m = manifest(built)
    edit(m)
    (built / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(IndexFormatError) as e:
        open_index(built)
    assert needle in str(e.value)


@pytest.mark.parametrize("text", ["[1, 2]", "null", "\"x\"", "{\"format\": 3}", "\xff\xfe",
                                  "[" * 100000])
def test_manifest_not_an_object(built, text):
    (built / "manifest.json").write_bytes(text.encode("utf-8", "surrogateescape")
                                          if text != "\xff\xfe" else b"\xff\xfe")
    with pytest.raises(IndexFormatError):
        open_index(built)


def test_manifest_errors_on_cli(built):
    m = manifest(built)
    m["num_docs"] = "abc"
    (built / "manifest.json").write_text(json.dumps(m))
    res = run_cli(["search", str(built), "--topics", "irds:none"])
    assert_clean_error(res, "num_docs: expected an integer")
    res = run_cli(["index", "--verify", str(built)])
    assert_clean_error(res, "num_docs")


def test_index_verify_cli(built):
    res = run_cli(["index", "--verify", str(built)])
    assert res.exit_code == 0 and "ok (12 arrays" in res.output
    f = array_file(built, "terms")
    b = bytearray(f.read_bytes())
    b[-1] ^= 1
    f.write_bytes(bytes(b))
    assert_clean_error(run_cli(["index", "--verify", str(built)]), "terms.npy: checksum")


# ---------------------------------------------------------------- layout, rebuild, umask
def test_legacy_layout_and_rebuild(built, tmp_path):
    """An index written before generation directories (arrays beside the manifest) opens, and a
    rebuild replaces it with the generation layout without leaving the old arrays behind."""
    m = manifest(built)
    gen = built / m.pop("data")
    for f in gen.iterdir():
        f.rename(built / f.name)
    gen.rmdir()
    (built / "manifest.json").write_text(json.dumps(m))
    open_index(built, verify="eager")
    idx = build_index(write_jsonl(tmp_path / "n.jsonl", DOCS[:2]), built, progress=False)
    assert idx.num_docs == 2
    assert sorted(p.name for p in built.iterdir() if not p.name.startswith("v-")) == [
        "manifest.json"]


def test_rebuild_removes_old_generation(built, tmp_path):
    old = manifest(built)["data"]
    build_index(write_jsonl(tmp_path / "n.jsonl", DOCS[:3]), built, progress=False)
    names = sorted(p.name for p in built.iterdir())
    assert old not in names and len(names) == 2 and open_index(built).num_docs == 3


@pytest.mark.parametrize("umask, mode", [(0o022, 0o755), (0o077, 0o700), (0o002, 0o775)])
def test_umask_respected(tmp_path, umask, mode):
    old = os.umask(umask)
    try:
        build_index(write_jsonl(tmp_path / "c.jsonl"), tmp_path / "idx", progress=False)
    finally:
        os.umask(old)
    idx = tmp_path / "idx"
    gen = idx / manifest(idx)["data"]
    assert (idx.stat().st_mode & 0o777, gen.stat().st_mode & 0o777) == (mode, mode)
    assert (gen / "pos_bytes.npy").stat().st_mode & 0o777 == mode & 0o666


A = [(f"a{i}", "alpha beta gamma " * (i + 1)) for i in range(3)]
B = [(f"b{i}", "delta epsilon " * (i + 1)) for i in range(7)]


def _check_consistent(idx):
    idx.verify()
    assert (idx.num_docs, list(idx.docnos)) in ((3, [d for d, _ in A]), (7, [d for d, _ in B]))


@pytest.mark.slow
def test_concurrent_rebuild_and_open_threads(tmp_path):
    """A reader thread opening the index while a writer thread rebuilds it over and over sees
    the old or the new index every time, complete and consistent."""
    srcs = [write_jsonl(tmp_path / "a.jsonl", A), write_jsonl(tmp_path / "b.jsonl", B)]
    target = tmp_path / "idx"
    build_index(srcs[0], target, progress=False)
    done = threading.Event()
    errors = []

    def writer():
        try:
            for i in range(15):
                build_index(srcs[(i + 1) % 2], target, progress=False)
        except Exception as e:  # noqa: BLE001
            errors.append(e)
        finally:
            done.set()

    t = threading.Thread(target=writer)
    t.start()
    opens = 0
    try:
        while not done.is_set() or opens < 20:
            _check_consistent(open_index(target))
            opens += 1
    finally:
        t.join()
    assert not errors and opens >= 20


READER = textwrap.dedent(r"""
    import sys, json
    from tiebreak.index import open_index
    target, n = sys.argv[1], int(sys.argv[2])
    seen, bad = {}, []
    for _ in range(n):
        try:
            idx = open_index(target)
            idx.verify()
            seen[idx.num_docs] = seen.get(idx.num_docs, 0) + 1
        except Exception as e:
            bad.append(type(e).__name__ + ": " + str(e))
    print(json.dumps({"seen": seen, "bad": bad[:5], "nbad": len(bad)}))
""")


@pytest.mark.slow
def test_concurrent_rebuild_and_open_processes(tmp_path):
    """Two reader processes open the index in a loop while this process rebuilds it."""
    srcs = [write_jsonl(tmp_path / "a.jsonl", A), write_jsonl(tmp_path / "b.jsonl", B)]
    target = tmp_path / "idx"
    build_index(srcs[0], target, progress=False)
    env = dict(os.environ, PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    readers = [subprocess.Popen([sys.executable, "-c", READER, str(target), "80"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env=env) for _ in range(2)]
    i = 0
    while any(r.poll() is None for r in readers):
        build_index(srcs[i % 2], target, progress=False)
        i += 1
    for r in readers:
        out, err = r.communicate(timeout=120)
        assert r.returncode == 0, err[-2000:]
        res = json.loads(out.strip().splitlines()[-1])
        assert res["nbad"] == 0, res["bad"]
        assert set(res["seen"]) <= {"3", "7"} and sum(res["seen"].values()) == 80
    assert i >= 2


# ---------------------------------------------------------------- collections
def _docs(path):
    return list(iter_documents(path))


@pytest.mark.parametrize("line, needle", [
    ("[1, 2]", ":2: expected a JSON object, got list"),
    ("\"just text\"", ":2: expected a JSON object, got str"),
    ("42", ":2: expected a JSON object, got int"),
    ('{"docno": null, "text": "x"}', ":2: docno ('docno') must be a string, got NoneType"),
    ('{"id": 7, "text": "x"}', ":2: docno ('id') must be a string, got int"),
    ('{"docno": "a b", "text": "x"}', ":2: docno ('docno') 'a b' contains whitespace"),
    ('{"docno": "a\\nb", "text": "x"}', "contains whitespace"),
    ('{"docno": "", "text": "x"}', ":2: docno ('docno') '' is empty"),
    ('{"docno": "z", "text": null}', ":2: field 'text' must be a string, got null"),
    ('{"docno": "z", "text": 3}', ":2: field 'text' must be a string, got int"),
    ('{"docno": "z", "title": ["t"], "text": "x"}', ":2: field 'title' must be a string"),
    ('{"docno": "z", "content": "x"}', ":2: no text/contents/body or title field"),
    ('{"docno": "z", "text": "x"', ":2: bad JSON"),
])
def test_jsonl_bad_lines(tmp_path, line, needle):
    f = tmp_path / "c.jsonl"
    f.write_text('{"docno": "ok", "text": "fine"}\n' + line + "\n")
    with pytest.raises(ValueError) as e:
        _docs(f)
    assert str(e.value).startswith(str(f)) and needle in str(e.value)
    res = run_cli(["index", str(f), "-o", str(tmp_path / "idx")])
    assert_clean_error(res, f"{f}:2:")
    assert not (tmp_path / "idx").exists()


@pytest.mark.parametrize("text, needle", [
    ("<DOC>\n<DOCNO> a </DOCNO>\nx\n</DOC>\n<DOC>\n<DOCNO> b </DOCNO>\ny\n",
     ":5: <DOC> without </DOC>"),
    ("<DOC>\n<DOCNO> a </DOCNO>\nx\n<DOC>\n<DOCNO> b </DOCNO>\ny\n</DOC>\n",
     ":1: <DOC> not closed before the next <DOC> (line 4)"),
    ("<DOC>\n<DOCNO> a b </DOCNO>\nx\n</DOC>\n", ":1: docno 'a b' contains whitespace"),
    ("<DOC>\n<DOCNO>  </DOCNO>\nx\n</DOC>\n", ":1: docno '' is empty"),
    ("<DOC>\n<TEXT>x</TEXT>\n</DOC>\n", ":1: <DOC> without <DOCNO>"),
    ("<DOC>\n<DOCNO>a</DOCNO>\n</DOC>\nstray words\n<DOC>\n<DOCNO>b</DOCNO>\n</DOC>\n",
     ":4: text outside <DOC>...</DOC>"),
])
def test_trec_bad_documents(tmp_path, text, needle):
    f = tmp_path / "c.trec"
    f.write_text(text)
    with pytest.raises(ValueError, match=None) as e:
        _docs(f)
    assert needle in str(e.value)


@pytest.mark.parametrize("text, needle", [
    (".I 1\n.W\nfirst\n.I\n.W\nsecond\n", ":4: .I record without an id"),
    (".I 1\n.W\nfirst\n.I 2 3\n.W\nsecond\n", ":4: record id '2 3' contains whitespace"),
])
def test_smart_bad_records(tmp_path, text, needle):
    f = tmp_path / "C.ALL"
    f.write_text(text)
    with pytest.raises(ValueError) as e:
        _docs(f)
    assert needle in str(e.value)


def test_truncated_gzip_collection(tmp_path):
    f = tmp_path / "c.trec.gz"
    data = gzip.compress(b"".join(b"<DOC>\n<DOCNO> d%d </DOCNO>\nsome text here\n</DOC>\n" % i
                                  for i in range(2000)))
    f.write_bytes(data[: len(data) // 2])
    res = run_cli(["index", str(f), "-o", str(tmp_path / "idx")])
    assert_clean_error(res, "corrupt gzip data", "truncated or damaged")
    assert not (tmp_path / "idx").exists()


def test_truncated_tar_collection(tmp_path):
    import io
    import tarfile

    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tf:
        for i in range(50):
            body = (f"<html>document {i} " + "words " * 200 + "</html>").encode()
            ti = tarfile.TarInfo(f"CACM-{i:04d}.html")
            ti.size = len(body)
            tf.addfile(ti, io.BytesIO(body))
    f = tmp_path / "c.tar.gz"
    f.write_bytes(buf.getvalue()[: len(buf.getvalue()) // 2])
    assert_clean_error(run_cli(["index", str(f), "-o", str(tmp_path / "idx")]),
                       "truncated or corrupt")


@pytest.mark.slow
def test_irds_without_local_copy(tmp_path):
    """An ir_datasets id with no local copy (and no network): a clear error saying what to do.
    In a subprocess (ir_datasets reads IR_DATASETS_HOME once, at import); the proxy variables
    point at a closed port so that no download can succeed."""
    home = tmp_path / "irds"
    home.mkdir()
    env = dict(os.environ, IR_DATASETS_HOME=str(home), NO_PROXY="", no_proxy="",
               PYTHONPATH=SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    for v in ("http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY"):
        env[v] = "http://127.0.0.1:9"
    for args, needles in [
        (["vaswani", "-o", str(tmp_path / "idx"), "-q"],
         ("ir_datasets 'vaswani'", "IR_DATASETS_HOME", "pass the collection")),
        (["no-such-dataset/at-all", "-o", str(tmp_path / "idx")],
         ("neither a file nor an ir_datasets id",)),
    ]:
        p = subprocess.run([sys.executable, "-m", "tiebreak", "index", *args], env=env,
                           capture_output=True, text=True, timeout=120)
        assert p.returncode == 2, p.stderr
        assert "Traceback" not in p.stderr
        for n in needles:
            assert n in p.stderr, p.stderr
    assert not (tmp_path / "idx").exists()


# ---------------------------------------------------------------- topics
@pytest.mark.parametrize("name, text, needle", [
    ("t.tsv", "q1\tfox\nq 2\tdog\n", "t.tsv:2: topic id 'q 2' contains whitespace"),
    ("t.tsv", "q1\tfox\n\tdog\n", "t.tsv:2: topic id '' is empty"),
    ("t.tsv", "q1\tfox\nq1\tdog\n", "t.tsv:2: topic id 'q1' repeats topic 1"),
    ("t.trec", "<top>\n<num> Number: 401 extra\n<title> fox\n</top>\n",
     ":1: topic id '401 extra' contains whitespace"),
    ("t.trec", "<top>\n<num> 1\n<title> fox\n</top>\n<top>\n<num> 2\n<title> dog\n",
     ":5: <top> without </top>"),
    ("t.jsonl", '{"id": "a", "text": "fox"}\n{"id": "b c", "text": "dog"}\n',
     ":2: topic id ('id') 'b c' contains whitespace"),
])
def test_bad_topic_ids(tmp_path, name, text, needle):
    f = tmp_path / name
    f.write_text(text)
    with pytest.raises(ValueError) as e:
        read_topics(f)
    assert needle in str(e.value)


def test_format_run_rejects_bad_ids(pristine):
    idx = open_index(pristine)
    res = search(idx, [("1", "fox")], "bm25")
    assert format_run(idx, res, "tag").startswith("1 Q0 ")
    with pytest.raises(ValueError, match="tag 'my run' contains whitespace"):
        format_run(idx, res, "my run")
    with pytest.raises(ValueError, match="topic id 'a b' contains whitespace"):
        search(idx, [("a b", "fox")], "bm25")


# ---------------------------------------------------------------- search parameters and queries
@pytest.mark.parametrize("args, needle", [
    (["--k1", "nan"], "k1 must be a finite number, got nan"),
    (["--k1", "inf"], "k1 must be a finite number, got inf"),
    (["--k1", "-1"], "k1 must be in [0, 1e+06] ((k1 + 1) tf must stay finite"),
    (["--b", "-0.1"], "b must be in [0, 1], got -0.1"),
    (["--b", "1.5"], "b must be in [0, 1]"),
    (["--b", "nan"], "b must be a finite number"),
    (["--model", "ql", "--mu", "0"], "mu must be in (0, inf), got 0.0"),
    (["--model", "ql", "--mu", "-5"], "mu must be in (0, inf)"),
    (["--model", "ql", "--mu", "nan"], "mu must be a finite number"),
    (["--model", "lkp", "--lam", "2"], "lam must be in [0, 1]"),
    (["--model", "sdm", "-p", "weights=0.8,nan,0.1"], "weights must be a finite number"),
    (["--model", "sdm", "-p", "weights=0.8,-1,0.1"], "weights must be >= 0"),
    (["--model", "sdm", "-p", "window=0"], "window must be an integer >= 1"),
    (["--model", "bm25", "--mu", "100"], "mu"),
    (["--model", "sdm", "--k1", "1.2"], "sdm has no parameter 'k1'"),
    (["-p", "k1=abc"], "k1 must be a number, got 'abc'"),
    (["--tag", "my run"], "--tag 'my run'"),
])
def test_search_rejects_bad_parameters(pristine, tmp_path, args, needle):
    (tmp_path / "t.tsv").write_text("1\tfox\n")
    res = run_cli(["search", str(pristine), "--topics", str(tmp_path / "t.tsv"), *args])
    assert_clean_error(res, needle)
    assert " Q0 " not in res.output


def test_check_params_accepts_defaults():
    with pytest.raises(ValueError, match="lkp has no parameter 'mu'"):
        check_params("lkp", {"mu": 3})
    check_params("bm25", {"k1": 0.0, "b": 1, "idf": "lucene"})
    check_params("ql", {"mu": 1e-3})
    check_params("sdm", {"weights": (0.8, 0.1, 0.1), "window": 8})


def test_empty_queries_warned_not_dropped(pristine, tmp_path):
    (tmp_path / "t.tsv").write_text("1\tquick fox\n2\tthe of and\n3\t\n4\tzebra\n5\tlazy\n")
    res = CliRunner().invoke(
        main, ["search", str(pristine), "--topics", str(tmp_path / "t.tsv")])
    assert res.exit_code == 0, res.stderr
    assert sorted({ln.split()[0] for ln in res.stdout.splitlines()}) == ["1", "5"]
    assert "topic 2: no query terms after analysis" in res.stderr
    assert "topic 3: no query terms after analysis" in res.stderr
    assert "topic 4: none of its terms (zebra) occurs in the index" in res.stderr
    assert "topic 1:" not in res.stderr and "topic 5:" not in res.stderr
    r = search(open_index(pristine), [("2", "the of"), ("1", "fox")], "ql")
    assert [x.qid for x in r] == ["2", "1"] and r[0].note and not r[1].note


def test_stale_generations_removed(built, tmp_path):
    """Unreferenced generations without a lock file: a finished one was superseded and is
    removed by the next rebuild; a staging one (left by a tiebreak that did not lock) once it is
    an hour old; a younger one may belong to a build in progress and stays."""
    old_gen, old_tmp, young = (built / "v-00000000aaaaaaaa", built / ".v-00000000bbbbbbbb.tmp",
                               built / ".v-00000000cccccccc.tmp")
    for d in (old_gen, old_tmp, young):
        d.mkdir()
        (d / "x.npy").write_bytes(b"x")
    for d in (old_gen, old_tmp):
        os.utime(d, (1e9, 1e9))
    build_index(write_jsonl(tmp_path / "n.jsonl", DOCS[:2]), built, progress=False)
    names = {p.name for p in built.iterdir()}
    assert young.name in names and old_gen.name not in names and old_tmp.name not in names
    assert open_index(built, verify="eager").num_docs == 2


def test_old_index_with_bad_docno_not_written(built):
    """An index built before docnos were checked may hold 'd ': the run is refused, not
    written with a docno that tiebreak eval would split."""
    f = array_file(built, "docnos")
    a = np.load(f)
    a[0] = "d 1"          # the array is <U2: stored as 'd '
    np.save(f, a)
    m = manifest(built)
    m["arrays"]["docnos"]["crc32"] = zlib.crc32(a.tobytes())
    (built / "manifest.json").write_text(json.dumps(m))
    idx = open_index(built)
    res = search(idx, [("1", "quick brown fox")], "bm25")
    with pytest.raises(ValueError, match="index docno 'd ' contains whitespace"):
        format_run(idx, res, "bm25")
    with pytest.raises(IndexFormatError, match="docid 0: docno 'd ' contains whitespace"):
        idx.verify()


def test_crc32_of_empty_and_multidimensional_arrays():
    """The checksum of derived arrays is the crc32 of their C-order bytes, also for a
    two-dimensional array with no column (an index whose every document is empty: found by the
    sharded hypothesis test)."""
    import zlib

    import numpy as np

    from tiebreak.index.invariants import crc32

    a = np.arange(12, dtype=np.float64).reshape(3, 4)
    assert crc32(a) == zlib.crc32(a.tobytes())
    assert crc32(a.T) == zlib.crc32(np.ascontiguousarray(a.T).tobytes())
    assert crc32(np.zeros((3, 0))) == 0

"""Tests of tiebreak.report: the HTML page is self-contained, renders in a real headless browser
without console errors, and carries the numbers of ``tiebreak compare --format tsv``."""

from __future__ import annotations

import io
import re
import shutil

import numpy as np
import pytest
from click.testing import CliRunner

from tiebreak.cli import main

# with --dist loadgroup one worker would build the page fixture once; pytest 9.2 with xdist 3.8
# ignores the mark (pytest-xdist issue 1386), and the suite runs --dist worksteal, which
# hands each worker a contiguous run of tests (a file mostly stays on one worker)
pytestmark = pytest.mark.xdist_group("report")

SYSTEMS = ["BBGhelani1", "BERT", "BITEM_BL", "CSIROmedNIR", "BM25R2"]


@pytest.fixture(scope="module")
def page(shared_data, tmp_path_factory):
    """(html text, path, tsv text) for 5 TREC-COVID round 1 runs, AP and nDCG@10."""
    d = shared_data / "trec_covid" / "round1"
    args = [str(d / "qrels-rnd1.txt")] + [str(d / "runs" / f"{s}.gz") for s in SYSTEMS] + [
        "-m", "AP", "-m", "nDCG@10"]
    out = tmp_path_factory.mktemp("report") / "report.html"
    r = CliRunner().invoke(main, ["report", *args, "-o", str(out)])
    assert r.exit_code == 0, r.output
    t = CliRunner().invoke(main, ["compare", *args, "--format", "tsv"])
    assert t.exit_code == 0, t.output
    return out.read_text(encoding="utf-8"), out, t.stdout


def test_self_contained(page):
    text, _, _ = page
    assert text.startswith("<!DOCTYPE html>")
    # nothing is fetched at view time: every src is a data: URI, no scripts, no external links
    srcs = re.findall(r'\bsrc="([^"]*)"', text)
    assert len(srcs) == 2  # tie ranges per measure
    assert all(s.startswith("data:image/svg+xml;base64,") for s in srcs)
    # per-topic charts: inline SVG, 4 systems x 2 measures, in two closed <details>
    charts = re.findall(r'<svg class="topic-chart".*?</svg>', text, re.S)
    assert len(charts) == 2 * 4 and text.count('<details class="per-topic">') == 2
    import xml.etree.ElementTree as ET

    for ch in charts:
        root = ET.fromstring(ch)
        labels = [t.text for t in root.iter("text") if t.get("class") == "l"]
        assert len(labels) == len(set(labels)) > 0  # one bar per topic, labelled by its id
    assert re.search(r"Made by tiebreak \d+\.\d+\.\d+ on \d{4}-\d\d-\d\d", text)
    assert "<script" not in text and "<link" not in text and "url(" not in text
    assert "unjudged documents in the top 10: 106" in text  # BITEM_BL's input warning


def _tsv(tsv: str):
    import pandas as pd

    return pd.read_csv(io.StringIO(tsv), sep="\t", keep_default_na=False, dtype=str)


def test_numbers_equal_tsv_without_browser(page):
    text, _, tsv = page
    df = _tsv(tsv)
    vals = re.findall(r'data-col="p_adjusted" data-value="([^"]*)"', text)
    assert vals == df["p_adjusted"].tolist()


def _driver():
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
    from selenium.webdriver.chrome.service import Service

    browser = next((shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome")
                    if shutil.which(b)), None)
    drv = shutil.which("chromedriver")
    if not browser or not drv:
        pytest.skip("no headless browser: install Chromium and its driver (Debian: apt-get "
                    "install chromium chromium-driver) to run the browser test")
    o = webdriver.ChromeOptions()
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"):
        o.add_argument(a)
    o.binary_location = browser
    o.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    try:
        return webdriver.Chrome(service=Service(drv), options=o)
    except Exception as e:  # pragma: no cover - a broken browser install
        pytest.skip(f"headless Chromium did not start: {e}")


def test_renders_in_browser_and_numbers_equal_tsv(page):
    _, path, tsv = page
    d = _driver()
    try:
        d.get(path.as_uri())
        logs = d.get_log("browser")
        widths = d.execute_script(
            "return Array.from(document.images).map(i => i.complete ? i.naturalWidth : 0)")
        cells = d.execute_script("""
            return Array.from(document.querySelectorAll('tr.comparison-row')).map(tr => {
              const o = {measure: tr.closest('table').dataset.measure};
              tr.querySelectorAll('td[data-col]').forEach(td => {
                o[td.dataset.col] = td.dataset.value ?? null;
                o[td.dataset.col + '_text'] = td.textContent;
                if (td.dataset.col === 'wtl') o.wtl = [td.dataset.wins, td.dataset.ties,
                                                        td.dataset.losses].join('/');
                if (td.dataset.col === 'ci') o.ci = [td.dataset.low, td.dataset.high];
              });
              return o;
            });""")
        title = d.title
    finally:
        d.quit()
    assert [e for e in logs if e["level"] in ("SEVERE", "WARNING")] == []
    assert len(widths) == 2 and all(w > 0 for w in widths)  # every figure decoded and drawn
    assert title == "tiebreak comparison"
    df = _tsv(tsv)
    assert len(cells) == len(df) == 8
    for c, (_, row) in zip(cells, df.iterrows()):
        assert (c["system"], c["measure"]) == (row["system"], row["measure"])
        for col in ("mean", "delta", "p", "p_adjusted", "effect_size", "tie_robust", "marker"):
            assert c[col] == row[col], col
        assert c["ci"] == [row["ci_low"], row["ci_high"]]
        assert c["wtl"] == f"{row['wins']}/{row['ties']}/{row['losses']}"
        # the shown (rounded) number is the full-precision one
        assert float(c["mean_text"]) == pytest.approx(float(row["mean"]), abs=5e-5)
        assert float(c["delta_text"]) == pytest.approx(float(row["delta"]), abs=5e-5)
    assert np.isfinite([float(c["mean"]) for c in cells]).all()


def test_all_pairs_page_and_a_tie_dependent_row():
    pytest.importorskip("matplotlib", reason="the report needs matplotlib (tiebreak[plot])")
    from test_compare import _flip_case  # tests/ is on sys.path under pytest

    import tiebreak as tb
    from tiebreak.report import build_report
    from tiebreak.stats.compare import compare, needed_regimes

    q, a, b, c = _flip_case()
    res = tb.Evaluator(q, ["AP"], needed_regimes()).evaluate([b, a, c])
    cmp = compare(res, all_pairs=True)
    text = build_report(res, cmp, ["qrels q: a warning"], qrels_name="flip")
    assert text.count('class="comparison-row"') == 3  # 3 pairs
    assert '<th class="name">vs</th>' in text
    # B vs A is significant at trec_eval but reverses at the worst tie order: highlighted
    assert re.search(r'class="fragile">no \(reverses at worst tie order', text)
    assert text.count("<img") == 1  # one tie-range figure
    assert text.count('<svg class="topic-chart"') == 2  # A and C against B
    assert "qrels q: a warning" in text


def _chromium_screenshot(html: str, tmp_path, width: int = 1280, height: int = 3000):
    """PNG of ``html`` rendered by headless Chromium's command line (no driver needed)."""
    import subprocess

    browser = next((shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome")
                    if shutil.which(b)), None)
    if not browser:
        pytest.skip("no Chromium: install it (Debian: apt-get install chromium "
                    "chromium-driver) to screenshot the report")
    page = tmp_path / "page.html"
    page.write_text(html, encoding="utf-8")
    png = tmp_path / "shot.png"
    args = [browser, "--headless", "--no-sandbox", "--disable-gpu",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}",
            f"--window-size={width},{height}", f"--screenshot={png}", page.as_uri()]
    subprocess.run(args, capture_output=True, timeout=120, check=False)
    if not png.exists():
        pytest.skip("headless Chromium wrote no screenshot")
    return png


def test_screenshot_shows_ranges_and_whiskers(page, tmp_path):
    """The page as a reader sees it: the figures are drawn (the screenshot is far from blank
    and has the figures' colours), the per-topic charts show whiskers and the tie-span strip,
    and every chart's text is at least 11 px."""
    Image = pytest.importorskip("PIL.Image")
    text, _, _ = page
    from tiebreak.report import _CSS

    sizes = [float(x) for x in re.findall(r"svg\.topic-chart text[^{]*\{font-size:(\d+)px", _CSS)]
    assert sizes and min(sizes) >= 11
    assert text.count('class="w"') > 0 and text.count('class="span"') > 0
    opened = text.replace('<details class="per-topic">', '<details class="per-topic" open>')
    png = _chromium_screenshot(opened, tmp_path)
    im = Image.open(png).convert("RGB")
    assert im.size == (1280, 3000)
    px = np.asarray(im).reshape(-1, 3).astype(int)
    ink = (px.sum(axis=1) < 720).mean()  # not white
    assert ink > 0.03, ink
    # the range bars (#4c72b0 at 55 %), the per-topic bars (#8cc79a, #e39a9c) and the strip
    for rgb in ((140, 199, 154), (227, 154, 156), (76, 114, 176)):
        near = (np.abs(px - rgb).sum(axis=1) < 30).mean()
        assert near > 1e-4, (rgb, near)

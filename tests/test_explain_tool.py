"""The tool draws each atomicity report's cycle itself (atomgrind/report/ag_cycles.c):
--explain-dir=DIR writes DIR/cycle-N.html and .txt and the report names
them, -v puts the text lanes in the report, --xml=yes gives a <cycle>
element.  Run on the AeroDrome paper's traces rho2-rho4 as C programs
(tests/progs/paper_dead_reads.c): each picture has exactly the cycle's
transactions and edges.  The runs are sleep-paced, so they run at once."""
import concurrent.futures
import html.parser
import os
import re
import shutil
import tempfile
import unittest
import xml.etree.ElementTree as ET

from agtest import BUILD, compile_prog, tool_built, valgrind, vg_in_place

SVG = "{http://www.w3.org/2000/svg}"
T1, T2, T3 = "Thread #2", "Thread #3", "Thread #4"   # the paper's T1-T3 (main is #1)

# trace: ({transaction: thread}, [(src, dst, event text at src, event text at dst)]),
# the last edge closing the cycle at the report's event (as the trace
# tool draws tests/traces/rhoN.std, test_explain_trace.CYCLES)
CYCLES = {
    "rho2": ({"A": T1, "B": T2}, [("A", "B", "w(x)", "r(x)"), ("B", "A", "w(y)", "r(y)")]),
    "rho3": ({"A": T2, "B": T1}, [("A", "B", "w(y)", "r(y)"), ("B", "A", "w(x)", "r(x)")]),
    "rho4": ({"A": T1, "B": T2, "C": T3},
             [("A", "B", "w(x)", "r(x)"), ("B", "C", "w(y)", "r(y)"), ("C", "A", "w(z)", "r(z)")]),
}
RUNS = {}          # (trace, kind) -> (Run, explain dir)
DIRS = []


def run_one(trace, kind):
    d = tempfile.mkdtemp(prefix="ag-explain-")
    DIRS.append(d)
    exe = compile_prog("paper_dead_reads", extra=["-O2"], suffix="-O2")
    opts = {"text": ["--explain-dir=" + d, "-v"],
            "xml": ["--explain-dir=" + d, "--xml=yes", "--xml-file=" + os.path.join(d, "out.xml")],
            "small": ["-v", "--explain-window=8"],
            "plain": []}[kind]
    return valgrind(exe, "--predict=no", *opts, args=[trace]), d


def setUpModule():
    if not tool_built():
        raise AssertionError("atomgrind is not built in %s" % BUILD)
    compile_prog("paper_dead_reads", extra=["-O2"], suffix="-O2")
    jobs = [(t, k) for t in CYCLES for k in ("text", "xml")] + [("rho2", "small"), ("rho2", "plain")]
    with concurrent.futures.ThreadPoolExecutor(len(jobs)) as ex:
        for job, res in zip(jobs, ex.map(lambda j: run_one(*j), jobs)):
            RUNS[job] = res


def tearDownModule():
    for d in DIRS:
        shutil.rmtree(d, ignore_errors=True)


def svg_cycle(root):
    """({name: thread}, [(src, dst, text at from, text at to)], {name: [event texts]})
    of an SVG picture, checking each edge's ends lie in its transactions."""
    txns, events, where = {}, {}, {}
    for g in root.iter(SVG + "g"):
        if g.get("class") == "txn":
            txns[g.get("data-name")] = g.get("data-thread")
            for t in g.iter(SVG + "text"):
                if t.get("class") == "event":
                    events[t.get("data-index")] = t.text
                    where[t.get("data-index")] = g.get("data-name")
    edges = []
    for l in root.iter(SVG + "line"):
        if l.get("class") == "edge":
            assert where[l.get("data-from")] == l.get("data-src"), l.attrib
            assert where[l.get("data-to")] == l.get("data-dst"), l.attrib
            edges.append((l.get("data-src"), l.get("data-dst"), events[l.get("data-from")],
                          events[l.get("data-to")]))
    by_txn = {}
    for i in sorted(events, key=int):
        by_txn.setdefault(where[i], []).append(events[i])
    return txns, edges, by_txn


def text_cycle(text):
    """({name: thread}, [(src, dst, op, op)]) of the text picture."""
    txns = {m[0]: m[1] for m in re.findall(r"(?m)^  ([A-Z])  (Thread #\d+)  events \d+-\d+  "
                                           r"atomic region$", text)}
    edges = re.findall(r"(?m)^  \d+  ([A-Z]) -> ([A-Z])  (\S+) event \d+ -> (\S+) event \d+", text)
    return txns, [tuple(e) for e in edges]


class ExplainDir(unittest.TestCase):

    def test_files_hold_the_cycle(self):
        for trace, (txns, edges) in CYCLES.items():
            with self.subTest(trace=trace):
                run, d = RUNS[(trace, "text")]
                self.assertEqual((run.errors, run.contexts), (1, 1), run)
                html_path, txt_path = os.path.join(d, "cycle-1.html"), os.path.join(d, "cycle-1.txt")
                self.assertIn("The cycle is drawn in %s (and as text in %s)" % (html_path, txt_path),
                              run.text)
                page = open(html_path).read()
                tags = []

                class P(html.parser.HTMLParser):
                    def handle_starttag(self, tag, attrs):
                        tags.append(tag)
                P().feed(page)
                self.assertEqual(tags[:2], ["html", "head"])
                svg = ET.fromstring(page[page.index("<svg"):page.index("</svg>") + 6])
                got_t, got_e, by_txn = svg_cycle(svg)
                self.assertEqual(got_t, txns)
                self.assertEqual(got_e, edges)
                for name in txns:      # whole regions: begin ... end, or the report's event
                    self.assertEqual(by_txn[name][0], "begin", by_txn[name])
                self.assertEqual(text_cycle(open(txt_path).read()), (txns, edges))

    def test_verbose_report_has_the_lanes(self):
        for trace in CYCLES:
            with self.subTest(trace=trace):
                run, d = RUNS[(trace, "text")]
                text = run.text
                start = text.index("The cycle, a lane per thread")
                lanes = text[start:text.index("(closes the cycle)", start)]
                header = lanes.splitlines()[1]
                self.assertTrue(header.strip().startswith("event"), header)
                for thread in CYCLES[trace][0].values():
                    self.assertIn(thread, header)
                # the same picture as the file
                txt = open(os.path.join(d, "cycle-1.txt")).read()
                self.assertIn(txt.rstrip("\n").replace(" \n", "\n"),
                              text.replace(" \n", "\n"))

    def test_xml_carries_the_cycle(self):
        for trace, (txns, edges) in CYCLES.items():
            with self.subTest(trace=trace):
                run, d = RUNS[(trace, "xml")]
                root = ET.parse(os.path.join(d, "out.xml")).getroot()
                errors = [e for e in root.iter("error") if e.findtext("kind") == "Atomicity"]
                self.assertEqual(len(errors), 1)
                # no element of the cycle passes for one of Valgrind's
                self.assertEqual([k.text for k in root.iter("kind")], ["Atomicity"])
                cyc = errors[0].find("cycle")
                got_t, ops, by_txn = {}, {}, {}
                for t in cyc.findall("transaction"):
                    got_t[t.findtext("name")] = t.findtext("thread")
                    self.assertEqual(t.findtext("region"), "yes")
                    for ev in t.findall("event"):
                        ops[ev.findtext("index")] = ev.findtext("text")
                        by_txn.setdefault(t.findtext("name"), []).append(ev.findtext("op"))
                got_e = [(e.findtext("src"), e.findtext("dst"), ops[e.findtext("from")],
                          ops[e.findtext("to")]) for e in cyc.findall("edge")]
                self.assertEqual(got_t, txns)
                self.assertEqual(got_e, edges)
                self.assertEqual([e.findtext("closes") for e in cyc.findall("edge")],
                                 [None] * (len(edges) - 1) + ["yes"])
                self.assertEqual(by_txn["A"][0], "begin")
                self.assertEqual(errors[0].find("cyclefile").findtext("html"),
                                 os.path.join(d, "cycle-1.html"))

    def test_cycle_outside_the_window(self):
        run, _ = RUNS[("rho2", "small")]
        self.assertEqual((run.errors, run.contexts), (1, 1), run)
        self.assertIn("The cycle was not found among the last 8 events (--explain-window)", run.text)
        self.assertNotIn("The cycle, a lane per thread", run.text)

    def test_nothing_by_default(self):
        run, _ = RUNS[("rho2", "plain")]
        self.assertEqual((run.errors, run.contexts), (1, 1), run)
        self.assertNotIn("The cycle", run.text)

    def test_html_drawn_in_browser(self):
        # Chromium lays out what the SVG says (test_explain_browser's probe)
        import test_explain_browser
        _, d = RUNS[("rho4", "text")]
        page = open(os.path.join(d, "cycle-1.html")).read()
        svg = ET.fromstring(page[page.index("<svg"):page.index("</svg>") + 6])
        txns = {g.get("data-name"): (g.get("data-thread"), int(g.get("data-first")),
                                     int(g.get("data-last")))
                for g in svg.iter(SVG + "g") if g.get("class") == "txn"}
        edges = [(l.get("data-src"), l.get("data-dst"), int(l.get("data-from")),
                  int(l.get("data-to"))) for l in svg.iter(SVG + "line") if l.get("class") == "edge"]
        self.assertEqual(len(edges), 3)
        test_explain_browser.ExplainInBrowser.check(
            self, "rho4", test_explain_browser.layout(page, "html"), (txns, edges))

    def test_bad_directory(self):
        p = vg_in_place("--tool=atomgrind", "--explain-dir=/nonexistent/ag", "/bin/true")
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("atomgrind: --explain-dir: '/nonexistent/ag' is not a directory", p.stdout)
        p = vg_in_place("--tool=atomgrind", "--explain-dir=/tmp", "--check=races", "/bin/true")
        self.assertNotEqual(p.returncode, 0)
        self.assertIn("it needs --check=atomicity or all", p.stdout)


if __name__ == "__main__":
    unittest.main()

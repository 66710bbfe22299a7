"""atomgrind-trace --explain=N (built with ASan+UBSan): the cycle behind a report of a trace, as
text (a lane per thread), DOT, SVG and HTML.  For the papers' traces
rho2-rho4 (and a lock-closed one) the picture holds exactly the cycle's
transactions and edges; the SVG is read with a real XML parser."""
import html.parser
import os
import re
import subprocess
import unittest
import xml.etree.ElementTree as ET

from agtest import HERE
from test_trace_tool import tool

TRACES = os.path.join(HERE, "traces")
TOOL = None


def setUpModule():
    # the sanitized host build test_trace_tool uses (ASan, UBSan)
    global TOOL
    TOOL = tool()
SVG = "{http://www.w3.org/2000/svg}"

# trace: ({transaction: (thread, first, last)}, [(src, dst, from event, to event)]),
# the last edge closing the cycle at the report's event
CYCLES = {
    "rho2": ({"A": ("T1", 1, 6), "B": ("T2", 2, 5)},
             [("A", "B", 3, 4), ("B", "A", 5, 6)]),
    "rho3": ({"A": ("T2", 2, 6), "B": ("T1", 1, 5)},
             [("A", "B", 4, 5), ("B", "A", 3, 6)]),
    "rho4": ({"A": ("T1", 1, 11), "B": ("T2", 3, 6), "C": ("T3", 7, 10)},
             [("A", "B", 2, 5), ("B", "C", 4, 8), ("C", "A", 9, 11)]),
    # check-then-act under a lock: T2's write and its release (unary
    # transactions outside any region) lie on the cycle
    "locks": ({"A": ("T1", 1, 8), "B": ("T2", 6, 6), "C": ("T2", 7, 7)},
              [("A", "B", 3, 6), ("B", "C", 6, 7), ("C", "A", 7, 8)]),
}


def explain(trace, *opts):
    return subprocess.run([TOOL, "--explain=1", *opts, os.path.join(TRACES, trace + ".std")],
                          capture_output=True, text=True, timeout=60)


class ExplainTrace(unittest.TestCase):

    def test_text(self):
        for name, (txns, edges) in CYCLES.items():
            with self.subTest(trace=name):
                p = explain(name)
                self.assertEqual(p.returncode, 1, p.stderr)
                got_t = {m[0]: (m[1], int(m[2]), int(m[3])) for m in
                         re.findall(r"(?m)^  ([A-Z])  (\S+)  lines (\d+)-(\d+)", p.stdout)}
                got_e = [(m[0], m[1], int(m[2]), int(m[3])) for m in
                         re.findall(r"(?m)^  \d+  ([A-Z]) -> ([A-Z])  \S+ line (\d+) -> \S+ line (\d+)",
                                    p.stdout)]
                self.assertEqual(got_t, txns, p.stdout)
                self.assertEqual(got_e, edges, p.stdout)
                self.assertIn("(closes the cycle)", p.stdout.splitlines()[-1])
                # a lane per thread: each event row's text sits in its thread's column
                header = next(l for l in p.stdout.splitlines() if l.strip().startswith("line"))
                cols = {t: header.index(t) for t, _, _ in txns.values()}
                lanes = p.stdout[p.stdout.index(header):p.stdout.index("Transactions:")]
                for line in lanes.splitlines()[1:]:
                    m = re.match(r"^ {0,7}(\d+)( +)([A-Z]) ", line)
                    self.assertTrue(m, line)
                    if m:
                        thread = txns[m.group(3)][0]
                        self.assertEqual(m.start(3), cols[thread], line)

    def test_svg(self):
        for name, (txns, edges) in CYCLES.items():
            with self.subTest(trace=name):
                p = explain(name, "--format=svg")
                self.assertEqual(p.returncode, 1, p.stderr)
                root = ET.fromstring(p.stdout)
                self.assertEqual(root.tag, SVG + "svg")
                got_t = {g.get("data-name"): (g.get("data-thread"), int(g.get("data-first")),
                                              int(g.get("data-last")))
                         for g in root.iter(SVG + "g") if g.get("class") == "txn"}
                got_e = [(l.get("data-src"), l.get("data-dst"), int(l.get("data-from")),
                          int(l.get("data-to")))
                         for l in root.iter(SVG + "line") if l.get("class") == "edge"]
                self.assertEqual(got_t, txns)
                self.assertEqual(got_e, edges)
                closing = [l for l in root.iter(SVG + "line") if l.get("data-closes")]
                self.assertEqual(len(closing), 1)
                # every event of a cycle transaction is drawn in it, and nothing else
                for g in root.iter(SVG + "g"):
                    if g.get("class") == "txn":
                        idx = [int(t.get("data-index")) for t in g.iter(SVG + "text")
                               if t.get("class") == "event"]
                        self.assertTrue(all(int(g.get("data-first")) <= i <= int(g.get("data-last"))
                                            for i in idx), idx)
                        self.assertIn(int(g.get("data-first")), idx)

    def test_dot_and_html(self):
        p = explain("rho4", "--format=dot")
        self.assertEqual(p.returncode, 1, p.stderr)
        self.assertEqual(sorted(re.findall(r"subgraph cluster_([A-Z])", p.stdout)), ["A", "B", "C"])
        self.assertEqual(re.findall(r"e(\d+) -> e(\d+) \[color=red", p.stdout),
                         [("2", "5"), ("4", "8"), ("9", "11")])
        p = explain("rho4", "--format=html")
        self.assertEqual(p.returncode, 1, p.stderr)
        tags = []

        class P(html.parser.HTMLParser):
            def handle_starttag(self, tag, attrs):
                tags.append(tag)
        P().feed(p.stdout)
        self.assertEqual(tags[:2], ["html", "head"])
        self.assertIn("svg", tags)
        self.assertIn("pre", tags)
        # the SVG inside is well-formed XML
        svg = p.stdout[p.stdout.index("<svg"):p.stdout.index("</svg>") + 6]
        ET.fromstring(svg)

    def test_bad_requests(self):
        p = explain("rho2", "--format=png")
        self.assertEqual(p.returncode, 2)
        self.assertIn("--format must be text, dot, svg or html", p.stderr)
        p = subprocess.run([TOOL, "--explain=2", os.path.join(TRACES, "rho2.std")],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("the trace has 1 report", p.stderr)
        p = subprocess.run([TOOL, "--explain=x", os.path.join(TRACES, "rho2.std")],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("--explain wants a report number", p.stderr)
        p = subprocess.run([TOOL, "--explain=1", "--check=races", os.path.join(TRACES, "rho2.std")],
                           capture_output=True, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertIn("needs an atomicity engine", p.stderr)


if __name__ == "__main__":
    unittest.main()

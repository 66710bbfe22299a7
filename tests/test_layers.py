"""The tool's front end depends one way, as DRD's does: each file may call
only files in layers below its own, so nothing calls back up and no call
cycle can form.  Checked on the built objects' symbol references (nm), so
it sees what the code does, not what the headers say."""
import glob
import os
import subprocess
import unittest

from agtest import BUILD, REPO, tool_built

# Top to bottom.  A new front-end file takes its place here.
LAYERS = [
    ["ag_main"],                                            # wiring
    ["ag_clientreq", "ag_instrument", "ag_replace_malloc"],  # what the program does
    ["ag_spec"],                                            # regions as long as frames
    ["ag_spin", "ag_deadload"],                             # IR and code analysis for instrumentation
    ["ag_sync"],                                            # sync objects
    ["ag_threads"],                                         # threads
    ["ag_shared"],                                          # which accesses are points
    ["ag_sched"],                                           # who runs next
    ["ag_analysis"],                                        # engines and their events
    ["ag_errors", "ag_record"],                             # reports, traces
    ["ag_cycles"],                                          # reports' cycles, drawn
    ["ag_fnspec"],                                          # which functions are atomic
    ["ag_objects", "ag_options", "ag_syncinfo", "ag_history", "ag_inline",
     "ag_locksets", "ag_blocks", "ag_threadinfo"], # facts everyone reads
    ["ag_tidarray"],                                        # per-thread arrays
    ["engine"],                                             # atomgrind/engine/*.c
    ["ag_shim_vg"],                                         # the engines' Valgrind shim
]


def tool_objects():
    """The tool's objects in the build whose source still exists (a
    renamed file leaves its old object behind)."""
    objs = []
    for sub in ("", "engine"):
        for o in glob.glob(os.path.join(BUILD, "atomgrind", sub, "*amd64_linux-ag_*.o")):
            src = os.path.basename(o).split("-", 1)[1][:-2] + ".c"
            if os.path.exists(os.path.join(REPO, "atomgrind", sub, src)):
                objs.append(o)
    return objs


def _symbols(obj):
    """(defined, undefined) global symbol names of an object file."""
    out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
    defined, undefined = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            undefined.add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDBR":
            defined.add(parts[2])
    return defined, undefined


def unit_of(obj):
    """The layer unit an object belongs to: its source's name, or 'engine'."""
    if os.sep + "engine" + os.sep in obj:
        return "engine"
    return os.path.basename(obj).split("-", 1)[1][:-2]


def dependencies(objs):
    """{unit: set of units it references}, from the objects' symbols."""
    owner, refs = {}, {}
    for obj in objs:
        u = unit_of(obj)
        d, r = _symbols(obj)
        for s in d:
            owner[s] = u
        refs.setdefault(u, set()).update(r)
    return {u: {owner[s] for s in r if s in owner and owner[s] != u} for u, r in refs.items()}


def find_cycle(deps):
    """A list of units forming a call cycle, or None."""
    state = {}
    def visit(u, path):
        state[u] = 1
        for v in sorted(deps.get(u, ())):
            if state.get(v) == 1:
                return path[path.index(v):] + [v]
            if v not in state:
                c = visit(v, path + [v])
                if c:
                    return c
        state[u] = 2
        return None
    for u in sorted(deps):
        if u not in state:
            c = visit(u, [u])
            if c:
                return c
    return None


def upward_calls(deps, layers):
    """Calls from a unit to one in its own or a higher layer."""
    rank = {u: i for i, layer in enumerate(layers) for u in layer}
    return sorted((u, v) for u, vs in deps.items() for v in vs if rank[v] <= rank[u])


class CheckerSelfTest(unittest.TestCase):
    def test_finds_a_cycle(self):
        self.assertEqual(find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}), ["a", "b", "c", "a"])
        self.assertIsNone(find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}))

    def test_finds_an_upward_call(self):
        self.assertEqual(upward_calls({"a": {"b"}, "b": {"a"}}, [["a"], ["b"]]), [("b", "a")])


@unittest.skipUnless(tool_built(), "the tool is not built")
class Layers(unittest.TestCase):
    def setUp(self):
        self.deps = dependencies(tool_objects())

    def test_every_file_has_a_layer(self):
        known = {u for layer in LAYERS for u in layer}
        self.assertEqual(sorted(set(self.deps) - known), [],
                         "front-end files missing from LAYERS in tests/test_layers.py")

    def test_no_cycle(self):
        self.assertIsNone(find_cycle(self.deps))

    def test_calls_go_down(self):
        self.assertEqual(upward_calls(self.deps, LAYERS), [])


if __name__ == "__main__":
    unittest.main()

"""The tool's front end depends one way, as DRD's does: each file may call
only files in layers below its own, so nothing calls back up and no call
cycle can form.  Checked on the built objects' symbol references (nm), so
it sees what the code does, not what the headers say.  The engine folder
is layered the same way, within itself; and every source must have its
object, so that a build the test cannot see fails instead of passing."""
import glob
import os
import subprocess
import unittest

from agtest import BUILD, REPO, tool_built

# Top to bottom.  A new front-end file takes its place here.
LAYERS = [
    ["ag_main"],                                            # wiring
    ["ag_clientreq", "ag_instrument", "ag_replace_malloc", "ag_fd"],  # what the program does
    ["ag_spec"],                                            # where frames and inlined code begin and end
    ["ag_regions"],                                         # the one owner of regions
    ["ag_spin", "ag_poll", "ag_deadload", "ag_provenance", "ag_atomictypes"],  # IR and code analysis for instrumentation, polling loops as they run
    ["ag_deadlock"],                                        # who waits for whom
    ["ag_sync"],                                            # sync objects
    ["ag_barrier"],                                         # barriers
    ["ag_lockorder"],                                       # lock acquisition order
    ["ag_threads"],                                         # threads
    ["ag_shared"],                                          # which accesses are points
    ["ag_sched"],                                           # who runs next
    ["ag_schedlearn"],                                      # race sites kept between runs
    ["ag_analysis"],                                        # engines and their events
    ["ag_dcl", "ag_stdio", "ag_handoff"],                   # check-lock-recheck's held loads, stdio's locks, the owner table's happens-before
    ["ag_errors", "ag_record"],                             # reports, traces
    ["ag_lockerrors"],                                      # deadlock and lock-order reports
    ["ag_cycles"],                                          # reports' cycles, drawn
    ["ag_stacks"],                                          # reports' stacks, -flto's inlined frames named
    ["ag_instances"],                                       # inlined instances of atomic functions
    ["ag_fnspec"],                                          # which functions are atomic
    ["ag_objects", "ag_options", "ag_syncinfo", "ag_history",
     "ag_locksets", "ag_blocks", "ag_threadinfo", "ag_defsupp", "ag_callsite", "ag_inline"], # facts everyone reads
    ["ag_ltonames"],                                        # names of inlined code Valgrind cannot read (-flto, Clang)
    ["ag_elf"],                                             # sections of an object's ELF file
    ["ag_threadrec"],                                       # one record per thread
    ["engine"],                                             # atomgrind/engine/*.c
    ["ag_shim_vg"],                                         # the engines' Valgrind shim
]


# The engine folder, top to bottom.  A new engine file takes its place here.
ENGINE_LAYERS = [
    ["ag_registry"],                                        # the engines there are, by name
    ["ag_aerodrome", "ag_atomsan", "ag_velodrome", "ag_fasttrack", "ag_predict"],  # engines
    ["ag_engine"],                                          # the dispatcher, which engines report through
    ["ag_schedrace"],                                       # the scheduler's race-directed postponement
    ["ag_explain_core", "ag_sampler", "ag_tracefmt", "ag_schedpol", "ag_schedwake",
     "ag_hbtags"],                                          # explanations, RPT, traces, the scheduler's policy, wake accounting and hand-overs
    ["ag_shadow"],                                          # shadow memory
    ["ag_map", "ag_slab"],                                  # tables, allocation
]

# The front end's folders (atomgrind/README.md says what each holds): a
# new file goes into one of them, never beside ag_main.c.
FOLDERS = ["events", "regions", "sched", "threads", "analysis", "report", "engine"]
TOP_FILES = {"ag_main.c", "ag_options.c"}

# Sources that are not the tool's: the preload library, the host shim.
NOT_TOOL = {"ag_intercepts.c", "ag_strmem.c", "ag_shim_host.c"}


def tool_sources():
    """The tool's C files, relative to atomgrind/."""
    top = os.path.join(REPO, "atomgrind")
    return sorted(os.path.relpath(f, top) for f in glob.glob(os.path.join(top, "**", "ag_*.c"),
                                                             recursive=True)
                  if os.path.basename(f) not in NOT_TOOL)


def object_source(obj):
    """The source an object was built from, relative to atomgrind/."""
    rel = os.path.relpath(os.path.dirname(obj), os.path.join(BUILD, "atomgrind"))
    return os.path.normpath(os.path.join(rel, os.path.basename(obj).split("-", 1)[1][:-2] + ".c"))


def tool_objects():
    """The tool's objects in the build whose source still exists (a
    renamed file leaves its old object behind)."""
    srcs = set(tool_sources())
    return [o for o in glob.glob(os.path.join(BUILD, "atomgrind", "**", "*amd64_linux-ag_*.o"),
                                 recursive=True) if object_source(o) in srcs]


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


def is_engine(obj):
    return os.sep + "engine" + os.sep in obj


def file_unit(obj):
    return os.path.basename(obj).split("-", 1)[1][:-2]


def unit_of(obj):
    """The layer unit an object belongs to: its source's name, or 'engine'."""
    return "engine" if is_engine(obj) else file_unit(obj)


def dependencies(objs, unit=unit_of):
    """{unit: set of units it references}, from the objects' symbols."""
    owner, refs = {}, {}
    for obj in objs:
        u = unit(obj)
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
    return sorted((u, v) for u, vs in deps.items() for v in vs
                  if v in rank and u in rank and rank[v] <= rank[u])


class CheckerSelfTest(unittest.TestCase):
    def test_finds_a_cycle(self):
        self.assertEqual(find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}), ["a", "b", "c", "a"])
        self.assertIsNone(find_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()}))

    def test_finds_an_upward_call(self):
        self.assertEqual(upward_calls({"a": {"b"}, "b": {"a"}}, [["a"], ["b"]]), [("b", "a")])

    def test_the_old_registry_fails(self):
        # the registry back in the dispatcher: it names the engines, which
        # report through it -- a cycle, and a call up
        old = {"ag_engine": {"ag_fasttrack", "ag_shadow"}, "ag_fasttrack": {"ag_engine"}}
        self.assertEqual(find_cycle(old), ["ag_engine", "ag_fasttrack", "ag_engine"])
        self.assertEqual(upward_calls(old, ENGINE_LAYERS), [("ag_engine", "ag_fasttrack")])


@unittest.skipUnless(tool_built(), "the tool is not built")
class Layers(unittest.TestCase):
    def setUp(self):
        self.deps = dependencies(tool_objects())

    def test_every_source_has_its_object(self):
        # (no objects found -- a build elsewhere, renamed objects -- used
        # to pass every check below, vacuously)
        built = {object_source(o) for o in tool_objects()}
        self.assertEqual([s for s in tool_sources() if s not in built], [],
                         "sources without an object in %s" % BUILD)
        self.assertGreaterEqual(len(built), 30)

    def test_every_file_is_in_a_folder(self):
        self.assertEqual([s for s in tool_sources()
                          if os.path.dirname(s).split(os.sep)[0] not in FOLDERS
                          and s not in TOP_FILES], [],
                         "front-end files outside atomgrind/{%s}" % ",".join(FOLDERS))

    def test_every_file_has_a_layer(self):
        known = {u for layer in LAYERS for u in layer}
        self.assertEqual(sorted(set(self.deps) - known), [],
                         "front-end files missing from LAYERS in tests/test_layers.py")

    def test_no_cycle(self):
        self.assertIsNone(find_cycle(self.deps))

    def test_calls_go_down(self):
        self.assertEqual(upward_calls(self.deps, LAYERS), [])


@unittest.skipUnless(tool_built(), "the tool is not built")
class EngineLayers(unittest.TestCase):
    def setUp(self):
        objs = [o for o in tool_objects() if is_engine(o)]
        self.deps = dependencies(objs, file_unit)
        # calls out of the engine (the shim) are not the engine's layering
        self.deps = {u: vs & set(self.deps) for u, vs in self.deps.items()}

    def test_every_engine_file_has_a_layer(self):
        known = {u for layer in ENGINE_LAYERS for u in layer}
        self.assertEqual(sorted(set(self.deps) - known), [],
                         "engine files missing from ENGINE_LAYERS in tests/test_layers.py")

    def test_engine_calls_go_down(self):
        # no exception: the dispatcher calls the engines through their ops
        # only, and the registry that names them sits above them
        self.assertEqual(upward_calls(self.deps, ENGINE_LAYERS), [])

    def test_no_cycle_among_engine_files(self):
        self.assertIsNone(find_cycle(self.deps))

    def test_the_registry_is_found(self):
        # (a check that sees no registry, or no engine calling the
        # dispatcher, would pass without checking the cycle it guards)
        self.assertIn("ag_registry", self.deps)
        self.assertIn("ag_engine", self.deps["ag_fasttrack"])
        self.assertIn("ag_fasttrack", self.deps["ag_registry"])


if __name__ == "__main__":
    unittest.main()

"""What the rewrite families share: a kernel parameter, an instance (a
before kernel, its equivalent rewrite and the rewrite's mutants), launch
specs and the small helpers the templates use."""
import re

KERNEL = "kern"
ONE_D = ("blockDim.y == 1 && blockDim.z == 1 && gridDim.y == 1 && "
         "gridDim.z == 1")


class Param:
    """A kernel parameter: an input or output array of `ctype` with `size`
    elements (a C++ expression over gx, gy, gz, bx, by, bz and the scalar
    parameters), or an int scalar."""

    def __init__(self, name, kind, ctype="int", size=None):
        assert kind in ("in", "out", "scalar")
        self.name, self.kind, self.ctype, self.size = name, kind, ctype, size

    def decl(self):
        if self.kind == "scalar":
            return "int %s" % self.name
        const = "const " if self.kind == "in" else ""
        return "%s%s *%s" % (const, self.ctype, self.name)


def parse_launch(spec):
    """The six C expressions (gridDim x y z, blockDim x y z) of a launch
    `grid=(X, Y, Z) block=(X, Y, Z)`; a dimension left out is 1."""
    dims = ["1"] * 6
    for key, val in re.findall(r"(grid|block)=(\([^=]*\)|\S+)", spec):
        if val.startswith("("):
            val = val[1:-1]
        parts, depth, cur = [], 0, ""
        for ch in val:
            depth += ch == "("
            depth -= ch == ")"
            if ch == "," and depth == 0:
                parts.append(cur)
                cur = ""
            else:
                cur += ch
        parts.append(cur)
        off = 0 if key == "grid" else 3
        for i, p in enumerate(parts):
            dims[off + i] = p.strip()
    return dims


class Instance:
    def __init__(self, family, name, params, assume, sample_launch,
                 before, after, mutants, desc, notes="", launches=None,
                 launch_mutants=()):
        self.family, self.name = family, name
        self.params, self.assume = params, assume
        self.sample_launch = sample_launch   # rng -> (grid, block, scalars)
        self.desc, self.notes = desc, notes
        self.sources = {"before": before, "after": after}
        self.mutations = {}                  # variant -> label
        # Each variant's own launch ({"before": spec, "after": spec}), or
        # None: one launch for all.
        self.launches = dict(launches) if launches else None
        for label, old, new in mutants:
            # Each edit must hit exactly one place, or the label would lie.
            assert after.count(old) == 1, (family, name, label, old)
            var = "mut-" + label.split(":")[0].replace(" ", "-")
            assert var not in self.sources, var
            self.sources[var] = after.replace(old, new)
            self.mutations[var] = label
            if self.launches:
                self.launches[var] = self.launches["after"]
        # Mutants of the after kernel's launch, its source kept.
        for label, spec in launch_mutants:
            var = "mut-" + label.split(":")[0].replace(" ", "-")
            assert var not in self.sources, var
            self.sources[var] = after
            self.mutations[var] = label
            self.launches[var] = spec

    def launch_of(self, variant):
        return self.launches[variant] if self.launches else None

    def signature(self):
        return ", ".join(p.decl() for p in self.params)

    def source(self, variant):
        return self.sources[variant]


def header(ctype, defines, comment):
    lines = ["// " + comment]
    lines += ["#define %s %s" % d for d in defines]
    return "\n".join(lines) + "\n\n"


def f_of(ctype, e):
    """The per-element function of the map-like families."""
    if ctype == "float":
        return "%s * 3.0f + 1.0f" % e
    return "%s * 3 + 1" % e


def size_or_param(rng, literal_choices, literal):
    """A size that is a #define (literal: returns its value) or a kernel int
    parameter (returns None)."""
    return rng.choice(literal_choices) if literal else None


def axis(idx, options, div=1):
    """The structural choices cycle with the instance number (a mixed-radix
    digit of idx), so that a few instances per family already cover the
    forms; the remaining parameters are drawn at random."""
    return options[idx // div % len(options)]

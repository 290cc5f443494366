"""Kernel-pair rewrite families for utils/gen-families.py and
utils/bench-families.py.

An *instance* is one family template instantiated with random parameters
(element type, sizes as literals or kernel parameters, tile and block
shapes, per-thread counts). It holds a `before` kernel, an equivalent
`after` kernel, and mutants of `after`, each made by one labelled textual
edit that is meant to break it. All kernels are named `kern` and share one
parameter list and one launch constraint (`assume`, in kvalidate's
`--assume` syntax), and `sample_launch` draws small launches that satisfy
it, for the host runs that give the ground truth (groundtruth.py). A family
whose rewrite changes the launch gives each variant a launch of its own
(`launches`, in kvalidate's --launch-before/--launch-after syntax, over the
scalars); its `assume` then constrains the scalars alone.
"""
import random

from common import KERNEL, ONE_D, Instance, Param, parse_launch  # noqa: F401
from layout import fam_coalesce, fam_coarsen, fam_relaunch, fam_tiling
from loops import (fam_double_buffer, fam_privatize, fam_register_block,
                   fam_shuffle, fam_unroll)


FAMILIES = {
    "relaunch": fam_relaunch,
    "tiling": fam_tiling,
    "coalesce": fam_coalesce,
    "coarsen": fam_coarsen,
    "unroll": fam_unroll,
    "shuffle": fam_shuffle,
    "privatize": fam_privatize,
    "double-buffer": fam_double_buffer,
    "register-block": fam_register_block,
}


def generate(families, count, seed):
    """count instances of each family; reproducible from seed (each family
    draws from its own stream, so --families does not change the others)."""
    out = []
    for fam in families:
        rng = random.Random("%s/%s" % (seed, fam))
        for i in range(count):
            out.append(FAMILIES[fam](rng, i))
    return out

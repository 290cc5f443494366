# -*- Python -*-
# lit configuration of the GoogleTest unit tests (KVUnitTests): every gtest
# test is one lit test.
#
#   lit build/test/unit   (build/test/unit/lit.site.cfg.py, written by CMake)
#   lit build/test        (the whole suite; this one is nested in it)

import os

import lit.formats

config.name = "kvalidate-unit"
config.test_format = lit.formats.GoogleTest(".", "Tests")

# Without the site configuration (lit run on the source tree), the build
# directory is ./build next to test/, or $KV_BUILD_DIR.
if not hasattr(config, "kv_unit_dir"):
    src_root = os.path.dirname(os.path.dirname(
        os.path.dirname(os.path.abspath(__file__))))
    config.kv_obj_root = os.path.abspath(os.environ.get(
        "KV_BUILD_DIR", os.path.join(src_root, "build")))
    config.kv_unit_dir = os.path.join(config.kv_obj_root, "test", "unit")

# The executables live in the build tree: it is both the source and the
# exec root of this suite.
config.test_source_root = config.kv_unit_dir
config.test_exec_root = config.kv_unit_dir

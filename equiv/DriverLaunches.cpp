//===- DriverLaunches.cpp - each kernel at a launch of its own ------------===//
//
// --launch-before and --launch-after: each kernel's launch as expressions of
// its scalar parameters, which become assumptions on its dimensions (the
// before kernel's blockDim.x, ..., the after kernel's after.blockDim.x, ...;
// the encoder gives the after kernel, marked kAfterLaunchAttr, dimensions
// and threads of its own).
//
//===----------------------------------------------------------------------===//
#include "equiv/Driver.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;

namespace kv {

/// One launch of --launch-before/--launch-after, "grid=(E, E, E) block=(E,
/// E, E)" (a dimension left out is 1; `grid=E` is one dimension), as the
/// six expressions gridDim.x .. blockDim.z; false with \p err set.
static bool parseLaunchSpec(StringRef spec, std::string out[6],
                            std::string &err) {
  for (int i = 0; i < 6; ++i)
    out[i] = "1";
  bool seen[2] = {false, false};
  StringRef rest = spec.trim();
  if (rest.empty()) {
    err = "expected grid=(X, Y, Z) block=(X, Y, Z)";
    return false;
  }
  while (!rest.empty()) {
    auto [key, value] = rest.split('=');
    key = key.trim();
    int which = key == "grid" ? 0 : key == "block" ? 1 : -1;
    if (which < 0 || value.empty()) {
      err = "expected grid=(X, Y, Z) and block=(X, Y, Z), got '" + rest.str() +
            "'";
      return false;
    }
    if (seen[which]) {
      err = key.str() + " is given twice";
      return false;
    }
    seen[which] = true;
    value = value.ltrim();
    // The value: up to the next blank outside parentheses. One
    // parenthesized group is a list of dimensions, (X, Y, Z); anything
    // else, (n+255)/256 say, is one expression.
    size_t end = 0;
    int depth = 0;
    for (; end < value.size(); ++end) {
      char c = value[end];
      depth += c == '(';
      depth -= c == ')';
      if (depth < 0 || (depth == 0 && isspace((unsigned char)c)))
        break;
    }
    if (depth != 0) {
      err = "unbalanced parentheses in " + key.str() + "=";
      return false;
    }
    StringRef tok = value.take_front(end);
    size_t close = 0;
    for (int d = 0; close < tok.size(); ++close) {
      d += tok[close] == '(';
      d -= tok[close] == ')';
      if (d == 0)
        break;
    }
    bool list = tok.starts_with("(") && close + 1 == tok.size();
    SmallVector<std::string, 3> dims;
    std::string cur;
    depth = 0;
    for (char c : list ? tok.drop_front().drop_back() : tok) {
      depth += c == '(';
      depth -= c == ')';
      if (list && c == ',' && depth == 0) {
        dims.push_back(cur);
        cur.clear();
        continue;
      }
      cur += c;
    }
    dims.push_back(cur);
    if (dims.size() > 3) {
      err = key.str() + "= has more than three dimensions";
      return false;
    }
    for (size_t i = 0; i < dims.size(); ++i) {
      StringRef d = StringRef(dims[i]).trim();
      if (d.empty()) {
        err = "an empty dimension in " + key.str() + "=";
        return false;
      }
      out[3 * which + i] = d.str();
    }
    rest = value.drop_front(end).trim();
  }
  if (!seen[0] || !seen[1]) {
    err = std::string("missing ") + (seen[0] ? "block" : "grid") + "=";
    return false;
  }
  return true;
}

bool Driver::addLaunchAssumptions(std::string &err) {
  if (opts.launchBefore.empty() && opts.launchAfter.empty())
    return true;
  if (opts.launchBefore.empty() || opts.launchAfter.empty()) {
    err = "--launch-before and --launch-after go together: each kernel's "
          "launch, or neither (the kernels then share every launch)";
    return false;
  }
  static const char *dims[] = {"gridDim.x",  "gridDim.y",  "gridDim.z",
                               "blockDim.x", "blockDim.y", "blockDim.z"};
  for (bool isAfter : {false, true}) {
    const std::string &spec = isAfter ? opts.launchAfter : opts.launchBefore;
    const char *flag = isAfter ? "--launch-after" : "--launch-before";
    std::string e[6];
    if (!parseLaunchSpec(spec, e, err)) {
      err = std::string(flag) + "='" + spec + "': " + err;
      return false;
    }
    // The expressions name the kernel's own scalars; the assumptions name
    // the before kernel's (parameters match by position).
    const std::vector<std::string> &own = isAfter ? afterNames : beforeNames;
    std::string text;
    for (int i = 0; i < 6; ++i) {
      std::string expr;
      StringRef s = e[i];
      for (size_t p = 0; p < s.size();) {
        // A number (0x1f, 256u) is copied whole; an identifier is a name.
        if (isdigit((unsigned char)s[p])) {
          while (p < s.size() && (isalnum((unsigned char)s[p]) || s[p] == '_'))
            expr += s[p++];
          continue;
        }
        if (!isalpha((unsigned char)s[p]) && s[p] != '_') {
          expr += s[p++];
          continue;
        }
        size_t q = p;
        while (q < s.size() && (isalnum((unsigned char)s[q]) || s[q] == '_'))
          ++q;
        std::string id = s.slice(p, q).str();
        if (q < s.size() && s[q] == '.') {
          err = std::string(flag) + ": '" + id +
                ".' is no parameter: a launch is an expression of the "
                "kernel's scalar parameters";
          return false;
        }
        if (!llvm::is_contained(own, id)) {
          err = std::string(flag) + ": unknown name '" + id + "' (known: the " +
                (isAfter ? "after" : "before") + " kernel's parameters " +
                llvm::join(own, ", ") + ")";
          return false;
        }
        expr += isAfter ? translateName(id, false) : id;
        p = q;
      }
      text += std::string(i ? " && " : "") + (isAfter ? "after." : "") +
              dims[i] + " == (" + expr + ")";
    }
    opts.assumptions.push_back(text);
    opts.assumptionSources[text] = std::string(flag) + "='" + spec + "'";
  }
  return true;
}

} // namespace kv

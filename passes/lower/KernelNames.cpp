//===- KernelNames.cpp - Names of kernels, parameters, places -------------===//
//
// How the lowering names things for the user: a kernel's source name, its
// parameters' names (IR names, debug info, else the definition in the
// source file), which parameters are unsigned, and source locations.
//
//===----------------------------------------------------------------------===//
#include "passes/lower/Lowerer.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/BinaryFormat/Dwarf.h"
#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/DebugProgramInstruction.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <set>

namespace kv {

bool isKernel(const llvm::Function &f) {
  return f.getCallingConv() == llvm::CallingConv::PTX_Kernel;
}

std::string lowering::variableName(llvm::StringRef mangled) {
  std::string d = llvm::demangle(mangled);
  // -O2 splits an array or struct variable into one per element (GlobalOpt:
  // `s.0`, `s.1`); a variable of one element is then `s.0`, which is `s`
  // itself, so that both kernels name it alike. (A longer `s` whose other
  // elements went away keeps its own type, which tells the two apart.)
  llvm::StringRef name(d);
  if (name.consume_back(" (.0)") || name.consume_back(".0"))
    d = name.str();
  size_t colons = d.rfind("::");
  return colons == std::string::npos ? d : d.substr(colons + 2);
}

std::string globalArrayName(llvm::StringRef mangled) {
  return lowering::variableName(mangled);
}

std::string sourceName(llvm::StringRef mangled) {
  // The demangler reads a C string (a StringRef need not end in one) and
  // keeps pointing into it.
  std::string name = mangled.str();
  llvm::ItaniumPartialDemangler d;
  if (!mangled.starts_with("_Z") || d.partialDemangle(name.c_str()))
    return name;
  char *buf = d.getFunctionName(nullptr, nullptr);
  std::string s = buf ? buf : mangled.str();
  std::free(buf);
  return s;
}

std::vector<bool> lowering::unsignedParameters(const llvm::Function &f) {
  std::vector<bool> out(f.arg_size(), false);
  if (const llvm::DISubprogram *sp = f.getSubprogram())
    if (const llvm::DISubroutineType *st = sp->getType()) {
      llvm::DITypeRefArray types = st->getTypeArray();
      // types[0] is the return type.
      if (types.size() == f.arg_size() + 1) {
        for (unsigned i = 0; i < f.arg_size(); ++i) {
          const llvm::DIType *t = types[i + 1];
          // Through typedefs (size_t) and const.
          while (auto *d = llvm::dyn_cast_or_null<llvm::DIDerivedType>(t)) {
            if (d->getTag() != llvm::dwarf::DW_TAG_typedef &&
                d->getTag() != llvm::dwarf::DW_TAG_const_type)
              break;
            t = d->getBaseType();
          }
          if (auto *bt = llvm::dyn_cast_or_null<llvm::DIBasicType>(t))
            out[i] = bt->getEncoding() == llvm::dwarf::DW_ATE_unsigned ||
                     bt->getEncoding() == llvm::dwarf::DW_ATE_unsigned_char;
        }
        return out;
      }
    }
  llvm::ItaniumPartialDemangler d;
  std::string mangled = f.getName().str();
  if (!llvm::StringRef(mangled).starts_with("_Z") ||
      d.partialDemangle(mangled.c_str()))
    return out;
  char *buf = d.getFunctionParameters(nullptr, nullptr);
  if (!buf)
    return out;
  // "(int*, unsigned int, Foo<a, b>)": split at top-level commas.
  std::string list(buf);
  std::free(buf);
  std::vector<std::string> params;
  std::string cur;
  int depth = 0;
  for (char c : llvm::StringRef(list).drop_front().drop_back()) {
    if (c == '<' || c == '(' || c == '[')
      ++depth;
    else if (c == '>' || c == ')' || c == ']')
      --depth;
    if (c == ',' && depth == 0) {
      params.push_back(llvm::StringRef(cur).trim().str());
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!llvm::StringRef(cur).trim().empty())
    params.push_back(llvm::StringRef(cur).trim().str());
  if (params.size() != f.arg_size())
    return out;
  for (unsigned i = 0; i < params.size(); ++i) {
    llvm::StringRef p = params[i];
    p.consume_back(" const");
    out[i] = !p.contains('*') && !p.contains('&') &&
             (p.starts_with("unsigned ") || p == "unsigned");
  }
  return out;
}

std::string describeLocation(const llvm::Instruction *inst, bool outermost) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (const llvm::DILocation *dl = inst->getDebugLoc().get()) {
    // After inlining, the kernel's own line is the end of the inlinedAt chain.
    if (outermost)
      while (const llvm::DILocation *at = dl->getInlinedAt())
        dl = at;
    os << dl->getFilename() << ":" << dl->getLine() << ":" << dl->getColumn();
    return s;
  }
  if (inst->getParent())
    os << sourceName(inst->getFunction()->getName()) << ": ";
  os << "`";
  inst->print(os);
  os << "`";
  return s;
}

/// Source names of the parameters from debug info (clang discards IR value
/// names by default): the DILocalVariables with an argument number, found in
/// the subprogram's retained nodes (-O1 and up) or in debug records.
static std::vector<std::string>
parameterNamesFromDebugInfo(const llvm::Function &f) {
  std::vector<std::string> names(f.arg_size());
  auto note = [&](const llvm::DILocalVariable *v) {
    if (v && v->getArg() >= 1 && v->getArg() <= names.size() &&
        v->getScope() == f.getSubprogram())
      names[v->getArg() - 1] = v->getName().str();
  };
  const llvm::DISubprogram *sp = f.getSubprogram();
  if (!sp)
    return names;
  for (const llvm::DINode *n : sp->getRetainedNodes())
    note(llvm::dyn_cast<llvm::DILocalVariable>(n));
  for (const llvm::BasicBlock &bb : f)
    for (const llvm::Instruction &i : bb)
      for (const llvm::DbgVariableRecord &r :
           llvm::filterDbgVars(i.getDbgRecordRange()))
        note(r.getVariable());
  return names;
}

/// The parameter names of the definition of \p name whose parameter list
/// starts at or after \p from in \p text: `name (` ... `) {`, the list
/// split at top-level commas, each parameter's last identifier (after
/// dropping a default value and array bounds). Empty when the text has no
/// such definition or a parameter has no name.
static std::vector<std::string> namesInDefinition(llvm::StringRef text,
                                                  llvm::StringRef name,
                                                  size_t from, size_t &next) {
  auto isId = [](char c) { return llvm::isAlnum(c) || c == '_'; };
  next = llvm::StringRef::npos;
  for (size_t at = text.find(name, from); at != llvm::StringRef::npos;
       at = text.find(name, at + 1)) {
    size_t end = at + name.size();
    if ((at > 0 && isId(text[at - 1])) ||
        (end < text.size() && isId(text[end])))
      continue;
    size_t open = end;
    while (open < text.size() && llvm::isSpace(text[open]))
      ++open;
    if (open >= text.size() || text[open] != '(')
      continue;
    // The list up to the matching parenthesis; comments become spaces.
    std::string list;
    std::vector<size_t> commas;
    int depth = 0;
    size_t i = open + 1;
    for (; i < text.size(); ++i) {
      char c = text[i];
      if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') {
        i = text.find('\n', i);
        if (i == llvm::StringRef::npos)
          return {};
        list += ' ';
        continue;
      }
      if (c == '/' && i + 1 < text.size() && text[i + 1] == '*') {
        i = text.find("*/", i + 2);
        if (i == llvm::StringRef::npos)
          return {};
        ++i;
        list += ' ';
        continue;
      }
      if (c == '(' || c == '[' || c == '<' || c == '{')
        ++depth;
      if (c == ')' || c == ']' || c == '>' || c == '}') {
        if (depth == 0)
          break;
        --depth;
      }
      if (c == ',' && depth == 0)
        commas.push_back(list.size());
      list += c;
    }
    if (i >= text.size() || text[i] != ')')
      continue;
    // A definition: the body follows (a declaration or a call does not).
    size_t body = i + 1;
    while (body < text.size() && llvm::isSpace(text[body]))
      ++body;
    if (body >= text.size() || text[body] != '{')
      continue;
    next = body;
    std::vector<std::string> names;
    llvm::StringRef all(list);
    if (all.trim().empty() || all.trim() == "void")
      return names;
    size_t start = 0;
    commas.push_back(list.size());
    for (size_t c : commas) {
      llvm::StringRef param = all.slice(start, c);
      start = c + 1;
      param = param.take_front(param.find('=')).take_front(param.find('['));
      param = param.rtrim();
      size_t idEnd = param.size(), idStart = idEnd;
      while (idStart > 0 && isId(param[idStart - 1]))
        --idStart;
      llvm::StringRef id = param.slice(idStart, idEnd);
      // The name follows a type: `int n`, `int *out`, `T &x`.
      llvm::StringRef before = param.take_front(idStart).rtrim();
      if (id.empty() || llvm::isDigit(id[0]) || before.empty() ||
          !(isId(before.back()) || before.back() == '*' ||
            before.back() == '&'))
        return {};
      names.push_back(id.str());
    }
    return names;
  }
  return {};
}

/// Source names of the parameters read from the kernel's definition in its
/// source file, for IR without value names or debug variables (clang's
/// default): at the subprogram's line when there is debug info (-g, or the
/// locations -Rpass asks for), else the one definition of that name in the
/// module's main file. Empty when that is not found, ambiguous, or does not
/// match the IR's parameter count (a macro-made parameter list).
/// The source file that defines \p f (its subprogram's, else the module's
/// main file), or null; \p line is the subprogram's line (0 without one).
static std::unique_ptr<llvm::MemoryBuffer> sourceOf(const llvm::Function &f,
                                                    unsigned &line) {
  std::string path;
  line = 0;
  if (const llvm::DISubprogram *sp = f.getSubprogram()) {
    llvm::SmallString<256> p(sp->getFilename());
    if (!llvm::sys::path::is_absolute(p) && !sp->getDirectory().empty()) {
      p = sp->getDirectory();
      llvm::sys::path::append(p, sp->getFilename());
    }
    path = p.str().str();
    line = sp->getLine();
  } else if (f.getParent()) {
    path = f.getParent()->getSourceFileName();
  }
  if (path.empty())
    return nullptr;
  auto buf = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buf || (*buf)->getBufferSize() > (64u << 20))
    return nullptr;
  return std::move(*buf);
}

/// \p text with comments made spaces (string literals are not looked at).
static std::string withoutComments(llvm::StringRef text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '/' && i + 1 < text.size() &&
        (text[i + 1] == '/' || text[i + 1] == '*')) {
      bool line = text[i + 1] == '/';
      size_t end = text.find(line ? "\n" : "*/", i + 2);
      if (end == llvm::StringRef::npos)
        break;
      i = line ? end - 1 : end + 1;
      out += ' ';
      continue;
    }
    out += text[i];
  }
  return out;
}

/// The data members of the definition `struct NAME {...}` (or `class`) in
/// \p text, one name per declarator in order (`float a, b[3];` is a, b):
/// member functions, static members, types and access labels are skipped.
/// Empty when there is no such definition, or two that differ.
static std::vector<std::string> fieldsInDefinition(llvm::StringRef text,
                                                   llvm::StringRef name) {
  auto isId = [](char c) { return llvm::isAlnum(c) || c == '_'; };
  std::optional<std::vector<std::string>> found;
  for (size_t at = text.find(name); at != llvm::StringRef::npos;
       at = text.find(name, at + 1)) {
    size_t end = at + name.size();
    if ((at > 0 && isId(text[at - 1])) ||
        (end < text.size() && isId(text[end])))
      continue;
    llvm::StringRef head = text.take_front(at).rtrim();
    if (!head.ends_with("struct") && !head.ends_with("class"))
      continue;
    size_t open = text.find_first_not_of(" \t\r\n", end);
    if (open == llvm::StringRef::npos || text[open] != '{')
      continue;
    // Declarations end at a `;` or at the `}` of a member function's body.
    std::vector<std::string> fields;
    std::string decl;
    int depth = 0;
    bool valid = true;
    size_t i = open + 1;
    auto finish = [&]() {
      llvm::StringRef d = llvm::StringRef(decl).trim();
      for (llvm::StringRef label : {"public:", "private:", "protected:"})
        if (d.starts_with(label))
          d = d.drop_front(label.size()).trim();
      decl.clear();
      if (d.empty() || d.contains('(') || d.starts_with("static ") ||
          d.starts_with("typedef ") || d.starts_with("using ") ||
          d.starts_with("friend ") || d.starts_with("struct ") ||
          d.starts_with("enum ") || d.starts_with("template"))
        return;
      llvm::SmallVector<llvm::StringRef> declarators;
      d.split(declarators, ',');
      for (llvm::StringRef one : declarators) {
        one = one.take_front(one.find('=')).take_front(one.find('['));
        one = one.take_front(one.find(':')).rtrim();
        size_t s = one.size();
        while (s > 0 && isId(one[s - 1]))
          --s;
        llvm::StringRef id = one.drop_front(s);
        if (id.empty() || llvm::isDigit(id[0])) {
          valid = false;
          return;
        }
        fields.push_back(id.str());
      }
    };
    for (; i < text.size(); ++i) {
      char c = text[i];
      if (c == '{' || c == '(' || c == '[' || c == '<')
        ++depth;
      if (c == '}' || c == ')' || c == ']' || c == '>') {
        if (depth == 0)
          break;
        if (--depth == 0 && c == '}') {
          decl.clear(); // a member function's body
          continue;
        }
      }
      if (c == ';' && depth == 0) {
        finish();
        continue;
      }
      // A template's arguments hold commas that separate no declarators.
      decl += depth && c == ',' ? ' ' : c;
    }
    if (i >= text.size() || !valid)
      continue;
    if (found && *found != fields)
      return {};
    found = fields;
  }
  return found ? *found : std::vector<std::string>();
}

FieldNames sourceFieldNames(const llvm::Function &f) {
  unsigned line;
  std::shared_ptr<llvm::MemoryBuffer> buf = sourceOf(f, line);
  if (!buf)
    return nullptr;
  auto text = std::make_shared<std::string>(withoutComments(buf->getBuffer()));
  return [text](llvm::StructType *st) -> std::vector<std::string> {
    if (!st->hasName())
      return {};
    // `struct.P`, `class.ns::P`, `struct.P.1` (a second type of that name).
    llvm::StringRef name = st->getName();
    name = name.substr(name.find('.') + 1);
    name = name.take_front(name.find('<'));
    name = name.substr(name.rfind(':') + 1);
    name = name.take_front(name.find('.'));
    if (name.empty())
      return {};
    return fieldsInDefinition(*text, name);
  };
}

static std::vector<std::string>
parameterNamesFromSource(const llvm::Function &f) {
  unsigned line;
  std::unique_ptr<llvm::MemoryBuffer> buf = sourceOf(f, line);
  if (!buf)
    return {};
  llvm::StringRef text = buf->getBuffer();
  std::string full = sourceName(f.getName());
  llvm::StringRef name(full);
  name = name.take_front(name.find('<'));
  name = name.substr(name.rfind(':') + 1);
  if (name.empty())
    return {};
  auto fits = [&](const std::vector<std::string> &v) {
    std::set<std::string> unique(v.begin(), v.end());
    return v.size() == f.arg_size() && unique.size() == v.size();
  };
  size_t next = 0;
  if (line) {
    size_t from = 0;
    for (unsigned l = 1; l < line && from != llvm::StringRef::npos; ++l) {
      from = text.find('\n', from);
      if (from != llvm::StringRef::npos)
        ++from;
    }
    if (from == llvm::StringRef::npos)
      return {};
    std::vector<std::string> v = namesInDefinition(text, name, from, next);
    return fits(v) ? v : std::vector<std::string>();
  }
  // Without a line: every definition of the name must agree.
  std::optional<std::vector<std::string>> found;
  for (size_t from = 0; from != llvm::StringRef::npos; from = next) {
    std::vector<std::string> v = namesInDefinition(text, name, from, next);
    if (next == llvm::StringRef::npos)
      break;
    if (!fits(v))
      continue;
    if (found && *found != v)
      return {};
    found = v;
  }
  return found ? *found : std::vector<std::string>();
}

std::vector<std::string> parameterNames(const llvm::Function &f) {
  std::vector<std::string> names = parameterNamesFromDebugInfo(f);
  bool unnamed = llvm::any_of(f.args(), [&](const llvm::Argument &a) {
    return a.getName().empty() && names[a.getArgNo()].empty();
  });
  if (unnamed) {
    std::vector<std::string> fromSource = parameterNamesFromSource(f);
    for (size_t i = 0; i < fromSource.size(); ++i)
      if (names[i].empty())
        names[i] = fromSource[i];
  }
  for (const llvm::Argument &a : f.args()) {
    std::string &name = names[a.getArgNo()];
    if (!a.getName().empty())
      name = a.getName().str();
    if (name.empty())
      name = "arg" + std::to_string(a.getArgNo());
  }
  return names;
}

} // namespace kv

/* A boundary that stops C++ exceptions thrown inside libmujoco before they reach Rust frames.
 *
 * Why this is not a plain try/catch: libmujoco.so.4.0.0 links LLVM's libc++, libc++abi and
 * libunwind statically, with hidden symbols. Its `__cxa_throw` starts the unwind with its own
 * private `_Unwind_RaiseException`, which walks the frames above it and calls each frame's
 * personality routine with its own private kind of context. A catch compiled by g++ names
 * libstdc++'s `__gxx_personality_v0`, which reads that context through libgcc's `_Unwind_*`
 * functions and crashes (measured: SIGSEGV in libstdc++'s personality; a Rust frame crashes the
 * same way in `rust_eh_personality`; with no such frame, libc++abi calls `std::terminate`).
 *
 * So the catching frame is written here by hand (`specula_cxx_barrier`, a few instructions of
 * assembly) and names a personality of ours that never touches the context:
 *   - for an exception of libc++abi's classes ("CLNGC++\0" and the dependent "CLNGC++\1") it
 *     answers "handler found" in the search phase; in the cleanup phase the unwinder has then run
 *     every destructor between the throw and this frame, and calls us for this frame last, where
 *     we `longjmp` back to the `setjmp` in `specula_cxx_try` instead of installing a landing pad;
 *   - for anything else (a Rust panic or specula's `mju_error` unwind, started by libgcc's
 *     unwinder) it lets the unwind continue and forgets this barrier.
 * After the jump the exception's message is read (Itanium C++ ABI type information, libc++abi's
 * header layout measured in 4.0.0's `__cxa_throw` and cleanup functions) and the exception is
 * destroyed through its own cleanup function, as a foreign catcher must.
 *
 * The functions called inside a barrier must be C (or MuJoCo itself): a Rust frame between the
 * throw and the barrier would hand the private context to `rust_eh_personality`.
 */

#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mujoco/mujoco.h>

#define HIDDEN __attribute__((visibility("hidden")))

/* The generic unwinder's exception header (the same layout for libgcc and LLVM's libunwind). */
struct unwind_exception {
  uint64_t exception_class;
  void (*exception_cleanup)(int reason, struct unwind_exception* exc);
  uintptr_t private_1;
  uintptr_t private_2;
} __attribute__((aligned));

enum {
  URC_FOREIGN_EXCEPTION_CAUGHT = 1,
  URC_HANDLER_FOUND = 6,
  URC_CONTINUE_UNWIND = 8,
};
enum { UA_SEARCH_PHASE = 1, UA_CLEANUP_PHASE = 2 };

/* libc++abi's exception classes: "CLNGC++" followed by 0 (primary) or 1 (dependent). */
static const uint64_t CXX_PRIMARY = 0x434c4e47432b2b00ULL;
static const uint64_t CXX_DEPENDENT = 0x434c4e47432b2b01ULL;

/* One live barrier; they nest through `prev` (per thread). */
struct barrier {
  jmp_buf env;
  struct barrier* prev;
  struct unwind_exception* exc;
};
static __thread struct barrier* top;

HIDDEN int specula_cxx_personality(int version, int actions, uint64_t cls, struct unwind_exception* exc,
                                   void* context) {
  (void)version;
  (void)context; /* the unwinder's private context: never read, see above */
  if (cls != CXX_PRIMARY && cls != CXX_DEPENDENT) {
    /* A foreign unwind leaves through this barrier: the frames below it are gone. */
    if ((actions & UA_CLEANUP_PHASE) && top) top = top->prev;
    return URC_CONTINUE_UNWIND;
  }
  if (actions & UA_SEARCH_PHASE) return URC_HANDLER_FOUND;
  /* Cleanup phase at the handler frame: everything between the throw and here is unwound. */
  top->exc = exc;
  longjmp(top->env, 1);
}

/* void specula_cxx_barrier(void (*fn)(void*), void* arg): calls fn(arg) in a frame whose
 * personality is specula_cxx_personality (an indirect, pc-relative pointer to it: 0x9b). */
HIDDEN void specula_cxx_barrier(void (*fn)(void*), void* arg);
__asm__(
    ".text\n"
    ".p2align 4\n"
    ".globl specula_cxx_barrier\n"
    ".hidden specula_cxx_barrier\n"
    ".type specula_cxx_barrier,@function\n"
    "specula_cxx_barrier:\n"
    ".cfi_startproc\n"
    ".cfi_personality 0x9b, .Lspecula_cxx_personality_ref\n"
    "  subq $8, %rsp\n" /* keep the stack 16-byte aligned at the call */
    ".cfi_adjust_cfa_offset 8\n"
    "  movq %rdi, %rax\n"
    "  movq %rsi, %rdi\n"
    "  callq *%rax\n"
    "  addq $8, %rsp\n"
    ".cfi_adjust_cfa_offset -8\n"
    "  retq\n"
    ".cfi_endproc\n"
    ".size specula_cxx_barrier, .-specula_cxx_barrier\n"
    ".section .data.rel.ro,\"aw\",@progbits\n"
    ".p2align 3\n"
    ".Lspecula_cxx_personality_ref:\n"
    "  .quad specula_cxx_personality\n"
    ".text\n");

/* Itanium ABI type_info: a vtable pointer and the mangled name. */
struct type_info {
  const void* vtable;
  const char* name;
};
/* __vmi_class_type_info's base entries: the base and (offset << 8 | flags). */
struct base_info {
  const struct type_info* base;
  long offset_flags;
};

/* The kind of a type_info, from the name of its own dynamic type (the vtable's RTTI slot). */
static const char* type_info_kind(const struct type_info* ti) {
  const struct type_info* const* vtable = (const struct type_info* const*)ti->vtable;
  return vtable[-1]->name;
}

/* The std::exception subobject of the object `obj` of type `ti`, or NULL if it has none (only
 * non-virtual bases are followed). */
static const void* std_exception_of(const struct type_info* ti, const char* obj, int depth) {
  if (depth > 32) return NULL;
  if (strcmp(ti->name, "St9exception") == 0) return obj;
  const char* kind = type_info_kind(ti);
  if (strcmp(kind, "N10__cxxabiv120__si_class_type_infoE") == 0) {
    const struct type_info* base = *(const struct type_info* const*)(ti + 1);
    return std_exception_of(base, obj, depth + 1);
  }
  if (strcmp(kind, "N10__cxxabiv121__vmi_class_type_infoE") == 0) {
    const char* p = (const char*)(ti + 1);
    uint32_t count = *(const uint32_t*)(p + 4);
    const struct base_info* bases = (const struct base_info*)(p + 8);
    for (uint32_t i = 0; i < count; i++) {
      if (bases[i].offset_flags & 1) continue; /* virtual base */
      const void* found = std_exception_of(bases[i].base, obj + (bases[i].offset_flags >> 8), depth + 1);
      if (found) return found;
    }
  }
  return NULL;
}

/* Writes a readable form of the mangled type name `m` ("St12length_error" -> "std::length_error";
 * nested names "N...E" the same way; anything else as it is). */
static void demangle(const char* m, char* out, size_t len) {
  char buf[256];
  size_t n = 0;
  const char* p = m;
  int nested = (*p == 'N');
  int ok = 1;
  if (nested) p++;
  buf[0] = 0;
  if (p[0] == 'S' && p[1] == 't') {
    n = (size_t)snprintf(buf, sizeof buf, "std");
    p += 2;
  }
  while (ok && *p >= '1' && *p <= '9') {
    char* end;
    long k = strtol(p, &end, 10);
    p = end;
    /* The identifier must be there in full and fit the buffer. */
    ok = k < (long)sizeof buf && memchr(p, 0, (size_t)k) == NULL;
    if (!ok) break;
    int w = snprintf(buf + n, sizeof buf - n, "%s%.*s", n ? "::" : "", (int)k, p);
    ok = w > 0 && (size_t)w < sizeof buf - n;
    n += ok ? (size_t)w : 0;
    p += k;
  }
  if (ok && n > 0 && strcmp(p, nested ? "E" : "") == 0)
    snprintf(out, len, "%s", buf);
  else
    snprintf(out, len, "%s", m);
}

/* Writes "<type>: <what()>" (or just the type) of the caught exception into msg. */
static void describe(const struct unwind_exception* exc, char* msg, size_t len) {
  /* libc++abi 4.0.0: the thrown object follows the unwind header; a dependent exception points
   * at it 0x58 bytes before its header; the type_info pointer is 0x70 bytes before the object. */
  const char* obj = exc->exception_class == CXX_PRIMARY ? (const char*)(exc + 1)
                                                        : *(const char* const*)((const char*)exc - 0x58);
  const struct type_info* ti = obj ? *(const struct type_info* const*)(obj - 0x70) : NULL;
  if (!ti) {
    snprintf(msg, len, "an unknown C++ exception");
    return;
  }
  char type[256];
  demangle(ti->name, type, sizeof type);
  const void* e = std_exception_of(ti, obj, 0);
  if (e) {
    /* std::exception's vtable: two destructor slots, then what(). */
    typedef const char* (*what_fn)(const void*);
    what_fn what = (*(what_fn const* const*)e)[2];
    const char* text = what(e);
    snprintf(msg, len, "%s: %s", type, text ? text : "");
  } else {
    snprintf(msg, len, "%s", type);
  }
}

/* Runs fn(arg) (C code or MuJoCo only) and returns 0, or 1 with the C++ exception it threw
 * described in msg (len bytes). A Rust unwind from inside passes through untouched. */
HIDDEN int specula_cxx_try(void (*fn)(void*), void* arg, char* msg, size_t len) {
  struct barrier b;
  b.prev = top;
  b.exc = NULL;
  top = &b;
  if (setjmp(b.env) == 0) {
    specula_cxx_barrier(fn, arg);
    top = b.prev;
    return 0;
  }
  top = b.prev;
  describe(b.exc, msg, len);
  /* The cleanup of a libc++abi exception destroys it only for this reason code; the uncaught
   * count __cxa_throw raised stays raised (only libc++'s ostream sentries read it). */
  if (b.exc->exception_cleanup) b.exc->exception_cleanup(URC_FOREIGN_EXCEPTION_CAUGHT, b.exc);
  return 1;
}

/* The MuJoCo calls specula makes through the boundary, one C thunk each. */

struct load_args {
  const char* file;
  const mjVFS* vfs;
  char* err;
  int err_len;
  mjModel* model;
};
static void load_thunk(void* p) {
  struct load_args* a = p;
  a->model = mj_loadXML(a->file, a->vfs, a->err, a->err_len);
}
HIDDEN int specula_load_xml(const char* file, const mjVFS* vfs, char* err, int err_len, mjModel** model, char* msg,
                            size_t len) {
  struct load_args a = {file, vfs, err, err_len, NULL};
  int r = specula_cxx_try(load_thunk, &a, msg, len);
  *model = a.model;
  return r;
}

struct make_data_args {
  const mjModel* model;
  mjData* data;
};
static void make_data_thunk(void* p) {
  struct make_data_args* a = p;
  a->data = mj_makeData(a->model);
}
HIDDEN int specula_make_data(const mjModel* model, mjData** data, char* msg, size_t len) {
  struct make_data_args a = {model, NULL};
  int r = specula_cxx_try(make_data_thunk, &a, msg, len);
  *data = a.data;
  return r;
}

struct md_args {
  void (*f)(const mjModel*, mjData*);
  void (*fi)(const mjModel*, mjData*, int);
  const mjModel* m;
  mjData* d;
  int i;
};
static void md_thunk(void* p) {
  struct md_args* a = p;
  if (a->f)
    a->f(a->m, a->d);
  else
    a->fi(a->m, a->d, a->i);
}
/* f(m, d) for a MuJoCo function f such as mj_step or mj_forward. */
HIDDEN int specula_call_md(void (*f)(const mjModel*, mjData*), const mjModel* m, mjData* d, char* msg, size_t len) {
  struct md_args a = {f, NULL, m, d, 0};
  return specula_cxx_try(md_thunk, &a, msg, len);
}
/* f(m, d, i) for a MuJoCo function f such as mj_resetDataKeyframe. */
HIDDEN int specula_call_mdi(void (*f)(const mjModel*, mjData*, int), const mjModel* m, mjData* d, int i, char* msg,
                            size_t len) {
  struct md_args a = {NULL, f, m, d, i};
  return specula_cxx_try(md_thunk, &a, msg, len);
}

// What the parts of LuaGuest share with each other and not with Swift: named `moonblade_*`, as what
// Swift calls is. What a file keeps to itself is `static` and unprefixed, as in Lua's own C (lstrlib.c's
// `str_find`, `push_captures`): the string library's stand-ins are `str_*` there too.

#ifndef MOONBLADE_LUA_GUEST_INTERNAL_H
#define MOONBLADE_LUA_GUEST_INTERNAL_H

#include "LuaGuest.h"
#include <lua5.4/lauxlib.h>

/// Registry key of the weak-keyed set of coroutines a limit stopped.
extern const char moonblade_stopped_threads_key[];

/// Charges `steps` units of work done in C (pattern matching, moving table elements) to the running
/// guest call's instruction budget and checks its deadline; raises the limit error when one is
/// exceeded. Does nothing outside guest calls.
void moonblade_charge_steps(lua_State *L, long long steps);

/// Bytes copied or scanned in C that count as one step (one instruction) of the budget.
enum { moonblade_bytes_per_step = 8 };

/// Raises the limit error if a limit has stopped the running guest call, or if the guest's memory
/// limit refused an allocation since (a memory error that was caught). For the library functions
/// that catch errors: what a limit raised must go on unwinding.
void moonblade_raise_if_stopped(lua_State *L);

/// Whether a limit has stopped the running guest call (the message handler then runs no script code).
int moonblade_is_stopped_call(lua_State *L);

/// Whether coroutine at `index` was killed by a limit (it must not run script code again).
int moonblade_is_stopped_thread(lua_State *L, int index);

/// Resizes a block of the VM's (`block` NULL and `old_size` 0 for a new one) as `realloc` does,
/// reusing freed small blocks; NULL when the system has no memory. Memory accounting is the caller's.
void *moonblade_pool_resize(moonblade_limits *limits, void *block, size_t old_size, size_t new_size);

/// Frees a block of the VM's of `size` bytes, keeping it for reuse if small.
void moonblade_pool_free(moonblade_limits *limits, void *block, size_t size);

/// Writes what the violation was ("instruction budget of 100 instructions exceeded") into `buffer`.
void moonblade_violation_summary(const moonblade_limits *limits, char *buffer, size_t size);

/// Replaces the functions of the opened base and coroutine libraries that catch errors with guarded
/// ones, and `table.move`/`table.sort`/`string.rep`/`print` with ones that count their work. Runs protected.
void moonblade_guard_libraries(lua_State *L);

/// Replaces `string.find`, `match`, `gmatch` and `gsub` with the step-counting matcher. Runs protected.
void moonblade_install_pattern_functions(lua_State *L);

/// Calls the function a stand-in wraps (its upvalue 1) with the stand-in's arguments, in their place,
/// leaving `results` results (`LUA_MULTRET` for all); returns how many values the stack then holds.
/// A C function with no upvalues (a library function) runs in the stand-in's frame, so that its
/// errors name it as the script called it.
int moonblade_call_original(lua_State *L, int results);

/// Replaces `table[name]` with a C closure of `function` whose upvalue is `table[original]`.
void moonblade_replace_field(lua_State *L, int table, const char *name, const char *original, lua_CFunction function);

#endif

// Guest limits: what stops plugin code that holds too much memory, runs too many instructions or
// runs past its deadline (boundary rule 4: limits bite only while guest code runs).
//
// One `moonblade_limits` per VM, owned by Swift. Every thread of the VM reaches it as the
// allocator's `ud`. The memory limit bites while `memory_enforcing` is set (Swift functions that Lua
// calls clear it, so host pushes never fail half-way). The instruction budget and the deadline are
// checked by a count hook, installed once on the main thread and inherited by every coroutine
// (`lua_newthread` copies the hook), that does nothing unless a guest call is running.
//
// Once a limit is exceeded the hook keeps raising at every instruction until the guest call has
// unwound, so a `pcall` in guest code cannot swallow the error and carry on.

#ifndef MOONBLADE_CLUA_LIMITS_H
#define MOONBLADE_CLUA_LIMITS_H

#include <lua5.4/lua.h>
#include <lua5.4/lauxlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/// Which limit stopped the current guest call.
enum moonblade_violation {
    moonblade_within_limits = 0,
    moonblade_instruction_budget_exceeded = 1,
    moonblade_time_limit_exceeded = 2,
};

typedef struct moonblade_limits {
    size_t memory_used;             // bytes currently allocated by this VM
    size_t memory_limit;            // 0: none
    int memory_enforcing;           // non-zero while guest code (not a Swift function it calls) runs
    int guest_depth;                // guest calls in progress; nested calls share the outermost budget
    int hook_interval;              // instructions between two runs of the count hook
    long long instruction_budget;   // per outermost guest call; 0: none
    long long instructions_left;
    double deadline;                // a `moonblade_now()` after which guest code stops; 0: none
    double time_limit;              // the seconds the deadline allows, for the message
    int violation;                  // a `moonblade_violation`, reset when an outermost guest call starts
    char violation_message[LUA_IDSIZE + 96];  // "source:line: instruction budget of … exceeded"
} moonblade_limits;

static inline void moonblade_limits_init(
    moonblade_limits *limits, size_t memory_limit, long long instruction_budget, int hook_interval
) {
    memset(limits, 0, sizeof *limits);
    limits->memory_limit = memory_limit;
    limits->instruction_budget = instruction_budget;
    limits->hook_interval = hook_interval;
}

/// Seconds on the monotonic clock (the clock deadlines are measured on).
static inline double moonblade_now(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

/// Writes "time limit of <seconds> s exceeded" into `buffer`, the one wording of a passed deadline.
static inline void moonblade_time_limit_message(char *buffer, size_t size, double seconds) {
    snprintf(buffer, size, "time limit of %g s exceeded", seconds);
}

static inline moonblade_limits *moonblade_limits_of(lua_State *L) {
    void *ud = NULL;
    lua_getallocf(L, &ud);
    return (moonblade_limits *)ud;
}

// MARK: - Memory

static void *moonblade_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    moonblade_limits *limits = (moonblade_limits *)ud;
    // When ptr is NULL, osize encodes the kind of object being created, not a size.
    size_t old_size = ptr ? osize : 0;
    if (nsize == 0) {
        free(ptr);
        limits->memory_used -= old_size;
        return NULL;
    }
    if (limits->memory_enforcing && limits->memory_limit != 0 && nsize > old_size &&
        limits->memory_used - old_size + nsize > limits->memory_limit) {
        return NULL;  // Lua turns this into a memory error (after an emergency collection)
    }
    void *block = realloc(ptr, nsize);
    if (block == NULL) return NULL;
    limits->memory_used = limits->memory_used - old_size + nsize;
    return block;
}

static inline lua_State *moonblade_newstate(moonblade_limits *limits) {
    return lua_newstate(moonblade_alloc, limits);
}

// MARK: - Guest calls

/// Arms the limits for a guest call; the outermost one starts a fresh budget. Returns what
/// `moonblade_leave_guest` restores.
static inline int moonblade_enter_guest(moonblade_limits *limits) {
    if (limits->guest_depth++ == 0) {
        limits->instructions_left = limits->instruction_budget;
        limits->violation = moonblade_within_limits;
    }
    int was_enforcing = limits->memory_enforcing;
    limits->memory_enforcing = 1;
    return was_enforcing;
}

static inline void moonblade_leave_guest(moonblade_limits *limits, int was_enforcing) {
    limits->guest_depth--;
    limits->memory_enforcing = was_enforcing;
}

/// The message of the limit that stopped the current (or last) guest call, or NULL.
static inline const char *moonblade_violation_message(moonblade_limits *limits) {
    return limits->violation == moonblade_within_limits ? NULL : limits->violation_message;
}

// MARK: - The count hook

static void moonblade_record_violation(
    lua_State *L, lua_Debug *ar, moonblade_limits *limits, enum moonblade_violation violation
) {
    char what[64];
    if (violation == moonblade_time_limit_exceeded) {
        moonblade_time_limit_message(what, sizeof what, limits->time_limit);
    } else {
        snprintf(what, sizeof what, "instruction budget of %lld instructions exceeded", limits->instruction_budget);
    }
    lua_getinfo(L, "Sl", ar);
    if (ar->currentline > 0) {
        snprintf(limits->violation_message, sizeof limits->violation_message, "%s:%d: %s", ar->short_src,
                 ar->currentline, what);
    } else {
        snprintf(limits->violation_message, sizeof limits->violation_message, "%s", what);
    }
    limits->violation = violation;
}

/// Registry key of the weak-keyed set of coroutines a limit stopped (see `moonblade_guard_libraries`).
static const char moonblade_stopped_threads_key[] = "moonblade.stopped_threads";

/// Records that the hook raised on `L`: if `L` is a coroutine, it dies with hooks off for good.
static void moonblade_mark_stopped(lua_State *L) {
    if (lua_pushthread(L)) {  // the main thread: it is never closed by scripts
        lua_pop(L, 1);
        return;
    }
    lua_getfield(L, LUA_REGISTRYINDEX, moonblade_stopped_threads_key);
    lua_insert(L, -2);
    lua_pushboolean(L, 1);
    lua_rawset(L, -3);
    lua_pop(L, 1);
}

static void moonblade_count_hook(lua_State *L, lua_Debug *ar) {
    moonblade_limits *limits = moonblade_limits_of(L);
    if (limits->guest_depth == 0) return;  // host code (rule 4)
    if (limits->violation == moonblade_within_limits) {
        if (lua_gethookcount(L) != limits->hook_interval) {
            // A thread left hooked at every instruction by an earlier stop: back to the normal pace.
            lua_sethook(L, moonblade_count_hook, LUA_MASKCOUNT, limits->hook_interval);
        }
        if (limits->instruction_budget != 0 && (limits->instructions_left -= limits->hook_interval) < 0) {
            moonblade_record_violation(L, ar, limits, moonblade_instruction_budget_exceeded);
        } else if (limits->deadline != 0 && moonblade_now() > limits->deadline) {
            moonblade_record_violation(L, ar, limits, moonblade_time_limit_exceeded);
        } else {
            return;
        }
    }
    // Raise again at every instruction until the guest call has unwound: a `pcall` that catches
    // this is hit again at its next instruction.
    lua_sethook(L, moonblade_count_hook, LUA_MASKCOUNT, 1);
    int enforcing = limits->memory_enforcing;
    limits->memory_enforcing = 0;  // host bookkeeping: it must not fail for the guest's memory
    moonblade_mark_stopped(L);
    lua_pushstring(L, limits->violation_message);
    limits->memory_enforcing = enforcing;
    lua_error(L);
}

static inline void moonblade_install_count_hook(lua_State *L, int interval) {
    lua_sethook(L, moonblade_count_hook, LUA_MASKCOUNT, interval);
}

// MARK: - Library functions that would run script code with the hook off
//
// An error raised by a hook leaves hooks off (`allowhook`) on its thread until a protected call
// restores them. So an `xpcall` handler called for the hook's error runs unhooked, and so do the
// `__close` handlers of a coroutine the hook killed when `coroutine.close` or a `coroutine.wrap`
// function resets it (a dead coroutine is never restored). Unguarded, a loop in either would hang
// the host; these stand-ins do not run them.

static inline int moonblade_is_stopped(lua_State *L, int index) {
    lua_getfield(L, LUA_REGISTRYINDEX, moonblade_stopped_threads_key);
    lua_pushvalue(L, index);
    int stopped = lua_rawget(L, -2) != LUA_TNIL;
    lua_pop(L, 2);
    return stopped;
}

/// The message handler `xpcall` gets instead of the script's (upvalue 1): once a limit has stopped
/// the call, it passes the error on without running script code.
static int moonblade_guarded_handler(lua_State *L) {
    if (moonblade_limits_of(L)->violation != moonblade_within_limits) return 1;
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

static int moonblade_return_all(lua_State *L, int status, lua_KContext context) {
    (void)status;
    (void)context;
    return lua_gettop(L);
}

/// `xpcall` (upvalue 1) with the handler guarded. A continuation lets `f` yield, as it may with Lua's.
static int moonblade_guarded_xpcall(lua_State *L) {
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_pushvalue(L, 2);
    lua_pushcclosure(L, moonblade_guarded_handler, 1);
    lua_replace(L, 2);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_callk(L, lua_gettop(L) - 1, LUA_MULTRET, 0, moonblade_return_all);
    return lua_gettop(L);
}

/// `coroutine.close` (upvalue 1), except that a coroutine a limit stopped is not reset.
static int moonblade_guarded_close(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTHREAD);
    if (moonblade_is_stopped(L, 1)) {
        lua_pushboolean(L, 0);
        lua_pushliteral(L, "coroutine was stopped by a limit");
        return 2;
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    return lua_gettop(L);
}

/// The function `coroutine.wrap` returns, for the coroutine in upvalue 1: Lua's own, except that
/// a coroutine a limit stopped is not reset.
static int moonblade_resume_wrapped(lua_State *L) {
    lua_State *co = lua_tothread(L, lua_upvalueindex(1));
    int arguments = lua_gettop(L);
    if (!lua_checkstack(co, arguments)) return luaL_error(L, "too many arguments to resume");
    lua_xmove(L, co, arguments);
    int results = 0;
    int status = lua_resume(co, L, arguments, &results);
    if (status == LUA_OK || status == LUA_YIELD) {
        if (!lua_checkstack(L, results + 1)) {
            lua_pop(co, results);
            return luaL_error(L, "too many results to resume");
        }
        lua_xmove(co, L, results);
        return results;
    }
    status = lua_status(co);
    if (status != LUA_OK && status != LUA_YIELD && !moonblade_is_stopped(L, lua_upvalueindex(1))) {
        status = lua_resetthread(co);  // closes its to-be-closed variables
    }
    lua_xmove(co, L, 1);  // the error
    if (status != LUA_ERRMEM && lua_type(L, -1) == LUA_TSTRING) {
        luaL_where(L, 1);
        lua_insert(L, -2);
        lua_concat(L, 2);
    }
    return lua_error(L);
}

/// `coroutine.wrap`: `coroutine.create` (upvalue 1), and a `moonblade_resume_wrapped` for it.
static int moonblade_guarded_wrap(lua_State *L) {
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, 1);
    lua_pushcclosure(L, moonblade_resume_wrapped, 1);
    return 1;
}

/// Replaces `table[name]` with a C closure of `function` whose upvalue is `table[original]`.
static void moonblade_replace_field(lua_State *L, int table, const char *name, const char *original, lua_CFunction function) {
    table = lua_absindex(L, table);
    lua_getfield(L, table, original);
    lua_pushcclosure(L, function, 1);
    lua_setfield(L, table, name);
}

/// Installs the stand-ins above in the globals just opened. Runs protected.
static void moonblade_guard_libraries(lua_State *L) {
    lua_createtable(L, 0, 0);
    lua_createtable(L, 0, 1);
    lua_pushliteral(L, "k");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    lua_setfield(L, LUA_REGISTRYINDEX, moonblade_stopped_threads_key);
    lua_pushglobaltable(L);
    moonblade_replace_field(L, -1, "xpcall", "xpcall", moonblade_guarded_xpcall);
    lua_getfield(L, -1, LUA_COLIBNAME);
    moonblade_replace_field(L, -1, "close", "close", moonblade_guarded_close);
    moonblade_replace_field(L, -1, "wrap", "create", moonblade_guarded_wrap);
    lua_pop(L, 2);
}

#endif

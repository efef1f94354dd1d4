// Guest limits: what stops plugin code that holds too much memory, runs too many instructions or
// runs past its deadline. Invariant: limits bite only while guest code runs (boundary rule 4).
//
// The memory limit bites while `memory_enforcing` is set (Swift functions that Lua calls clear it, so
// host pushes never fail half-way). The instruction budget and the deadline are checked by a count
// hook, installed once on the main thread and inherited by every coroutine, that does nothing unless
// a guest call is running, and by C functions that loop (the pattern matcher) through
// `moonblade_charge_steps`.
//
// Work that is not counted in instructions is charged too: an instruction or library function that
// allocates a large block (`..`, `string.rep`, `table.concat`, `string.format`, ...) is charged for the
// bytes, and, once that spends the budget or the deadline has passed, makes the thread check the limits
// at its next instruction (the hook would otherwise wait up to `hook_interval` instructions, each of
// which may copy many megabytes); library functions that
// scan large inputs without allocating are charged by their wrappers (guards.c).
//
// Once a limit is exceeded the call must end: the library functions that catch errors raise it again
// (guards.c), and the hook raises at every instruction until the guest call has unwound.

#include "../guest.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

void moonblade_limits_init(
    moonblade_limits *limits, size_t memory_limit, long long instruction_budget, int hook_interval
) {
    memset(limits, 0, sizeof *limits);
    limits->memory_limit = memory_limit;
    limits->instruction_budget = instruction_budget;
    limits->hook_interval = hook_interval;
}

double moonblade_now(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

void moonblade_time_limit_message(char *buffer, size_t size, double seconds) {
    snprintf(buffer, size, "time limit of %g s exceeded", seconds);
}

void moonblade_request_interrupt(moonblade_limits *limits) {
    __atomic_store_n(&limits->interrupt_requested, 1, __ATOMIC_RELAXED);
}

void moonblade_end_interrupt(moonblade_limits *limits) {
    __atomic_store_n(&limits->interrupt_requested, 0, __ATOMIC_RELAXED);
}

moonblade_limits *moonblade_limits_of(lua_State *L) {
    void *ud = NULL;
    lua_getallocf(L, &ud);
    return (moonblade_limits *)ud;
}

// MARK: - Memory

/// What Lua's emergency collection must free, at least, for a guest call that reached the memory
/// limit to go on: a call whose live data fills the limit would otherwise make Lua collect all of it
/// again for every few allocations (seconds of collections, each freeing a little garbage).
static size_t least_recovery(const moonblade_limits *limits) {
    return limits->memory_limit / 8;
}

/// Allocations at least this large are charged to the budget, one step per
/// `moonblade_allocated_bytes_per_step` bytes (smaller ones come with the instructions that make them,
/// which the hook counts). Filling a block costs far less per byte than scanning does per step: a
/// memory bomb should meet the memory limit, not the budget.
enum { moonblade_charged_allocation = 4096, moonblade_allocated_bytes_per_step = 64 };
/// Allocations at least this large make the running thread check the limits at its next instruction.
enum { moonblade_prompt_check_allocation = 64 * 1024 };

static void count_hook(lua_State *L, lua_Debug *ar);

/// Whether the budget is spent or the deadline past: the next check will stop the guest call.
static int limit_passed(const moonblade_limits *limits) {
    return (limits->instruction_budget != 0 && limits->instructions_left < 0)
        || (limits->deadline != 0 && moonblade_now() > limits->deadline);
}

/// Charges guest code for allocating `bytes` at once (see `moonblade_charged_allocation`).
static void charge_allocation(moonblade_limits *limits, size_t bytes) {
    if (limits->guest_depth == 0) return;
    if (limits->instruction_budget != 0) limits->instructions_left -= (long long)(bytes / moonblade_allocated_bytes_per_step);
    // lua_sethook may be called at any time (even from a signal handler): the thread traps at once.
    // It also restarts the hook's count, losing the instructions run since the hook last ran (up to
    // `hook_interval - 1`, more than the block's own charge once the interval is above 1,024): so it
    // is done only when the check it brings will stop the call, and a call that goes on loses nothing.
    if (bytes >= moonblade_prompt_check_allocation && limits->running && limits->hook_interval > 0
        && limit_passed(limits)) {
        lua_sethook(limits->running, count_hook, LUA_MASKCOUNT, 1);
    }
}

static void *alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    moonblade_limits *limits = (moonblade_limits *)ud;
    // When ptr is NULL, osize encodes the kind of object being created, not a size.
    size_t old_size = ptr ? osize : 0;
    if (nsize == 0) {
        if (ptr) moonblade_pool_free(limits, ptr, old_size);
        limits->memory_used -= old_size;
        return NULL;
    }
    int grows = nsize > old_size;
    int guest = limits->memory_enforcing && limits->memory_limit != 0;
    if (guest && grows && limits->memory_used - old_size + nsize > limits->memory_limit) {
        // Lua collects garbage and tries once more; if that fails too, it raises a memory error,
        // which the guards will not let a `pcall` swallow.
        limits->memory_refused = 1;
        limits->memory_retrying = 1;
        limits->memory_at_refusal = limits->memory_used;
        return NULL;
    }
    void *block = moonblade_pool_resize(limits, ptr, old_size, nsize);
    if (block == NULL) return NULL;
    if (guest && grows && limits->memory_retrying) {  // the retry after Lua's emergency collection
        limits->memory_retrying = 0;
        if (limits->memory_used + least_recovery(limits) <= limits->memory_at_refusal) {
            limits->memory_refused = 0;  // it freed enough: the call goes on
        }
    }
    limits->memory_used = limits->memory_used - old_size + nsize;
    if (grows && nsize - old_size >= moonblade_charged_allocation && limits->memory_enforcing) {
        charge_allocation(limits, nsize - old_size);
    }
    return block;
}

lua_State *moonblade_newstate(moonblade_limits *limits) {
    return lua_newstate(alloc, limits);
}

int moonblade_suspend_memory_limit(lua_State *L) {
    moonblade_limits *limits = moonblade_limits_of(L);
    int was_enforcing = limits->memory_enforcing;
    limits->memory_enforcing = 0;
    return was_enforcing;
}

void moonblade_resume_memory_limit(lua_State *L, int was_enforcing) {
    moonblade_limits_of(L)->memory_enforcing = was_enforcing;
}

// MARK: - Guest calls

int moonblade_enter_guest(moonblade_limits *limits) {
    if (limits->guest_depth++ == 0) {
        limits->instructions_left = limits->instruction_budget;
        limits->violation = moonblade_within_limits;
        limits->memory_refused = 0;
        limits->memory_retrying = 0;
    }
    int was_enforcing = limits->memory_enforcing;
    limits->memory_enforcing = 1;
    return was_enforcing;
}

void moonblade_leave_guest(moonblade_limits *limits, int was_enforcing) {
    limits->guest_depth--;
    limits->memory_enforcing = was_enforcing;
}

void moonblade_collect_after_memory_failure(lua_State *L) {
    moonblade_limits *limits = moonblade_limits_of(L);
    if (limits->guest_depth != 0) return;
    if (!limits->memory_refused && limits->violation != moonblade_memory_limit_exceeded) return;
    lua_gc(L, LUA_GCCOLLECT);
}

const char *moonblade_violation_message(const moonblade_limits *limits) {
    return limits->violation == moonblade_within_limits ? NULL : limits->violation_message;
}

int moonblade_is_stopped_call(lua_State *L) {
    return moonblade_limits_of(L)->violation != moonblade_within_limits;
}

// MARK: - Violations

void moonblade_violation_summary(const moonblade_limits *limits, char *buffer, size_t size) {
    switch (limits->violation) {
    case moonblade_time_limit_exceeded:
        moonblade_time_limit_message(buffer, size, limits->time_limit);
        break;
    case moonblade_memory_limit_exceeded:
        snprintf(buffer, size, "memory limit of %zu bytes exceeded", limits->memory_limit);
        break;
    case moonblade_interrupted:
        snprintf(buffer, size, "interrupted");
        break;
    default:
        snprintf(buffer, size, "instruction budget of %lld instructions exceeded", limits->instruction_budget);
        break;
    }
}

/// The limit `steps` more units of work exceed, or `moonblade_within_limits`.
static enum moonblade_violation exceeded_limit(moonblade_limits *limits, long long steps) {
    if (limits->memory_refused) return moonblade_memory_limit_exceeded;
    // Relaxed: the flag carries no data with it, and a check that misses it sees it at the next one.
    if (__atomic_load_n(&limits->interrupt_requested, __ATOMIC_RELAXED)) return moonblade_interrupted;
    if (limits->instruction_budget != 0 && (limits->instructions_left -= steps) < 0) {
        return moonblade_instruction_budget_exceeded;
    }
    if (limits->deadline != 0 && moonblade_now() > limits->deadline) return moonblade_time_limit_exceeded;
    return moonblade_within_limits;
}

/// Records `violation` with the innermost Lua line running on `L` as its place.
static void record_violation(lua_State *L, moonblade_limits *limits, enum moonblade_violation violation) {
    limits->violation = violation;
    char what[64];
    moonblade_violation_summary(limits, what, sizeof what);
    lua_Debug ar;
    for (int level = 0; lua_getstack(L, level, &ar); level++) {
        lua_getinfo(L, "Sl", &ar);
        if (ar.currentline > 0) {
            snprintf(limits->violation_message, sizeof limits->violation_message, "%s:%d: %s", ar.short_src,
                     ar.currentline, what);
            return;
        }
    }
    snprintf(limits->violation_message, sizeof limits->violation_message, "%s", what);
}

/// Records that a limit stopped `L`: if `L` is a coroutine, it dies with hooks off for good.
static void mark_stopped(lua_State *L) {
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

/// Raises the recorded violation on `L`, and makes the hook raise again at every instruction until
/// the guest call has unwound.
static int raise_violation(lua_State *L, moonblade_limits *limits) {
    lua_sethook(L, count_hook, LUA_MASKCOUNT, 1);
    int enforcing = limits->memory_enforcing;
    limits->memory_enforcing = 0;  // host bookkeeping: it must not fail for the guest's memory
    mark_stopped(L);
    lua_pushstring(L, limits->violation_message);
    limits->memory_enforcing = enforcing;
    return lua_error(L);
}

void moonblade_charge_steps(lua_State *L, long long steps) {
    moonblade_limits *limits = moonblade_limits_of(L);
    if (limits->guest_depth == 0) return;  // host code (rule 4)
    limits->running = L;
    if (limits->violation == moonblade_within_limits) {
        enum moonblade_violation violation = exceeded_limit(limits, steps);
        if (violation == moonblade_within_limits) return;
        record_violation(L, limits, violation);
    }
    raise_violation(L, limits);
}

void moonblade_count_steps(lua_State *L, long long steps) {
    moonblade_limits *limits = moonblade_limits_of(L);
    if (limits->guest_depth != 0 && limits->instruction_budget != 0) limits->instructions_left -= steps;
}

void moonblade_raise_if_stopped(lua_State *L) {
    moonblade_limits *limits = moonblade_limits_of(L);
    if (limits->guest_depth == 0) return;
    if (limits->violation == moonblade_within_limits) {
        if (!limits->memory_refused) return;
        record_violation(L, limits, moonblade_memory_limit_exceeded);
    }
    raise_violation(L, limits);
}

// MARK: - The count hook

static void count_hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    moonblade_limits *limits = moonblade_limits_of(L);
    if (limits->guest_depth == 0) return;  // host code (rule 4)
    limits->running = L;
    int count = lua_gethookcount(L);  // instructions run since the last check
    if (limits->violation == moonblade_within_limits && count != limits->hook_interval) {
        // A thread hooked at every instruction by a stop or a large allocation: back to the normal pace.
        lua_sethook(L, count_hook, LUA_MASKCOUNT, limits->hook_interval);
    }
    moonblade_charge_steps(L, count);
}

void moonblade_install_count_hook(lua_State *L, int interval) {
    lua_sethook(L, count_hook, LUA_MASKCOUNT, interval);
}

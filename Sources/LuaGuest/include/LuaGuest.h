// LuaGuest: what holds untrusted (guest) Lua code in: the limits (allocator, count hook, the guards
// that keep `pcall` and coroutines from swallowing a limit), the safe standard library and the
// sandbox environments, a pattern matcher that counts its steps, and the error descriptions the
// host's protected calls build.
//
// Everything here that may raise a Lua error runs inside a protected call; the functions Swift calls
// directly never raise (they return a Lua status instead).

#ifndef MOONBLADE_LUA_GUEST_H
#define MOONBLADE_LUA_GUEST_H

#include <lua5.4/lua.h>
#include <stddef.h>

/// Which limit stopped the current guest call.
enum moonblade_violation {
    moonblade_within_limits = 0,
    moonblade_instruction_budget_exceeded = 1,
    moonblade_time_limit_exceeded = 2,
    moonblade_memory_limit_exceeded = 3,
    moonblade_interrupted = 4,
};

/// Lua's small blocks are kept for reuse in classes of this many bytes, up to this many classes.
enum { moonblade_pool_granule = 16, moonblade_pool_classes = 16 };

/// The limits of one VM, owned by Swift; every thread of the VM reaches it as the allocator's `ud`.
typedef struct moonblade_limits {
    size_t memory_used;             // bytes currently allocated by this VM
    size_t memory_limit;            // 0: none
    int memory_enforcing;           // non-zero while guest code (not a Swift function it calls) runs
    int memory_refused;             // the guest call ran out of memory (a memory error was raised)
    int memory_retrying;            // the allocator refused; Lua is collecting garbage to try again
    size_t memory_at_refusal;       // memory_used when it refused
    int guest_depth;                // guest calls in progress; nested calls share the outermost budget
    int hook_interval;              // instructions between two runs of the count hook
    long long instruction_budget;   // per outermost guest call; 0: none
    long long instructions_left;
    double deadline;                // a `moonblade_now()` after which guest code stops; 0: none
    double time_limit;              // the seconds the deadline allows, for the message
    int violation;                  // a `moonblade_violation`, reset when an outermost guest call starts
    char violation_message[LUA_IDSIZE + 96];  // "source:line: instruction budget of … exceeded"
    long long steps_since_clock;    // steps sorts charged by comparison since they last checked the limits
    lua_State *running;             // the thread guest code runs on (set by the host's guest calls, the
                                    // hook, coroutine switches), or NULL: a large allocation makes it
                                    // check the limits at its next instruction
    void *pool[moonblade_pool_classes];  // freed small blocks, by size class (Limits/block_pool.c)
    size_t pooled_bytes;
    int interrupt_requested;        // read and written only with `__atomic` builtins, from any thread
                                    // (`moonblade_request_interrupt`): never from Swift directly
} moonblade_limits;

// MARK: - Limits (Limits/limits.c)

void moonblade_limits_init(
    moonblade_limits *limits, size_t memory_limit, long long instruction_budget, int hook_interval);

/// Stops the guest code of the VM that `limits` belongs to: the guest call running now, and every one
/// that runs until `moonblade_end_interrupt`, raises "interrupted" (placed at its line, and like a
/// limit, not to be swallowed by `pcall`) at its next check of the limits. Any thread may call it
/// while another runs Lua; it takes no lock.
void moonblade_request_interrupt(moonblade_limits *limits);

/// Lets guest code run again after `moonblade_request_interrupt`.
void moonblade_end_interrupt(moonblade_limits *limits);

/// Seconds on the monotonic clock (the clock deadlines are measured on).
double moonblade_now(void);

/// Writes "time limit of <seconds> s exceeded" into `buffer`, the one wording of a passed deadline.
void moonblade_time_limit_message(char *buffer, size_t size, double seconds);

/// The limits of the VM `L` belongs to.
moonblade_limits *moonblade_limits_of(lua_State *L);

/// A new Lua state whose allocator keeps `limits`' memory accounting.
lua_State *moonblade_newstate(moonblade_limits *limits);

/// Frees the small blocks the allocator kept for reuse; once the VM is closed, before `limits` goes.
void moonblade_drain_block_pool(moonblade_limits *limits);

/// Arms the limits for a guest call; the outermost one starts a fresh budget. Returns what
/// `moonblade_leave_guest` restores.
int moonblade_enter_guest(moonblade_limits *limits);
void moonblade_leave_guest(moonblade_limits *limits, int was_enforcing);

/// Lifts the memory limit while host code (a Swift function Lua called) runs; returns what
/// `moonblade_resume_memory_limit` restores.
int moonblade_suspend_memory_limit(lua_State *L);
void moonblade_resume_memory_limit(lua_State *L, int was_enforcing);

/// After the outermost guest call, if it met the memory limit: collects what it built, garbage now.
/// The emergency collection at the limit set the next cycle at about twice the memory then in use, so
/// the VM would otherwise hold the limit's worth until plugin code allocates as much again. Never raises
/// (plugins have no finalizers).
void moonblade_collect_after_memory_failure(lua_State *L);

/// The message of the limit that stopped the current (or last) guest call, or NULL.
const char *moonblade_violation_message(const moonblade_limits *limits);

/// Installs the count hook that checks the instruction budget and the deadline every `interval`
/// instructions; coroutines created afterwards inherit it.
void moonblade_install_count_hook(lua_State *L, int interval);

// MARK: - The safe library and sandboxes (Sandbox/)

/// Opens the libraries scripts may use, guarded, and prepares the sandbox template. Returns a Lua
/// status: the work runs protected.
int moonblade_open_libraries(lua_State *L);

/// Pushes a fresh sandbox environment. Returns a Lua status: the work runs protected.
int moonblade_push_sandbox(lua_State *L);

/// The Lua function `read_only(table, name)`: a read-only view of `table`, called `name` in messages.
int moonblade_read_only(lua_State *L);

// MARK: - Interceptors (Interceptors/)

/// The Lua function `make_next(intercept, interceptors, index, item)`: returns the `next` the
/// interceptor at `index` is given, and its state, to be closed (`<close>`) when the interceptor
/// returns or raises. `next(passed)` works once, until then, and calls `intercept(interceptors,
/// index + 1, passed or item)`; its errors name the line that called it, `return next(item)` included.
int moonblade_make_interceptor_next(lua_State *L);

// MARK: - For the C targets built on this one (the resident state's machinery)

/// Metafield of a table every plugin shares read-only (a library's view, a view of the state): what
/// messages call it. The sandbox's `rawset` refuses such a table: a raw write into one would change
/// what every other plugin reads.
extern const char moonblade_read_only_field[];

/// Charges `steps` to the running guest call's instruction budget without checking it: the next check
/// (hook or charge) will. Does nothing outside guest calls.
void moonblade_count_steps(lua_State *L, long long steps);

/// How a proxy table (a draft or a view of the resident state) gives the plain table it stands for:
/// its metatable holds, at the light userdata key `&moonblade_proxy_key`, a light userdata pointing to
/// one of these. `push_plain` pushes that table and returns 1, or pushes nothing and returns 0; it
/// reads raw only and never raises.
typedef struct moonblade_proxy_class {
    int (*push_plain)(lua_State *L, int index);
} moonblade_proxy_class;

extern const char moonblade_proxy_key;

/// If the value at `index` is a proxy (see `moonblade_proxy_class`), pushes the plain table it stands
/// for and returns 1; otherwise pushes nothing and returns 0. Raw reads only: never raises.
int moonblade_resolve_proxy(lua_State *L, int index);

// MARK: - Errors that carry their place (Errors/)

/// The longest error message kept whole; a longer one (a plugin may raise megabytes) keeps the bytes
/// of its start up to this length less `moonblade_kept_message_end`, where its place is, and that many
/// of its end, where a message that each level of a deep recursion prefixed with its place
/// (`coroutine.wrap`) says what happened. `LuaError.cut` cuts Swift's messages alike.
enum { moonblade_longest_message = 4096, moonblade_kept_message_end = 1024 };

/// Pushes the message handler every protected call of the host uses: it replaces the error value
/// with a table `{ message, traceback, source?, line? }`.
void moonblade_push_message_handler(lua_State *L);

/// Describes the error that killed coroutine `thread` (its error value is on top of `thread`),
/// pushing the description table onto `L`. Returns a Lua status: the work runs protected.
int moonblade_describe_coroutine_error(lua_State *L, lua_State *thread);

// MARK: - The coders' table checks (Coding/)

/// What `moonblade_check_sequence` returns for a table that is not a sequence.
enum moonblade_sequence_failure {
    moonblade_sequence_bad_key = -1,  // a key that is no position: it is left on top of the stack
    moonblade_sequence_hole = -2,     // a missing position, written to `hole`
};

/// Whether every key of the table at `index` is a string (with `integer_keys`, a Lua integer): 0 when
/// so; else 1, with the first other key pushed. With `non_ascii` (string keys), sets it to 1 when a key
/// has a byte of 0x80 or more (one that Swift may take for another, composed differently; left alone
/// otherwise). Raw and never raises.
int moonblade_check_record_keys(lua_State *L, int index, int integer_keys, int *non_ascii);

/// `moonblade_check_record_keys` for a table whose change record at `record` (`{ older table, key,
/// key, ... }`, see State/drafts.c) lists every key where it differs from an older table whose keys
/// were all strings: only the listed keys are looked at, so a changed record costs its changes, not
/// its size. 0 when every key the table holds is a string; else 1, with the first other key pushed.
/// Raw and never raises; needs 3 free stack slots.
int moonblade_check_listed_keys(lua_State *L, int index, int record);

/// The length n of the table at `index` when its keys are exactly 1…n; else a
/// `moonblade_sequence_failure`. Raw and never raises.
long long moonblade_check_sequence(lua_State *L, int index, long long *hole);

#endif

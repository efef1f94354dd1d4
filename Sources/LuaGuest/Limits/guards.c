// Library functions that would let guest code outlive a limit, and their guarded stand-ins. Invariant:
// once a limit has stopped a guest call, no library function lets guest code run on.
//
// - `pcall`, `xpcall`, `coroutine.resume`, `coroutine.wrap` and `coroutine.close` catch errors: once a
//   limit has stopped the call (or a memory error hit the limit), they raise the limit error again
//   instead of returning it, so the whole guest call ends at once.
// - An error raised by the count hook leaves hooks off (`allowhook`) on its thread until a protected
//   call restores them. So an `xpcall` handler called for the hook's error runs unhooked, and so do the
//   `__close` handlers of a coroutine the hook killed when `coroutine.close` or a `coroutine.wrap`
//   function resets it (a dead coroutine is never restored). The stand-ins do not run them.
// - `string.rep` with an empty string and separator loops `n` times producing nothing, `table.move`
//   loops over its range whatever the table holds, and `table.sort` without a comparison function (or
//   with a C one) compares in C: none runs a Lua instruction, so they count their work against the
//   budget (a sort, comparison by comparison, by the bytes two strings share; a small sort of plain
//   numbers or short strings, all at once before it starts).
// - Library functions that scan or copy their input in C (`string.format`, `string.pack`,
//   `utf8.len`, `table.concat`, `table.insert` at a position, ...) are charged by what they read (the
//   whole input, its format, or the range they are given) before they start, which also checks the deadline: the hook alone would let a loop of such calls run
//   `hook_interval` of them, each taking up to tens of milliseconds, between two checks.

#include "../guest.h"
#include <limits.h>
#include <stdio.h>
#include <lua5.4/lualib.h>
#include <string.h>

const char moonblade_stopped_threads_key[] = "moonblade.stopped_threads";

int moonblade_is_stopped_thread(lua_State *L, int index) {
    lua_getfield(L, LUA_REGISTRYINDEX, moonblade_stopped_threads_key);
    lua_pushvalue(L, index);
    int stopped = lua_rawget(L, -2) != LUA_TNIL;
    lua_pop(L, 2);
    return stopped;
}

/// Whether the function at `index` is a C function with no upvalues: one that can run in any C
/// function's frame, reading only its arguments.
static int is_bare_c_function(lua_State *L, int index) {
    if (!lua_iscfunction(L, index)) return 0;
    if (lua_getupvalue(L, index, 1) == NULL) return 1;
    lua_pop(L, 1);
    return 0;
}

int moonblade_call_original(lua_State *L, int results) {
    if (is_bare_c_function(L, lua_upvalueindex(1))) {
        // A library function runs in the stand-in's own frame, so that its argument errors name it as
        // the script called it (`bad argument #5 to 'move'`): called from C, it was named '?'. Then
        // only its results are left, as `lua_call` leaves them.
        int count = lua_tocfunction(L, lua_upvalueindex(1))(L);
        lua_rotate(L, 1, count);
        lua_settop(L, count);
        if (results != LUA_MULTRET) lua_settop(L, results);
        return lua_gettop(L);
    }
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, results);
    return lua_gettop(L);
}

// MARK: - Protected calls

/// Ends `pcall` and `xpcall` (directly or as the continuation after a yield): a limit error goes on
/// unwinding; any other error becomes `false, error`. `extra` values below the results are not returned.
static int finish_protected(lua_State *L, int status, lua_KContext extra) {
    if (status != LUA_OK && status != LUA_YIELD) {
        moonblade_raise_if_stopped(L);
        lua_pushboolean(L, 0);
        lua_pushvalue(L, -2);
        return 2;
    }
    return lua_gettop(L) - (int)extra;
}

static int guarded_pcall(lua_State *L) {
    luaL_checkany(L, 1);
    lua_pushboolean(L, 1);  // the first result if there is no error
    lua_insert(L, 1);
    int status = lua_pcallk(L, lua_gettop(L) - 2, LUA_MULTRET, 0, 0, finish_protected);
    return finish_protected(L, status, 0);
}

/// The message handler `xpcall` gets instead of the script's (upvalue 1): once a limit has stopped
/// the call, it passes the error on without running script code.
static int guarded_handler(lua_State *L) {
    if (moonblade_is_stopped_call(L)) return 1;
    return moonblade_call_original(L, LUA_MULTRET);
}

static int guarded_xpcall(lua_State *L) {
    int arguments = lua_gettop(L);
    luaL_checktype(L, 2, LUA_TFUNCTION);
    lua_pushvalue(L, 2);
    lua_pushcclosure(L, guarded_handler, 1);
    lua_replace(L, 2);
    lua_pushboolean(L, 1);   // the first result if there is no error
    lua_pushvalue(L, 1);     // the function
    lua_rotate(L, 3, 2);     // f, handler, true, f, arguments...
    int status = lua_pcallk(L, arguments - 2, LUA_MULTRET, 2, 2, finish_protected);
    return finish_protected(L, status, 2);
}

// MARK: - Coroutines

/// `coroutine.resume` (upvalue 1), except that a limit that stopped the coroutine goes on unwinding.
static int guarded_resume(lua_State *L) {
    // The coroutine runs now (it stays on this stack while it does): large allocations check it.
    if (lua_type(L, 1) == LUA_TTHREAD) moonblade_limits_of(L)->running = lua_tothread(L, 1);
    moonblade_call_original(L, LUA_MULTRET);
    moonblade_limits_of(L)->running = L;  // not the coroutine the hook saw last: it may be collected
    if (!lua_toboolean(L, 1)) moonblade_raise_if_stopped(L);
    return lua_gettop(L);
}

/// `coroutine.close` (upvalue 1), except that a coroutine a limit stopped is not reset.
static int guarded_close(lua_State *L) {
    luaL_checktype(L, 1, LUA_TTHREAD);
    if (moonblade_is_stopped_thread(L, 1)) moonblade_raise_if_stopped(L);
    if (moonblade_is_stopped_thread(L, 1)) {  // stopped by an earlier guest call
        lua_pushboolean(L, 0);
        lua_pushliteral(L, "coroutine was stopped by a limit");
        return 2;
    }
    moonblade_limits_of(L)->running = lua_tothread(L, 1);
    moonblade_call_original(L, LUA_MULTRET);  // runs the coroutine's __close handlers on it
    moonblade_limits_of(L)->running = L;
    if (!lua_toboolean(L, 1)) moonblade_raise_if_stopped(L);
    return lua_gettop(L);
}

/// The function `coroutine.wrap` returns, for the coroutine in upvalue 1: Lua's own, except that
/// a coroutine a limit stopped is not reset and its limit error goes on unwinding.
static int resume_wrapped(lua_State *L) {
    lua_State *co = lua_tothread(L, lua_upvalueindex(1));
    int arguments = lua_gettop(L);
    if (!lua_checkstack(co, arguments)) return luaL_error(L, "too many arguments to resume");
    lua_xmove(L, co, arguments);
    int results = 0;
    moonblade_limits *limits = moonblade_limits_of(L);
    limits->running = co;
    int status = lua_resume(co, L, arguments, &results);
    limits->running = L;
    if (status == LUA_OK || status == LUA_YIELD) {
        if (!lua_checkstack(L, results + 1)) {
            lua_pop(co, results);
            return luaL_error(L, "too many results to resume");
        }
        lua_xmove(co, L, results);
        return results;
    }
    moonblade_raise_if_stopped(L);
    status = lua_status(co);
    if (status != LUA_OK && status != LUA_YIELD && !moonblade_is_stopped_thread(L, lua_upvalueindex(1))) {
        limits->running = co;
        status = lua_resetthread(co);  // closes its to-be-closed variables
        limits->running = L;
    }
    lua_xmove(co, L, 1);  // the error
    if (status != LUA_ERRMEM && lua_type(L, -1) == LUA_TSTRING) {
        luaL_where(L, 1);
        lua_insert(L, -2);
        lua_concat(L, 2);
    }
    return lua_error(L);
}

/// `coroutine.wrap`: `coroutine.create` (upvalue 1), and a `resume_wrapped` for it.
static int guarded_wrap(lua_State *L) {
    moonblade_call_original(L, 1);
    lua_pushcclosure(L, resume_wrapped, 1);
    return 1;
}

// MARK: - Loops in C

/// `string.rep` (upvalue 1), except that repeating nothing returns at once.
static int counted_rep(lua_State *L) {
    size_t length = 0, separator = 0;
    luaL_checklstring(L, 1, &length);
    lua_Integer count = luaL_checkinteger(L, 2);
    luaL_optlstring(L, 3, "", &separator);
    if (length + separator == 0 || count <= 0) {
        lua_pushliteral(L, "");
        return 1;
    }
    moonblade_call_original(L, 1);
    return 1;
}

/// Elements `table.move` moves between two charges to the budget.
enum { moonblade_move_chunk = 4096 };

/// `table.move` (upvalue 1), moving long ranges a chunk at a time and charging each to the budget.
static int counted_move(lua_State *L) {
    lua_Integer first = luaL_checkinteger(L, 2);
    lua_Integer last = luaL_checkinteger(L, 3);
    lua_Integer target = luaL_checkinteger(L, 4);
    int destination = lua_isnoneornil(L, 5) ? 1 : 5;
    // Lua's own checks, made before moving anything so that errors read the same.
    if (last >= first) luaL_argcheck(L, first > 0 || last < LUA_MAXINTEGER + first, 3, "too many elements to move");
    if (last < first || last - first < moonblade_move_chunk) {  // short: Lua's own, as it is
        moonblade_call_original(L, 1);
        return 1;
    }
    lua_Integer count = last - first + 1;
    luaL_argcheck(L, target <= LUA_MAXINTEGER - count + 1, 4, "destination wrap around");
    // Lua moves backwards when the ranges overlap in one table with the target after the start.
    int forward = !(target > first && target <= last && (destination == 1 || lua_compare(L, 1, destination, LUA_OPEQ)));
    // Each chunk is moved by Lua's own in this frame, its range in place of the script's: a destination
    // it refuses is named as the script called it (`bad argument #5 to 'move'`), not as '?'.
    int arguments = destination == 5 ? 5 : 4;
    lua_settop(L, arguments);
    lua_CFunction move = lua_tocfunction(L, lua_upvalueindex(1));
    for (lua_Integer done = 0; done < count; done += moonblade_move_chunk) {
        lua_Integer size = count - done < moonblade_move_chunk ? count - done : moonblade_move_chunk;
        lua_Integer offset = forward ? done : count - done - size;
        moonblade_charge_steps(L, size);
        lua_pushinteger(L, first + offset);
        lua_replace(L, 2);
        lua_pushinteger(L, first + offset + size - 1);
        lua_replace(L, 3);
        lua_pushinteger(L, target + offset);
        lua_replace(L, 4);
        move(L);
        lua_settop(L, arguments);
    }
    lua_pushvalue(L, destination);
    return 1;
}

/// Steps of the budget a comparison made in C costs at least, and per zero byte of the prefix two
/// strings share: Lua compares strings a zero-terminated piece at a time (`strcoll`, then `strlen`
/// of each), about 6 ns a piece, so two 8 MB strings of zero bytes took 50 ms to compare.
enum { moonblade_steps_per_zero_byte = 2 };
/// Steps a sort's comparisons may run up before the limits are checked (the check reads the clock).
enum { moonblade_comparison_check = 1024 };

/// How many of the `length` bytes at `bytes` are `byte` (memchr: at the speed the bytes are read).
static long long count_byte(const char *bytes, size_t length, int byte) {
    long long count = 0;
    for (const char *at = memchr(bytes, byte, length); at != NULL; at = memchr(at + 1, byte, (size_t)(bytes + length - at - 1))) {
        count++;
    }
    return count;
}

/// What comparing the values at 1 and 2 costs: a step, plus, for two strings, the prefix they share,
/// which is what Lua's comparison (and `rawequal`'s) reads before it finds a difference.
static long long comparison_steps(lua_State *L) {
    if (lua_type(L, 1) != LUA_TSTRING || lua_type(L, 2) != LUA_TSTRING) return 1;
    size_t length_a = 0, length_b = 0;
    const char *a = lua_tolstring(L, 1, &length_a), *b = lua_tolstring(L, 2, &length_b);
    size_t shorter = length_a < length_b ? length_a : length_b;
    // The shared prefix a block at a time with memcmp, then its zero bytes with memchr: both run at
    // the speed of Lua's own comparison of plain text, so a sort pays little for what it is charged.
    enum { block = 256 };
    size_t shared = 0;
    while (shorter - shared >= block && memcmp(a + shared, b + shared, block) == 0) shared += block;
    while (shared < shorter && a[shared] == b[shared]) shared++;
    return 1 + (long long)(shared / moonblade_bytes_per_step) + count_byte(a, shared, 0) * moonblade_steps_per_zero_byte;
}

/// The comparison `table.sort` gets when it would otherwise compare in C (upvalue 1: the script's C
/// function, or nil for `<`). Each comparison is charged (`comparison_steps`) and the
/// limits are checked every `moonblade_comparison_check` steps, in the middle of a sort if need be.
static int charged_comparison(lua_State *L) {
    long long steps = comparison_steps(L);
    moonblade_count_steps(L, steps);
    moonblade_limits *limits = moonblade_limits_of(L);
    limits->steps_since_clock += steps;
    if (limits->steps_since_clock >= moonblade_comparison_check) {
        limits->steps_since_clock = 0;
        moonblade_charge_steps(L, 0);
    }
    if (lua_isnil(L, lua_upvalueindex(1))) {
        lua_pushboolean(L, lua_compare(L, 1, 2, LUA_OPLT));
        return 1;
    }
    lua_settop(L, 2);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, 2, 1);
    return 1;
}

/// Steps up to which a sort by `<` of plain numbers or short strings is charged up front and left to
/// Lua's own comparisons: four million, a sort of 200,000 numbers, tens of milliseconds that the
/// clock is not read during (as in any one library call charged before it starts).
enum { moonblade_sort_charged_up_front = 1 << 22 };

/// Bytes of the longest string a sort charged up front may compare: longer ones are charged by the
/// prefix each comparison reads, which can be far less than what the longest could cost.
enum { moonblade_sort_short_string = 64 };

/// The steps a sort by `<` of the sequence at 1 is charged up front, or -1 when it must be charged
/// comparison by comparison: the table has a metatable (its `#`, reads and `__lt` may run code), its
/// values are not all numbers or all short strings, or the sort would cost more than
/// `moonblade_sort_charged_up_front`. Each of the about n·log2(n) comparisons is charged what
/// `comparison_steps` charges the costliest pair could: the longest string's bytes and the
/// most zero bytes one holds.
static long long plain_sort_steps(lua_State *L) {
    if (lua_getmetatable(L, 1)) {
        lua_pop(L, 1);
        return -1;
    }
    lua_Integer count = (lua_Integer)lua_rawlen(L, 1);
    long long levels = 1;
    for (lua_Integer n = count; n > 1; n >>= 1) levels++;
    long long comparisons = (long long)count * levels;
    if (comparisons > moonblade_sort_charged_up_front) return -1;
    int kind = LUA_TNONE;
    size_t longest = 0;
    long long most_zeros = 0;
    for (lua_Integer i = 1; i <= count; i++) {
        int type = lua_rawgeti(L, 1, i);
        if (type != LUA_TNUMBER && type != LUA_TSTRING) kind = LUA_TNIL;
        if (kind == LUA_TNONE) kind = type;
        if (type != kind) {
            lua_pop(L, 1);
            return -1;
        }
        if (type == LUA_TSTRING) {
            size_t length = 0;
            const char *bytes = lua_tolstring(L, -1, &length);
            if (length > moonblade_sort_short_string) {
                lua_pop(L, 1);
                return -1;
            }
            if (length > longest) longest = length;
            long long zeros = count_byte(bytes, length, 0);
            if (zeros > most_zeros) most_zeros = zeros;
        }
        lua_pop(L, 1);
    }
    long long steps = comparisons * (1 + (long long)(longest / moonblade_bytes_per_step) + most_zeros * moonblade_steps_per_zero_byte);
    return steps > moonblade_sort_charged_up_front ? -1 : steps;
}

/// `table.sort` (upvalue 1). A sort without a comparison function, or with a C function (`math.ult`,
/// `rawequal`), runs no Lua instruction between its comparisons, whatever the table's metatable:
/// it is given `charged_comparison` instead, so each comparison is charged as it is made.
/// A small sort by `<` of plain numbers or strings is charged up front instead and keeps Lua's own
/// comparisons, a C call fewer each (`plain_sort_steps`). A Lua comparison function is left
/// as it is: the hook counts its instructions.
static int counted_sort(lua_State *L) {
    if (lua_type(L, 1) == LUA_TTABLE && lua_isnoneornil(L, 2)) {
        long long steps = plain_sort_steps(L);
        if (steps >= 0) {
            moonblade_charge_steps(L, steps);
            lua_settop(L, 1);
            moonblade_call_original(L, 0);
            return 0;
        }
    }
    if (lua_type(L, 1) == LUA_TTABLE && (lua_isnoneornil(L, 2) || lua_iscfunction(L, 2))) {
        lua_settop(L, 2);
        lua_pushcclosure(L, charged_comparison, 1);
    }
    moonblade_call_original(L, 0);
    return 0;
}

// MARK: - Work in C by the size of its input

/// Runs the library function a sized stand-in wraps (upvalue 1) in the stand-in's own frame: the
/// functions wrapped have no upvalues of their own, and their argument errors keep naming them as
/// the script called them (a function called from C would be named '?').
static int call_in_place(lua_State *L) {
    return lua_tocfunction(L, lua_upvalueindex(1))(L);
}

/// Bytes of string arguments below which a sized stand-in charges nothing: the hook's count covers
/// the call like the instruction that made it.
enum { moonblade_charged_input = 4096 };

/// Charges the work of a library function that scans its string arguments (upvalue 2: bytes per step)
/// before calling it (upvalue 1), so that a loop over a few calls on huge strings is stopped at once
/// (the hook counts only the instructions, not the megabytes each call scans).
static int sized_by_strings(lua_State *L) {
    size_t bytes = 0;
    for (int argument = lua_gettop(L); argument > 0; argument--) {
        if (lua_type(L, argument) == LUA_TSTRING) bytes += lua_rawlen(L, argument);
    }
    if (bytes >= moonblade_charged_input) {
        moonblade_charge_steps(L, (long long)(bytes / (size_t)lua_tointeger(L, lua_upvalueindex(2))));
    }
    return call_in_place(L);
}

/// `string.pack`, `unpack` and `packsize` (upvalue 1), charged one step per byte of their
/// format (argument 1), each an option to parse: the data they read or write is charged as it is
/// allocated, so unpacking a little from a big blob costs what it reads. The one read that allocates
/// nothing is `unpack`'s `z` (upvalue 2: 1) meeting no zero byte: it scans the rest of the data, then
/// raises, so that rest is charged when it holds no zero byte.
static int sized_by_format(lua_State *L) {
    size_t bytes = lua_type(L, 1) == LUA_TSTRING ? lua_rawlen(L, 1) : 0;
    if (bytes >= moonblade_charged_input) moonblade_charge_steps(L, (long long)bytes);
    if (lua_tointeger(L, lua_upvalueindex(2)) == 1 && bytes > 0 && lua_type(L, 2) == LUA_TSTRING
        && memchr(lua_tostring(L, 1), 'z', bytes) != NULL) {
        size_t length = 0;
        const char *data = lua_tolstring(L, 2, &length);
        int valid = 1;
        lua_Integer position = lua_isnoneornil(L, 3) ? 1 : lua_tointegerx(L, 3, &valid);
        if (valid && position >= 1 && (lua_Unsigned)position <= length) {
            size_t rest = length - (size_t)(position - 1);
            if (rest >= moonblade_charged_input && memchr(data + position - 1, 0, rest) == NULL) {
                moonblade_charge_steps(L, (long long)(rest / moonblade_bytes_per_step));
            }
        }
    }
    return call_in_place(L);
}

/// Steps of the budget a conversion (`%` and its letter) of an `os.date` format costs: Lua hands each
/// to `strftime` on its own, 40 to 80 ns apiece against about 1 ns an instruction.
enum { moonblade_steps_per_date_conversion = 64 };

/// `os.date` (upvalue 1), charged a step per byte of its format and `moonblade_steps_per_date_conversion`
/// per `%` in it, before it starts: charged by bytes alone, a format of 40 million `%%` (80 MB, under the
/// default budget) ran 6 s in one call.
static int sized_by_date_format(lua_State *L) {
    size_t bytes = lua_type(L, 1) == LUA_TSTRING ? lua_rawlen(L, 1) : 0;
    if (bytes >= moonblade_charged_input) {
        long long conversions = count_byte(lua_tostring(L, 1), bytes, '%');
        moonblade_charge_steps(L, (long long)bytes + conversions * moonblade_steps_per_date_conversion);
    }
    return call_in_place(L);
}

/// The elements `table.concat(t, sep, i, j)` or `table.unpack(t, i, j)` will visit: `i` and `j` are
/// at `first`, `first + 1`; `j` defaults to the table's raw length.
static long long range_size(lua_State *L, int first) {
    lua_Integer from = luaL_optinteger(L, first, 1);
    lua_Integer to = lua_isnoneornil(L, first + 1) ? (lua_Integer)lua_rawlen(L, 1) : luaL_checkinteger(L, first + 1);
    if (to < from) return 0;
    return (lua_Unsigned)to - (lua_Unsigned)from >= (lua_Unsigned)LLONG_MAX ? LLONG_MAX : (long long)(to - from) + 1;
}

/// The most values `table.unpack` returns (Lua's stack limit, `LUAI_MAXSTACK`).
enum { moonblade_most_results = 1000000 };

/// `table.concat` and `table.unpack` (upvalue 1; upvalue 2: where `i` is), charged one step per
/// element of the range (and the separator's bytes) before they start.
static int sized_by_range(lua_State *L) {
    int first = (int)lua_tointeger(L, lua_upvalueindex(2));
    long long elements = lua_type(L, 1) == LUA_TTABLE ? range_size(L, first) : 0;
    if (first == 2 && elements > moonblade_most_results) elements = 0;  // unpack refuses it before any work
    size_t separator = first == 3 && lua_type(L, 2) == LUA_TSTRING ? lua_rawlen(L, 2) : 0;
    if (elements >= moonblade_charged_input / moonblade_bytes_per_step) {
        long long copied = separator == 0 ? 0 : (long long)(separator / moonblade_bytes_per_step + 1);
        moonblade_charge_steps(L, elements > LLONG_MAX / (copied + 1) ? LLONG_MAX : elements * (copied + 1));
    }
    return call_in_place(L);
}

/// `table.insert(t, pos, v)` and `table.remove(t, pos)` (upvalue 1; upvalue 2: the argument count
/// that gives a position) shift the elements from `pos` to the end: charged one step per element
/// shifted. Without a position nothing shifts, and nothing is read here.
static int sized_by_shift(lua_State *L) {
    int valid = 0;
    lua_Integer position = lua_gettop(L) < lua_tointeger(L, lua_upvalueindex(2)) ? 0 : lua_tointegerx(L, 2, &valid);
    if (!valid || lua_type(L, 1) != LUA_TTABLE) return call_in_place(L);
    // The length the library reads, `__len` included (a draft's, or one that lies): one call more of
    // a metamethod that should have no side effects, and what the shift below it will really walk.
    lua_Integer length = (lua_Integer)lua_rawlen(L, 1);
    if (lua_getmetatable(L, 1)) {
        lua_pop(L, 1);
        length = luaL_len(L, 1);
    }
    long long shifted = position >= 1 && position <= length ? (long long)(length - position + 1) : 0;
    if (shifted >= moonblade_charged_input / moonblade_bytes_per_step) moonblade_charge_steps(L, shifted);
    return call_in_place(L);
}

/// Where `string.byte`, `utf8.codepoint` or `utf8.len` reads string argument 1: the bytes from `i`
/// (argument 2, 1 by default) to `j` (argument 3; by default `i`, or the end when `to_end`), negative
/// positions counting from the end as Lua's own do; 0 when they are not integers (Lua then refuses them).
static long long string_span(lua_State *L, int to_end) {
    lua_Integer length = (lua_Integer)lua_rawlen(L, 1);
    int valid = 1;
    lua_Integer i = lua_isnoneornil(L, 2) ? 1 : lua_tointegerx(L, 2, &valid);
    if (!valid) return 0;
    lua_Integer j = lua_isnoneornil(L, 3) ? (to_end ? -1 : i) : lua_tointegerx(L, 3, &valid);
    if (!valid) return 0;
    // Negated as unsigned: -LUA_MININTEGER overflows.
    lua_Integer from = i > 0 ? i : (i == 0 || (lua_Unsigned)0 - (lua_Unsigned)i > (lua_Unsigned)length) ? 1 : length + i + 1;
    lua_Integer to = j > length ? length : j >= 0 ? j : (lua_Unsigned)0 - (lua_Unsigned)j > (lua_Unsigned)length ? 0 : length + j + 1;
    return to >= from ? (long long)(to - from) + 1 : 0;
}

/// `string.byte`, `utf8.codepoint` (upvalue 1; upvalue 2: 1, a value returned per byte of the range
/// that ends at `i` by default) and `utf8.len` (upvalue 2: `moonblade_bytes_per_step`, a count of the
/// range that ends at the end by default), charged by the range they read, not the whole string:
/// stepping through a long string a byte at a time costs what a loop of `sub` does.
static int sized_by_span(lua_State *L) {
    lua_Integer bytes_per_step = lua_tointeger(L, lua_upvalueindex(2));
    long long bytes = lua_type(L, 1) == LUA_TSTRING ? string_span(L, bytes_per_step > 1) : 0;
    // A value a byte: more than the stack holds is refused before any work, as `table.unpack` is.
    if (bytes_per_step == 1 && bytes > moonblade_most_results) bytes = 0;
    long long steps = bytes / bytes_per_step;
    if (steps >= moonblade_charged_input / moonblade_bytes_per_step) moonblade_charge_steps(L, steps);
    return call_in_place(L);
}

/// `utf8.offset(s, n, i)` (upvalue 1) reads from `i` to the position it finds, or to the end of the
/// string in its direction when there is none: a distance known only once it has run, so it is
/// charged after, one step per `moonblade_bytes_per_step` bytes (a single call reads one string at most).
static int sized_by_offset(lua_State *L) {
    lua_Integer length = lua_type(L, 1) == LUA_TSTRING ? (lua_Integer)lua_rawlen(L, 1) : 0;
    int valid = 1;
    lua_Integer n = lua_tointegerx(L, 2, &valid);
    lua_Integer start = lua_isnoneornil(L, 3) ? (n >= 0 ? 1 : length + 1) : lua_tointegerx(L, 3, &valid);
    if (valid && start < 0) start = (lua_Unsigned)0 - (lua_Unsigned)start > (lua_Unsigned)length ? 0 : length + start + 1;
    int results = call_in_place(L);  // raises for what it refuses, before reading anything
    if (valid && results == 1) {
        lua_Integer found = lua_isinteger(L, -1) ? lua_tointeger(L, -1) : (n > 0 ? length + 1 : 0);
        long long bytes = (long long)(found > start ? found - start : start - found);
        if (bytes >= moonblade_charged_input) moonblade_charge_steps(L, bytes / moonblade_bytes_per_step);
    }
    return results;
}

/// `print`, as Lua's own (each argument through `tostring`, tab-separated, a new line), except that what
/// it is about to write is charged before it writes anything, one step per `moonblade_bytes_per_step`
/// bytes: writing in C runs no Lua instruction, and a `__tostring` may hand over megabytes in a few.
static int charged_print(lua_State *L) {
    int arguments = lua_gettop(L);
    luaL_checkstack(L, arguments, "too many arguments to print");
    size_t bytes = 0;
    for (int argument = 1; argument <= arguments; argument++) {
        size_t length = 0;
        luaL_tolstring(L, argument, &length);
        bytes += length;
    }
    if (bytes >= moonblade_charged_input) moonblade_charge_steps(L, (long long)(bytes / moonblade_bytes_per_step));
    for (int argument = 1; argument <= arguments; argument++) {
        size_t length = 0;
        const char *text = lua_tolstring(L, arguments + argument, &length);
        if (argument > 1) lua_writestring("\t", 1);
        lua_writestring(text, length);
    }
    lua_writeline();
    return 0;
}

/// Replaces `table[name]` with `function` (a stand-in above) wrapping it, with `parameter` as its upvalue 2.
static void size_field(lua_State *L, int table, const char *name, lua_CFunction function, lua_Integer parameter) {
    table = lua_absindex(L, table);
    lua_getfield(L, table, name);
    lua_pushinteger(L, parameter);
    lua_pushcclosure(L, function, 2);
    lua_setfield(L, table, name);
}

/// The library functions that read their string arguments in C: all of them (`moonblade_bytes_per_step`
/// bytes a step), only their format (a byte a step), or only the range they are given. `sub` is not
/// among them: it reads only the slice it copies, which the allocator charges. Nor is `rawequal`: it
/// compares as `==` does, in one step the hook counts (long strings of one length by `memcmp`), and
/// charging it by its arguments bounded nothing a script cannot write as `a == b`; the call's time
/// limit bounds both.
static void size_library_functions(lua_State *L, int globals) {
    static const struct { const char *library, *name; lua_CFunction standIn; lua_Integer parameter; } scanning[] = {
        {LUA_STRLIBNAME, "packsize", sized_by_format, 0},
        {LUA_STRLIBNAME, "pack", sized_by_format, 0},
        {LUA_STRLIBNAME, "unpack", sized_by_format, 1},
        {LUA_OSLIBNAME, "date", sized_by_date_format, 0},
        {LUA_STRLIBNAME, "format", sized_by_strings, moonblade_bytes_per_step},
        {LUA_STRLIBNAME, "upper", sized_by_strings, moonblade_bytes_per_step},
        {LUA_STRLIBNAME, "lower", sized_by_strings, moonblade_bytes_per_step},
        {LUA_STRLIBNAME, "reverse", sized_by_strings, moonblade_bytes_per_step},
        {LUA_UTF8LIBNAME, "codes", sized_by_strings, moonblade_bytes_per_step},
        {LUA_GNAME, "tonumber", sized_by_strings, moonblade_bytes_per_step},
        {LUA_STRLIBNAME, "byte", sized_by_span, 1},
        {LUA_UTF8LIBNAME, "codepoint", sized_by_span, 1},
        {LUA_UTF8LIBNAME, "len", sized_by_span, moonblade_bytes_per_step},
        {LUA_UTF8LIBNAME, "offset", sized_by_offset, 0},
    };
    for (size_t index = 0; index < sizeof scanning / sizeof scanning[0]; index++) {
        if (strcmp(scanning[index].library, LUA_GNAME) == 0) {
            lua_pushvalue(L, globals);
        } else {
            lua_getfield(L, globals, scanning[index].library);
        }
        size_field(L, -1, scanning[index].name, scanning[index].standIn, scanning[index].parameter);
        lua_pop(L, 1);
    }
    lua_pushcfunction(L, charged_print);
    lua_setfield(L, globals, "print");
    lua_getfield(L, globals, LUA_TABLIBNAME);
    size_field(L, -1, "concat", sized_by_range, 3);
    size_field(L, -1, "unpack", sized_by_range, 2);
    size_field(L, -1, "insert", sized_by_shift, 3);
    size_field(L, -1, "remove", sized_by_shift, 2);
    lua_pop(L, 1);
}

// MARK: - Installing the stand-ins

void moonblade_replace_field(lua_State *L, int table, const char *name, const char *original, lua_CFunction function) {
    table = lua_absindex(L, table);
    lua_getfield(L, table, original);
    lua_pushcclosure(L, function, 1);
    lua_setfield(L, table, name);
}

void moonblade_guard_libraries(lua_State *L) {
    lua_createtable(L, 0, 0);
    lua_createtable(L, 0, 1);
    lua_pushliteral(L, "k");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    lua_setfield(L, LUA_REGISTRYINDEX, moonblade_stopped_threads_key);
    lua_pushglobaltable(L);
    lua_pushcfunction(L, guarded_pcall);
    lua_setfield(L, -2, "pcall");
    lua_pushcfunction(L, guarded_xpcall);
    lua_setfield(L, -2, "xpcall");
    lua_getfield(L, -1, LUA_COLIBNAME);
    moonblade_replace_field(L, -1, "resume", "resume", guarded_resume);
    moonblade_replace_field(L, -1, "close", "close", guarded_close);
    moonblade_replace_field(L, -1, "wrap", "create", guarded_wrap);
    lua_pop(L, 1);
    lua_getfield(L, -1, LUA_STRLIBNAME);
    moonblade_replace_field(L, -1, "rep", "rep", counted_rep);
    lua_pop(L, 1);
    lua_getfield(L, -1, LUA_TABLIBNAME);
    moonblade_replace_field(L, -1, "move", "move", counted_move);
    moonblade_replace_field(L, -1, "sort", "sort", counted_sort);
    lua_pop(L, 1);
    size_library_functions(L, lua_gettop(L));
    lua_pop(L, 1);
}

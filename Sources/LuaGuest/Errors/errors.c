// Errors that carry their place: the message handler of the host's protected calls, and the
// description of the error that killed a coroutine, both as `{ message, traceback, source?, line? }`.
// Invariant: the place an error reports is the plugin's line that raised it, taken before any plugin
// code runs for the error.
//
// The place is taken before the error object's `__tostring` (plugin code) runs: if a limit stops that
// `__tostring`, the limit error is reported at the `error(...)` call, where the plugin author can act.

#include "../guest.h"
#include <stdio.h>

/// Protected body of `luaL_tolstring` for an error object with a `__tostring` metamethod (plugin code).
static int tostring(lua_State *L) {
    luaL_tolstring(L, 1, NULL);
    return 1;
}

/// Pushes the message of the error value on top of `L` (which stays where it is).
static void push_error_message(lua_State *L, moonblade_limits *limits) {
    int type = lua_type(L, -1);
    if (type == LUA_TSTRING || type == LUA_TNUMBER) {
        luaL_tolstring(L, -1, NULL);
    } else if (luaL_getmetafield(L, -1, "__tostring") != LUA_TNIL) {
        lua_pop(L, 1);  // the metafield itself; luaL_tolstring calls it
        lua_pushcfunction(L, tostring);
        lua_pushvalue(L, -2);
        int refused = limits->memory_refused;
        if (lua_pcall(L, 1, 1, 0) != LUA_OK) {  // the plugin's __tostring raised, or returned no string
            if (!refused && limits->memory_refused && limits->violation == moonblade_within_limits) {
                limits->violation = moonblade_memory_limit_exceeded;  // it ran out of memory: the call ends
            }
            lua_pop(L, 1);
            lua_pushfstring(L, "(error object is a %s value whose __tostring failed)", luaL_typename(L, -1));
        }
    } else {
        lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, -1));
    }
}

/// Cuts the message on top of `L` to its start and end if it is longer than `moonblade_longest_message`.
static void cut_long_message(lua_State *L) {
    size_t length = 0;
    const char *message = lua_tolstring(L, -1, &length);
    if (message == NULL || length <= moonblade_longest_message) return;
    size_t start = moonblade_longest_message - moonblade_kept_message_end;
    lua_pushlstring(L, message, start);
    lua_pushfstring(L, " ... (a message of %I bytes, cut) ... ", (lua_Integer)length);
    lua_pushlstring(L, message + length - moonblade_kept_message_end, moonblade_kept_message_end);
    lua_concat(L, 3);
    lua_replace(L, -2);
}

/// Replaces the error value on top of `L` with its description as seen from `thread`'s stack,
/// starting at `level`.
static int describe_error(lua_State *L, lua_State *thread, int level) {
    lua_Debug place;
    int placed = 0;
    for (int at = level; lua_getstack(thread, at, &place); at++) {
        lua_getinfo(thread, "Sl", &place);
        if (place.currentline > 0) {
            placed = 1;
            break;
        }
    }
    moonblade_limits *limits = moonblade_limits_of(L);
    int was_stopped = limits->violation != moonblade_within_limits;
    push_error_message(L, limits);
    if (!was_stopped && limits->violation != moonblade_within_limits) {
        // A limit stopped the error object's `__tostring`: blame the `error(...)` call.
        char what[64];
        moonblade_violation_summary(limits, what, sizeof what);
        if (placed) {
            snprintf(limits->violation_message, sizeof limits->violation_message,
                     "%s:%d: %s in the __tostring of an error object", place.short_src, place.currentline, what);
        } else {
            snprintf(limits->violation_message, sizeof limits->violation_message,
                     "%s in the __tostring of an error object", what);
        }
    }
    // The rest is host work: the guest memory limit must not make it fail half-way.
    int enforcing = moonblade_suspend_memory_limit(L);
    cut_long_message(L);
    lua_createtable(L, 0, 4);
    lua_pushvalue(L, -2);
    lua_setfield(L, -2, "message");
    luaL_traceback(L, thread, NULL, level);
    lua_setfield(L, -2, "traceback");
    if (placed) {
        lua_pushstring(L, place.short_src);
        lua_setfield(L, -2, "source");
        lua_pushinteger(L, place.currentline);
        lua_setfield(L, -2, "line");
    }
    moonblade_resume_memory_limit(L, enforcing);
    lua_replace(L, -3);  // over the original error value
    lua_pop(L, 1);       // the message string
    return 1;
}

/// The message handler for every protected call the host makes: describes the error in place.
static int message_handler(lua_State *L) {
    return describe_error(L, L, 1);
}

void moonblade_push_message_handler(lua_State *L) {
    lua_pushcfunction(L, message_handler);
}

/// Protected body of `moonblade_describe_coroutine_error`: (thread, error) -> description.
static int describe_thread_error(lua_State *L) {
    lua_State *thread = lua_tothread(L, 1);
    return describe_error(L, thread, 0);
}

int moonblade_describe_coroutine_error(lua_State *L, lua_State *thread) {
    lua_pushcfunction(L, describe_thread_error);
    lua_pushthread(thread);
    lua_xmove(thread, L, 1);
    lua_pushvalue(thread, -1);
    lua_xmove(thread, L, 1);
    return lua_pcall(L, 2, 1, 0);
}

// The C side of Moonblade's Lua bridge.
//
// Swift cannot import Lua's function-like macros or LUA_REGISTRYINDEX, so each one the bridge uses
// has a `static inline` wrapper here. More importantly, this file holds every piece of code that may
// raise a Lua error (`lua_error` is a longjmp): Swift functions called from Lua go through
// `moonblade_trampoline`, which raises on their behalf in C, so no longjmp ever crosses a Swift frame.
// The guest limits (allocator, count hook) are in moonblade_limits.h; the safe library and sandboxes in moonblade_sandbox.h.

#ifndef MOONBLADE_CLUA_SHIM_H
#define MOONBLADE_CLUA_SHIM_H

#include <lua5.4/lua.h>
#include <lua5.4/lauxlib.h>
#include <lua5.4/lualib.h>
#include <stdlib.h>
#include <string.h>

#include "moonblade_limits.h"
#include "moonblade_sandbox.h"

// MARK: - Macros and constants Swift cannot import

static const int moonblade_registryindex = LUA_REGISTRYINDEX;
static const int moonblade_multret = LUA_MULTRET;

static inline void moonblade_pop(lua_State *L, int n) { lua_pop(L, n); }
static inline void moonblade_insert(lua_State *L, int idx) { lua_insert(L, idx); }
static inline void moonblade_remove(lua_State *L, int idx) { lua_remove(L, idx); }
static inline void moonblade_pushcfunction(lua_State *L, lua_CFunction f) { lua_pushcfunction(L, f); }
static inline int moonblade_pcall(lua_State *L, int nargs, int nresults, int msgh) {
    return lua_pcall(L, nargs, nresults, msgh);
}
static inline void *moonblade_getextraspace(lua_State *L) { return lua_getextraspace(L); }

// MARK: - Swift functions callable from Lua

/// What a Swift entry point returns instead of raising: "the value on top of the stack is an error".
static const int moonblade_raise = -1;

/// A Swift entry point: reads its arguments from `L`, pushes results, returns their count or
/// `moonblade_raise`. It must never raise itself.
typedef int (*moonblade_swift_entry)(lua_State *L, void *function);
typedef void (*moonblade_swift_release)(void *function);

/// The full userdata that is the single upvalue of every Swift function seen from Lua.
typedef struct moonblade_swift_closure {
    moonblade_swift_entry entry;
    moonblade_swift_release release;
    void *function;  // a retained Swift object, released by the userdata's __gc
} moonblade_swift_closure;

static int moonblade_trampoline(lua_State *L) {
    moonblade_swift_closure *closure = (moonblade_swift_closure *)lua_touserdata(L, lua_upvalueindex(1));
    // Host work done by the Swift function (pushing results) is exempt from the guest memory limit.
    moonblade_limits *limits = moonblade_limits_of(L);
    int enforcing = limits->memory_enforcing;
    limits->memory_enforcing = 0;
    int results = closure->entry(L, closure->function);
    limits->memory_enforcing = enforcing;
    if (results == moonblade_raise) return lua_error(L);
    return results;
}

static int moonblade_swift_closure_gc(lua_State *L) {
    moonblade_swift_closure *closure = (moonblade_swift_closure *)lua_touserdata(L, 1);
    if (closure->function != NULL) {
        closure->release(closure->function);
        closure->function = NULL;
    }
    return 0;
}

/// Pushes a Lua function that calls `entry(L, function)`; the userdata owns `function` from now on.
static inline void moonblade_push_swift_function(
    lua_State *L, moonblade_swift_entry entry, moonblade_swift_release release, void *function
) {
    moonblade_swift_closure *closure =
        (moonblade_swift_closure *)lua_newuserdatauv(L, sizeof(moonblade_swift_closure), 0);
    closure->entry = entry;
    closure->release = release;
    closure->function = function;
    if (luaL_newmetatable(L, "moonblade.swift_function")) {
        lua_pushcfunction(L, moonblade_swift_closure_gc);
        lua_setfield(L, -2, "__gc");
        lua_pushboolean(L, 0);
        lua_setfield(L, -2, "__metatable");  // scripts can neither read nor replace it
    }
    lua_setmetatable(L, -2);
    lua_pushcclosure(L, moonblade_trampoline, 1);
}

// MARK: - Errors that carry their place

/// Protected body of `luaL_tolstring` for an error object with a `__tostring` metamethod (plugin code).
static int moonblade_tostring(lua_State *L) {
    luaL_tolstring(L, 1, NULL);
    return 1;
}

/// Replaces the error value on top of `L` with a table
/// `{ message = string, traceback = string, source = string?, line = integer? }`
/// describing the error as seen from `thread`'s stack, starting at `level`.
static int moonblade_describe_error(lua_State *L, lua_State *thread, int level) {
    int type = lua_type(L, -1);
    if (type == LUA_TSTRING || type == LUA_TNUMBER) {
        luaL_tolstring(L, -1, NULL);
    } else if (luaL_getmetafield(L, -1, "__tostring") != LUA_TNIL) {
        lua_pop(L, 1);  // the metafield itself; luaL_tolstring calls it
        lua_pushcfunction(L, moonblade_tostring);
        lua_pushvalue(L, -2);
        if (lua_pcall(L, 1, 1, 0) != LUA_OK) {  // the plugin's __tostring raised, or returned no string
            lua_pop(L, 1);
            lua_pushfstring(L, "(error object is a %s value whose __tostring failed)", luaL_typename(L, -1));
        }
    } else {
        lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, -1));
    }
    // The rest is host work: the guest memory limit must not make it fail half-way.
    moonblade_limits *limits = moonblade_limits_of(L);
    int enforcing = limits->memory_enforcing;
    limits->memory_enforcing = 0;
    lua_createtable(L, 0, 4);
    lua_pushvalue(L, -2);
    lua_setfield(L, -2, "message");
    luaL_traceback(L, thread, NULL, level);
    lua_setfield(L, -2, "traceback");
    lua_Debug ar;
    for (int at = level; lua_getstack(thread, at, &ar); at++) {
        lua_getinfo(thread, "Sl", &ar);
        if (ar.currentline > 0) {
            lua_pushstring(L, ar.short_src);
            lua_setfield(L, -2, "source");
            lua_pushinteger(L, ar.currentline);
            lua_setfield(L, -2, "line");
            break;
        }
    }
    limits->memory_enforcing = enforcing;
    lua_replace(L, -3);  // over the original error value
    lua_pop(L, 1);       // the message string
    return 1;
}

/// The message handler for every protected call the host makes: describes the error in place.
static int moonblade_message_handler(lua_State *L) {
    return moonblade_describe_error(L, L, 1);
}

/// Pushes the message handler; the host passes its index to `lua_pcall`.
static inline void moonblade_push_message_handler(lua_State *L) {
    lua_pushcfunction(L, moonblade_message_handler);
}

/// Protected body of `moonblade_describe_coroutine_error`: (thread, error) -> description.
static int moonblade_describe_thread_error(lua_State *L) {
    lua_State *thread = lua_tothread(L, 1);
    return moonblade_describe_error(L, thread, 0);
}

/// Describes the error that killed coroutine `thread` (its error value is on top of `thread`),
/// pushing the description table onto `L`. Returns a Lua status: the work runs protected.
static inline int moonblade_describe_coroutine_error(lua_State *L, lua_State *thread) {
    lua_pushcfunction(L, moonblade_describe_thread_error);
    lua_pushthread(thread);
    lua_xmove(thread, L, 1);
    lua_pushvalue(thread, -1);
    lua_xmove(thread, L, 1);
    return lua_pcall(L, 2, 1, 0);
}

#endif

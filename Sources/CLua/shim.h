// The C side of Moonblade's Lua bridge.
//
// Swift cannot import Lua's function-like macros or LUA_REGISTRYINDEX, so each one the bridge uses
// has a `static inline` wrapper here. More importantly, this file holds every piece of code that may
// raise a Lua error (`lua_error` is a longjmp): Swift functions called from Lua go through
// `moonblade_trampoline`, which raises on their behalf in C, so no longjmp ever crosses a Swift frame.
// Logic in C (the guest limits, the sandbox, error descriptions) lives in the LuaGuest target.

#ifndef MOONBLADE_CLUA_SHIM_H
#define MOONBLADE_CLUA_SHIM_H

#include <lua5.4/lua.h>
#include <lua5.4/lauxlib.h>
#include <lua5.4/lualib.h>
#include <stdlib.h>
#include <string.h>

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
    int results = closure->entry(L, closure->function);
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

#endif

// The `next` a Lua interceptor is given. Invariant: an error it raises names the interceptor's line.
//
// A C function rather than a Lua one for its errors' place: `return next(item)` is a tail call, which
// replaces a Lua callee's caller frame, so an error a Lua `next` raised could name no line of the
// interceptor; a C function called in tail position leaves that frame in place, and `luaL_error`
// names the line of the call.

#include "../guest.h"

enum { upvalue_intercept = 1, upvalue_interceptors, upvalue_index, upvalue_item, upvalue_state };
/// The state table's flags, at these indexes.
enum { state_called = 1, state_returned };

/// Whether `flag` of the closure's state table is set.
static int state_flag(lua_State *L, int flag) {
    int set = lua_rawgeti(L, lua_upvalueindex(upvalue_state), flag) != LUA_TNIL;
    lua_pop(L, 1);
    return set;
}

static int passed_on(lua_State *L, int status, lua_KContext context) {
    (void)L;
    (void)status;
    (void)context;
    return 0;
}

/// `next(item)`: once, while its interceptor runs, passes `item` (the one it was given, if nil) to
/// `intercept(interceptors, index + 1, item)`.
static int interceptor_next(lua_State *L) {
    lua_settop(L, 1);
    if (state_flag(L, state_returned)) return luaL_error(L, "next was called after its interceptor returned");
    if (state_flag(L, state_called)) return luaL_error(L, "next was called twice; an interceptor passes an item on once");
    lua_pushboolean(L, 1);
    lua_rawseti(L, lua_upvalueindex(upvalue_state), state_called);
    if (lua_isnil(L, 1)) {
        lua_pushvalue(L, lua_upvalueindex(upvalue_item));
        lua_replace(L, 1);
    }
    if (!lua_istable(L, 1)) return luaL_error(L, "next expects the item table, got a %s", luaL_typename(L, 1));
    lua_pushvalue(L, lua_upvalueindex(upvalue_intercept));
    lua_pushvalue(L, lua_upvalueindex(upvalue_interceptors));
    lua_pushinteger(L, lua_tointeger(L, lua_upvalueindex(upvalue_index)) + 1);
    lua_pushvalue(L, 1);
    // With a continuation: an interceptor further in may yield (inside a coroutine of this one).
    lua_callk(L, 3, 0, 0, passed_on);
    return passed_on(L, LUA_OK, 0);
}

/// Registry key of the state tables' metatable.
static const char state_metatable_key = 0;

/// `__close` of a state table: its interceptor has returned, or raised.
static int close_state(lua_State *L) {
    lua_pushboolean(L, 1);
    lua_rawseti(L, 1, state_returned);
    return 0;
}

int moonblade_make_interceptor_next(lua_State *L) {
    luaL_checktype(L, 1, LUA_TFUNCTION);
    luaL_checktype(L, 2, LUA_TTABLE);
    luaL_checkinteger(L, 3);
    luaL_checktype(L, 4, LUA_TTABLE);
    lua_settop(L, 4);
    lua_createtable(L, 2, 0);
    if (lua_rawgetp(L, LUA_REGISTRYINDEX, &state_metatable_key) == LUA_TNIL) {
        lua_pop(L, 1);
        lua_createtable(L, 0, 1);
        lua_pushcfunction(L, close_state);
        lua_setfield(L, -2, "__close");
        lua_pushvalue(L, -1);
        lua_rawsetp(L, LUA_REGISTRYINDEX, &state_metatable_key);
    }
    lua_setmetatable(L, -2);
    for (int upvalue = upvalue_intercept; upvalue <= upvalue_state; upvalue++) lua_pushvalue(L, upvalue);
    lua_pushcclosure(L, interceptor_next, upvalue_state);
    lua_pushvalue(L, upvalue_state);
    return 2;
}

// Read-only views of resident versions (`ctx.state()`, `on_state_change(old, new)`). Invariant: a view
// never writes and never copies: it reads its resident table, hands out the view of a nested table
// (one per table, so a view compares equal wherever it is read), and a write raises at the plugin's
// line naming the key.

#include "resident.h"

/// Pushes the read-only view of the resident table at `t` (one per table, made on first use), read at
/// `key` from the view at `parent` (0 for none). Read so by an updater, the view remembers where for the
/// rest of it (STANDS, VIEWOF): put back after the view it was last read from, it is found below that
/// one (`push_view_node`). The last, not the first: a table the state keeps is read from the views of
/// the newer tables holding it. Reads outside updaters (side effects, observers) record nothing.
void rs_push_view(lua_State *L, int m, int t, int parent, int key) {
    t = lua_absindex(L, t);
    if (parent) {
        parent = lua_absindex(L, parent);
        key = lua_absindex(L, key);
    }
    if (lookup(L, m, M_VIEWOF, t) != LUA_TTABLE) {
        lua_pop(L, 1);
        lua_createtable(L, 0, 0);
        lua_getiuservalue(L, m, M_VIEW_MT);
        lua_setmetatable(L, -2);
        store(L, m, M_VIEW, -1, t);
        store(L, m, M_VIEWOF, t, -1);
    }
    if (parent && ((state_machine *)lua_touserdata(L, m))->live_session) {
        session_table(L, m, M_STANDS);
        lua_pushvalue(L, -2);
        lua_pushvalue(L, parent);
        lua_rawset(L, -3);
        lua_pop(L, 1);
        store(L, m, M_VIEWOF, -1, key);
    }
}

static int view_index(lua_State *L) {
    lookup(L, MACHINE, M_VIEW, 1);
    lua_pushvalue(L, 2);
    if (lua_rawget(L, -2) == LUA_TTABLE) rs_push_view(L, MACHINE, -1, 1, 2);
    return 1;
}

/// Pushes how a message names `key` (at `index`): `field "name"` (quoted as `%q` does) or `key 3`.
static void push_key_description(lua_State *L, int index) {
    index = lua_absindex(L, index);
    luaL_Buffer buffer;
    luaL_buffinit(L, &buffer);
    if (lua_type(L, index) == LUA_TSTRING) {
        size_t length;
        const char *name = lua_tolstring(L, index, &length);
        luaL_addstring(&buffer, "field \"");
        for (size_t i = 0; i < length; i++) {
            unsigned char c = (unsigned char)name[i];
            if (c == '"' || c == '\\' || c == '\n') {
                luaL_addchar(&buffer, '\\');
                luaL_addchar(&buffer, (char)c);
            } else if (c == '\r') {
                luaL_addstring(&buffer, "\\r");
            } else if (c < 0x20 || c == 0x7f) {
                char escaped[8];
                snprintf(escaped, sizeof escaped, i + 1 < length && name[i + 1] >= '0' && name[i + 1] <= '9' ? "\\%03d" : "\\%d", c);
                luaL_addstring(&buffer, escaped);
            } else {
                luaL_addchar(&buffer, (char)c);
            }
        }
        luaL_addchar(&buffer, '"');
    } else {
        luaL_addstring(&buffer, "key ");
        luaL_tolstring(L, index, NULL);
        luaL_addvalue(&buffer);
    }
    luaL_pushresult(&buffer);
}

static int view_newindex(lua_State *L) {
    luaL_where(L, 1);
    lua_pushstring(L, "state is read-only here (");
    push_key_description(L, 2);
    lua_pushstring(L, ")");
    lua_concat(L, 4);
    return lua_error(L);
}

static int view_len(lua_State *L) {
    lookup(L, MACHINE, M_VIEW, 1);
    lua_pushinteger(L, (lua_Integer)lua_rawlen(L, -1));
    return 1;
}

/// The iterator of `pairs(view)`: walks the resident table (upvalue 3), handing out views of tables.
static int view_next(lua_State *L) {
    lua_settop(L, 2);
    if (!lua_next(L, lua_upvalueindex(3))) {
        lua_pushnil(L);
        return 1;
    }
    if (lua_type(L, -1) == LUA_TTABLE) {
        rs_push_view(L, MACHINE, -1, 1, -2);
        lua_replace(L, -2);
    }
    return 2;
}

static int view_pairs(lua_State *L) {
    lua_pushvalue(L, MACHINE);
    lua_pushvalue(L, RECORDS);
    lookup(L, MACHINE, M_VIEW, 1);
    lua_pushcclosure(L, view_next, 3);
    lua_pushvalue(L, 1);
    lua_pushnil(L);
    return 3;
}

const luaL_Reg rs_view_methods[] = {
    {"__index", view_index}, {"__newindex", view_newindex}, {"__len", view_len}, {"__pairs", view_pairs},
    {NULL, NULL}};

// libFuzzer harness: Moonblade's step-counting pattern matcher (LuaGuest/Patterns) against Lua 5.4's
// own `string.find`, `match`, `gmatch` and `gsub` from the system liblua5.4, under AddressSanitizer.
// Both run in one VM; compare.lua (path in COMPARE_LUA) calls each and compares every result, or the
// error message. Ours runs as a guest call with an instruction budget: an input that spends it is not
// compared (Lua's own matcher has no budget and could run for minutes on it).
//
// Input: [operation] [init] [fourth] [pattern length] [replacement length] pattern replacement subject.

#include "../../Sources/LuaGuest/guest.h"
#include <lua5.4/lualib.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { operations = 6, budget = 200000 };

static moonblade_limits limits;
static lua_State *L;
static int compare_reference = LUA_NOREF;

/// A table holding the four pattern functions of the string library as it is now.
static void push_pattern_functions(lua_State *state) {
    static const char *const names[] = {"find", "match", "gmatch", "gsub", NULL};
    lua_createtable(state, 0, 4);
    lua_getglobal(state, LUA_STRLIBNAME);
    for (const char *const *name = names; *name; name++) {
        lua_getfield(state, -1, *name);
        lua_setfield(state, -3, *name);
    }
    lua_pop(state, 1);
}

static int setup(lua_State *state) {
    luaL_openlibs(state);
    push_pattern_functions(state);  // stock
    moonblade_install_pattern_functions(state);
    push_pattern_functions(state);  // ours
    // Neither set is found under a global name, so the error messages of both name the function alike.
    lua_getfield(state, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
    lua_pushnil(state);
    lua_setfield(state, -2, LUA_STRLIBNAME);
    lua_pop(state, 1);
    lua_pushnil(state);
    lua_setglobal(state, LUA_STRLIBNAME);
    lua_insert(state, -2);  // ours, stock
    if (luaL_loadfile(state, COMPARE_LUA) != LUA_OK) lua_error(state);
    lua_insert(state, -3);
    lua_call(state, 2, 1);  // compare.lua(ours, stock)
    return 1;
}

static void initialize(void) {
    moonblade_limits_init(&limits, 0, budget, 1000);
    L = moonblade_newstate(&limits);
    lua_pushcfunction(L, setup);
    if (lua_pcall(L, 0, 1, 0) != LUA_OK) {
        fprintf(stderr, "matcher harness setup failed: %s\n", lua_tostring(L, -1));
        abort();
    }
    compare_reference = luaL_ref(L, LUA_REGISTRYINDEX);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (L == NULL) initialize();
    if (size < 5) return 0;
    int operation = data[0] % operations;
    int8_t init = (int8_t)data[1];
    uint8_t fourth = data[2];
    size_t pattern_length = data[3], replacement_length = data[4];
    data += 5;
    size -= 5;
    if (pattern_length > size) pattern_length = size;
    if (replacement_length > size - pattern_length) replacement_length = size - pattern_length;
    const char *pattern = (const char *)data, *replacement = pattern + pattern_length;
    const char *subject = replacement + replacement_length;
    size_t subject_length = size - pattern_length - replacement_length;

    lua_rawgeti(L, LUA_REGISTRYINDEX, compare_reference);
    lua_pushinteger(L, operation);
    lua_pushlstring(L, subject, subject_length);
    lua_pushlstring(L, pattern, pattern_length);
    if (operation == 3) {
        lua_pushlstring(L, replacement, replacement_length);
    } else if (init == INT8_MIN) {
        lua_pushnil(L);
    } else {
        lua_pushinteger(L, init);
    }
    if (operation == 0) {
        if (fourth & 2) lua_pushboolean(L, fourth & 1); else lua_pushnil(L);
    } else if (fourth == 255) {
        lua_pushnil(L);
    } else {
        lua_pushinteger(L, (lua_Integer)fourth - 4);
    }
    int was_enforcing = moonblade_enter_guest(&limits);
    int status = lua_pcall(L, 5, 1, 0);
    moonblade_leave_guest(&limits, was_enforcing);
    // A spent budget unwinds the whole call (the count hook raises again at once after any pcall).
    int stopped = limits.violation != moonblade_within_limits;
    if (!stopped && (status != LUA_OK || !lua_isnil(L, -1))) {
        fprintf(stderr, "pattern functions differ:\n%s\n", lua_tostring(L, -1));
        abort();
    }
    lua_pop(L, 1);
    return 0;
}

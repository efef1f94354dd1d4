// The table checks of the Lua coders (MoonbladeLua/Coding): is a table a record (all keys strings, or
// all integers), is it a sequence (keys exactly 1…n). One C loop each instead of a Swift loop making a
// C-API call per key. Invariant: never raises: only raw calls, and `lua_next` is given back the keys
// it returned.

#include "LuaGuest.h"
#include <stdint.h>
#include <string.h>

/// Whether any of the `length` bytes at `bytes` is 0x80 or more: a word at a time, as `LuaCoding.isASCII`.
static int has_non_ascii(const unsigned char *bytes, size_t length) {
    size_t i = 0;
    for (; i + sizeof(uint64_t) <= length; i += sizeof(uint64_t)) {
        uint64_t word;
        memcpy(&word, bytes + i, sizeof word);
        if (word & UINT64_C(0x8080808080808080)) return 1;
    }
    for (; i < length; i++) {
        if (bytes[i] >= 0x80) return 1;
    }
    return 0;
}

int moonblade_check_record_keys(lua_State *L, int index, int integer_keys, int *non_ascii) {
    index = lua_absindex(L, index);
    if (integer_keys) non_ascii = NULL;  // integer keys have no text
    lua_pushnil(L);
    while (lua_next(L, index) != 0) {
        int valid = integer_keys ? lua_isinteger(L, -2) : lua_type(L, -2) == LUA_TSTRING;
        if (!valid) {
            lua_pop(L, 1);  // the value: the offending key stays on top
            return 1;
        }
        if (non_ascii != NULL && !*non_ascii) {
            size_t length;
            const unsigned char *bytes = (const unsigned char *)lua_tolstring(L, -2, &length);  // a string: no conversion
            *non_ascii = has_non_ascii(bytes, length);
        }
        lua_pop(L, 1);
    }
    return 0;
}

int moonblade_check_listed_keys(lua_State *L, int index, int record) {
    index = lua_absindex(L, index);
    record = lua_absindex(L, record);
    lua_Integer count = (lua_Integer)lua_rawlen(L, record);
    for (lua_Integer position = 2; position <= count; position++) {
        if (lua_rawgeti(L, record, position) != LUA_TSTRING) {
            lua_pushvalue(L, -1);
            if (lua_rawget(L, index) != LUA_TNIL) {  // a key removed again is no key of the table
                lua_pop(L, 1);  // the value: the offending key stays on top
                return 1;
            }
            lua_pop(L, 1);
        }
        lua_pop(L, 1);
    }
    return 0;
}

long long moonblade_check_sequence(lua_State *L, int index, long long *hole) {
    index = lua_absindex(L, index);
    lua_Integer count = (lua_Integer)lua_rawlen(L, index);
    lua_Integer seen = 0;
    lua_pushnil(L);
    while (lua_next(L, index) != 0) {
        int is_integer = 0;
        lua_Integer position = lua_type(L, -2) == LUA_TNUMBER ? lua_tointegerx(L, -2, &is_integer) : 0;
        if (!is_integer || position < 1 || position > count) {
            lua_pop(L, 1);  // the value: the offending key stays on top
            if (is_integer && position > count) {
                lua_pop(L, 1);
                *hole = count + 1;
                return moonblade_sequence_hole;
            }
            return moonblade_sequence_bad_key;
        }
        seen += 1;
        lua_pop(L, 1);
    }
    if (seen != count) {
        // Fewer entries than the border says: some position below it is empty.
        lua_Integer position = 1;
        while (lua_rawgeti(L, index, position) != LUA_TNIL) {
            lua_pop(L, 1);
            position += 1;
        }
        lua_pop(L, 1);
        *hole = position;
        return moonblade_sequence_hole;
    }
    return count;
}

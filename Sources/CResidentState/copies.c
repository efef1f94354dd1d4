// Shallow copies of resident tables, the first write to a draft makes. Invariant: a copy holds the
// raw contents of its table and keeps its kind marker (LuaTableKind), so an object stays one when
// emptied; SEQ learns which tables are exactly the sequence 1..n, and such a copy is one SETLIST.
// Every copy is charged to the guest's instruction budget, like `table.move`.

#include "resident.h"

/// Up to this length a sequence is copied through the stack, in one SETLIST (what `{ table.unpack(t) }`
/// does), a third of the cost of setting each item from C; longer ones, or any when the stack cannot
/// grow that far, item by item.
enum { STACK_COPY_LIMIT = 200000 };

/// `push(t, n)`: pushes `t[1]`, ..., `t[n]`, raw; the C half of M_COPY_SEQUENCE.
static int push_sequence(lua_State *L) {
    lua_Integer n = lua_tointeger(L, 2);
    luaL_checkstack(L, (int)n, "the sequence is too long to copy");
    for (lua_Integer i = 1; i <= n; i++) lua_rawgeti(L, 1, i);
    return (int)n;
}

static const char copy_sequence_source[] =
    "local push = ...\n"
    "return function(t, n) return { push(t, n) } end\n";

/// Pushes a shallow copy of the table at `t`, keeping its kind; records in SEQ whether `t` is exactly
/// a sequence, which makes the next copy of it a loop over 1...n. Returns the sequence's length, or
/// -1 when `t` is not exactly a sequence. A table of other keys is counted first, to make its copy at
/// its size, unless `record` (a root's) remembers the size of its last copy: the root changes little
/// from one version to the next, and a size that is off costs a rehash, not a wrong copy.
lua_Integer rs_shallow_copy(lua_State *L, int m, int t, draft_record *record) {
    t = lua_absindex(L, t);
    lua_Integer length = -1, border = (lua_Integer)lua_rawlen(L, t);
    // Only a table with a border past 0 can be a known non-empty sequence (objects skip the look-up).
    if (border > 0 && lookup(L, m, M_SEQ, t) == LUA_TNUMBER) {
        lua_Integer n = lua_tointeger(L, -1);
        length = n;
        lua_pop(L, 1);
        // Room for the items here is room for them in the helper's frame, just above.
        if (n <= STACK_COPY_LIMIT && lua_checkstack(L, (int)n + 8)) {
            lua_getiuservalue(L, m, M_COPY_SEQUENCE);
            lua_pushvalue(L, t);
            lua_pushinteger(L, n);
            lua_call(L, 2, 1);
        } else {
            lua_createtable(L, (int)n, 0);
            for (lua_Integer i = 1; i <= n; i++) {
                lua_rawgeti(L, t, i);
                lua_rawseti(L, -2, i);
            }
        }
        moonblade_count_steps(L, n);
    } else {
        if (border > 0) lua_pop(L, 1);
        lua_Integer n = border, count = 0, positions = 0;
        int sized = record && (record->hint_positions > 0 || record->hint_others > 0);
        if (!sized) {
            lua_pushnil(L);
            while (lua_next(L, t)) {
                lua_pop(L, 1);
                count++;
                positions += is_position(L, -1, n);
            }
        } else {
            positions = record->hint_positions;
            count = positions + record->hint_others;
        }
        lua_Integer others = count - positions;
        lua_createtable(L, positions > INT_MAX ? INT_MAX : (int)positions, others > INT_MAX ? INT_MAX : (int)others);
        int copy = lua_gettop(L);
        if (sized) count = positions = 0;
        lua_pushnil(L);
        while (lua_next(L, t)) {
            if (sized) {
                count++;
                positions += is_position(L, -2, n);
            }
            lua_pushvalue(L, -2);
            lua_insert(L, -2);
            lua_rawset(L, copy);
        }
        others = count - positions;
        if (record) {
            record->hint_positions = positions;
            record->hint_others = others;
        }
        moonblade_count_steps(L, count);
        if (others == 0 && positions == n) {
            if (n > 0) {
                lua_pushinteger(L, n);
                store(L, m, M_SEQ, t, -1);
                lua_pop(L, 1);
            }
            length = n;
        }
    }
    keep_kind(L, m, t);
    return length;
}

void rs_push_copy_sequence(lua_State *L) {
    lua_pushfstring(L, "@%s", moonblade_state_chunk_name());
    int loaded = luaL_loadbufferx(L, copy_sequence_source, sizeof copy_sequence_source - 1, lua_tostring(L, -1), "t");
    lua_replace(L, -2);
    if (loaded != LUA_OK) lua_error(L);
    lua_pushcfunction(L, push_sequence);
    lua_call(L, 1, 1);
}
